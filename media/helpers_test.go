package media

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// fixture reads a file of testdata/ (see testdata/README.md for where each came from).
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	return b
}

// quadrants is a w×h picture whose four quarters are red (top left), green
// (top right), blue (bottom left) and white (bottom right), so that a test
// can tell how it was turned from its corners.
func quadrants(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{255, 0, 0, 255}
			switch {
			case x >= w/2 && y < h/2:
				c = color.RGBA{0, 255, 0, 255}
			case x < w/2 && y >= h/2:
				c = color.RGBA{0, 0, 255, 255}
			case x >= w/2 && y >= h/2:
				c = color.RGBA{255, 255, 255, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

// encodeJPEGTest encodes an image as a JPEG with Go's encoder.
func encodeJPEGTest(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}))
	return buf.Bytes()
}

// encodePNGTest encodes an image as a PNG with Go's encoder.
func encodePNGTest(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return buf.Bytes()
}

// withSegment inserts a JPEG marker segment right after SOI.
func withSegment(jpg []byte, marker byte, payload []byte) []byte {
	seg := []byte{0xFF, marker, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	out := append([]byte{}, jpg[:2]...)
	out = append(out, seg...)
	out = append(out, payload...)
	return append(out, jpg[2:]...)
}

// exifOrientationPayload is an APP1 Exif payload whose IFD0 holds only an
// Orientation tag, in the given byte order ("II" or "MM").
func exifOrientationPayload(order string, orientation uint16) []byte {
	var bo binary.AppendByteOrder = binary.LittleEndian
	head := []byte("II*\x00")
	if order == "MM" {
		bo, head = binary.BigEndian, []byte("MM\x00*")
	}
	tiff := append([]byte{}, head...)
	tiff = bo.AppendUint32(tiff, 8)      // IFD0 right after the header
	tiff = bo.AppendUint16(tiff, 2)      // two entries
	tiff = bo.AppendUint16(tiff, 0x010F) // Make, ASCII, 4 bytes in place
	tiff = bo.AppendUint16(tiff, 2)
	tiff = bo.AppendUint32(tiff, 4)
	tiff = append(tiff, "Go\x00\x00"...)
	tiff = bo.AppendUint16(tiff, 0x0112) // Orientation, SHORT, 1
	tiff = bo.AppendUint16(tiff, 3)
	tiff = bo.AppendUint32(tiff, 1)
	tiff = bo.AppendUint16(tiff, orientation)
	tiff = bo.AppendUint16(tiff, 0)
	tiff = bo.AppendUint32(tiff, 0) // no next IFD
	return append([]byte("Exif\x00\x00"), tiff...)
}

// pngChunk is one PNG chunk with its length and checksum.
func pngChunk(typ string, data []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	out = append(out, typ...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(append([]byte(typ), data...)))
}

// withPNGChunk inserts a chunk right after IHDR.
func withPNGChunk(p []byte, chunk []byte) []byte {
	at := 8 + 8 + 13 + 4 // signature, IHDR
	out := append([]byte{}, p[:at]...)
	out = append(out, chunk...)
	return append(out, p[at:]...)
}

// pngHeader is a PNG's signature and an IHDR (8-bit RGB) of any size, with
// a correct checksum: all a decoder reads before it allocates the image.
func pngHeader(w, h uint32) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 2, 0, 0, 0) // depth 8, RGB, deflate, filter 0, no interlace
	return append(append([]byte{}, pngMagic...), pngChunk("IHDR", ihdr)...)
}

// zlibBytes compresses b.
func zlibBytes(b []byte) []byte {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

// riff wraps chunks in a RIFF WEBP header with the right size.
func riff(chunks ...[]byte) []byte {
	body := []byte("WEBP")
	for _, c := range chunks {
		body = append(body, c...)
	}
	out := append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...)
	return append(out, body...)
}

// riffChunk is one RIFF chunk, padded to an even size.
func riffChunk(fourcc string, data []byte) []byte {
	out := append([]byte(fourcc), binary.LittleEndian.AppendUint32(nil, uint32(len(data)))...)
	out = append(out, data...)
	if len(data)%2 == 1 {
		out = append(out, 0)
	}
	return out
}

// webpChunks splits a WebP file into its chunks (after RIFF….WEBP).
func webpChunks(t testing.TB, b []byte) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for i := 12; i+8 <= len(b); {
		n := int(binary.LittleEndian.Uint32(b[i+4:]))
		out[string(b[i:i+4])] = b[i+8 : i+8+n]
		i += 8 + n + n%2
	}
	return out
}
