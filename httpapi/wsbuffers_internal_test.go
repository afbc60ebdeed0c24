package httpapi

import (
	"bufio"
	"bytes"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestFrameLength(t *testing.T) {
	for _, tc := range []struct {
		name  string
		frame []byte
		want  int
		whole bool
	}{
		{"one byte", []byte{0x81}, 0, false},
		{"short", []byte{0x81, 5}, 7, true},
		{"16-bit length, header cut", []byte{0x81, 126, 1}, 0, false},
		{"16-bit length", []byte{0x81, 126, 1, 0}, 4 + 256, true},
		{"64-bit length, header cut", []byte{0x81, 127, 0, 0, 0, 0, 0, 1, 0}, 0, false},
		{"64-bit length", []byte{0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0}, 10 + 65536, true},
		{"masked", []byte{0x81, 0x80 | 5}, 11, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, ok := frameLength(tc.frame)
			require.Equal(t, tc.whole, ok)
			require.Equal(t, tc.want, n)
		})
	}
}

// writesConn records each Write as it is made.
type writesConn struct {
	net.Conn
	writes [][]byte
}

func (c *writesConn) Write(p []byte) (int, error) {
	c.writes = append(c.writes, bytes.Clone(p))
	return len(p), nil
}

func (c *writesConn) SetWriteDeadline(time.Time) error { return nil }

// frameWriter writes each frame in one write, however coder/websocket's
// small bufio.Writer hands it over, and holds no buffer between frames.
func TestFrameWriterWritesWholeFrames(t *testing.T) {
	conn := &writesConn{}
	fw := &frameWriter{conn: conn}
	bw := bufio.NewWriterSize(fw, wsFrameWriterBuffer)
	frame := func(payload []byte) []byte {
		if len(payload) < 126 {
			return append([]byte{0x81, byte(len(payload))}, payload...)
		}
		return append([]byte{0x81, 126, byte(len(payload) >> 8), byte(len(payload))}, payload...)
	}
	small, large := frame([]byte(`{"type":"pong"}`)), frame(bytes.Repeat([]byte("x"), 5000))
	for _, f := range [][]byte{small, large, small} {
		_, err := bw.Write(f[:2])
		require.NoError(t, err)
		_, err = bw.Write(f[2:])
		require.NoError(t, err)
		require.NoError(t, bw.Flush())
		require.Nil(t, fw.buf, "a buffer held between frames")
	}
	require.Equal(t, [][]byte{small, large, small}, conn.writes)
}

// textFrame makes the frame coder/websocket would send for the message:
// final, text, unmasked, the shortest length encoding; one frame whole.
func TestTextFrame(t *testing.T) {
	for _, tc := range []struct {
		n      int
		header []byte
	}{
		{0, []byte{0x81, 0}},
		{125, []byte{0x81, 125}},
		{126, []byte{0x81, 126, 0, 126}},
		{65535, []byte{0x81, 126, 0xff, 0xff}},
		{65536, []byte{0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0}},
	} {
		msg := bytes.Repeat([]byte("x"), tc.n)
		frame := textFrame(append(make([]byte, wsFrameHeaderRoom), msg...))
		require.Equal(t, tc.header, frame[:len(tc.header)], "header for %d bytes", tc.n)
		require.Equal(t, msg, frame[len(tc.header):])
		n, ok := frameLength(frame)
		require.True(t, ok)
		require.Equal(t, len(frame), n)
	}
}
