package httpapi

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// The buffers of a WebSocket. net/http hands a hijacker its 4 KiB read
// buffer and a new 4 KiB write buffer, which coder/websocket keeps for as
// long as the connection lasts: 8 KiB for a connection that mostly waits.
// Ours reads through a small buffer (a client's messages are small; a
// larger one is read past it) and writes through a buffer taken from a pool
// for one frame at a time, so an idle connection holds no write buffer.

// wsReadBuffer is the read buffer of a WebSocket.
const wsReadBuffer = 512

// wsFrameWriterBuffer is the bufio.Writer coder/websocket writes a frame's
// header and payload through: room for a header, no more (frameWriter
// buffers the frame).
const wsFrameWriterBuffer = 16

// wsPooledBuffer is the largest frame buffer put back in the pool: a rare
// large result's buffer is left to the collector.
const wsPooledBuffer = 64 << 10

var wsFramePool = sync.Pool{New: func() any { b := make([]byte, 0, 2<<10); return &b }}

// wsMessagePool holds the buffers an event's `next` message is built in for
// one subscriber, and written from.
var wsMessagePool = sync.Pool{New: func() any { b := make([]byte, 0, 1<<10); return &b }}

// lightBuffers hands the WebSocket our buffers when it takes the
// connection over, and keeps the connection and its read buffer for the
// idle reader's wait (waitReadable).
type lightBuffers struct {
	http.ResponseWriter
	conn net.Conn
	br   *bufio.Reader
}

// Hijack takes the connection over, keeping none of net/http's buffers.
func (w *lightBuffers) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	if err := brw.Writer.Flush(); err != nil {
		_ = conn.Close()
		return nil, nil, err
	}
	br := bufio.NewReaderSize(conn, wsReadBuffer)
	if n := brw.Reader.Buffered(); n > 0 {
		// What the client sent past the handshake goes in our buffer
		// (coder/websocket reads on from what is buffered, then from conn).
		ahead, _ := brw.Reader.Peek(n)
		br = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(bytes.Clone(ahead)), conn), max(wsReadBuffer, n))
		if _, err := br.Peek(n); err != nil {
			_ = conn.Close()
			return nil, nil, err
		}
	}
	fw := &frameWriter{conn: conn}
	w.conn, w.br = conn, br
	return conn, bufio.NewReadWriter(br, bufio.NewWriterSize(fw, wsFrameWriterBuffer)), nil
}

// frameWriter collects one WebSocket frame (as the server sends them:
// unmasked) in a pooled buffer and writes it to the connection in one
// write once it is whole, then gives the buffer back. coder/websocket
// writes each frame under its lock, so frames do not interleave.
type frameWriter struct {
	conn net.Conn
	buf  *[]byte
}

func (f *frameWriter) Write(p []byte) (int, error) {
	if f.buf == nil {
		f.buf = wsFramePool.Get().(*[]byte)
	}
	*f.buf = append(*f.buf, p...)
	for {
		n, ok := frameLength(*f.buf)
		if !ok || len(*f.buf) < n {
			return len(p), nil // the frame's rest is to come
		}
		_ = f.conn.SetWriteDeadline(time.Now().Add(wsWriteTimeout))
		if _, err := f.conn.Write((*f.buf)[:n]); err != nil {
			f.release()
			return 0, err
		}
		rest := copy(*f.buf, (*f.buf)[n:])
		*f.buf = (*f.buf)[:rest]
		if rest == 0 {
			f.release()
			return len(p), nil
		}
	}
}

// release gives the buffer back to the pool.
func (f *frameWriter) release() {
	b := f.buf
	f.buf = nil
	if cap(*b) <= wsPooledBuffer {
		*b = (*b)[:0]
		wsFramePool.Put(b)
	}
}

// frameLength is the length of the unmasked frame b starts with, header
// included, once its header is whole.
func frameLength(b []byte) (int, bool) {
	if len(b) < 2 {
		return 0, false
	}
	hdr, n := 2, uint64(b[1]&0x7f)
	switch n {
	case 126:
		if len(b) < 4 {
			return 0, false
		}
		hdr, n = 4, uint64(binary.BigEndian.Uint16(b[2:4]))
	case 127:
		if len(b) < 10 {
			return 0, false
		}
		hdr, n = 10, binary.BigEndian.Uint64(b[2:10])
	}
	if b[1]&0x80 != 0 { // masked (a client's frame): never ours, but counted right
		hdr += 4
	}
	return hdr + int(n), true
}

// wsFrameHeaderRoom is the room left before a message for its frame's
// header (textFrame): the longest a server's header is.
const wsFrameHeaderRoom = 10

// textFrame puts the header of a final, unmasked text frame in the room
// before the message b[wsFrameHeaderRoom:], and returns the frame.
func textFrame(b []byte) []byte {
	const room = wsFrameHeaderRoom
	n := len(b) - room
	start := room - 2
	switch {
	case n < 126:
		b[start+1] = byte(n)
	case n <= 0xffff:
		start = room - 4
		b[start+1] = 126
		binary.BigEndian.PutUint16(b[start+2:room], uint16(n))
	default:
		start = 0
		b[1] = 127
		binary.BigEndian.PutUint64(b[2:room], uint64(n))
	}
	b[start] = 0x81 // FIN, text
	return b[start:]
}
