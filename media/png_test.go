package media

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/color/palette"
	"image/jpeg"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPNGHugeHeaderAllocatesNothing: a 50,000 × 50,000 PNG header (a valid
// IHDR, checksum and all) is refused from the header: 7.5 GB of pixels are
// never allocated, nor anything near it.
func TestPNGHugeHeaderAllocatesNothing(t *testing.T) {
	data := append(pngHeader(50_000, 50_000), pngChunk("IDAT", zlibBytes(make([]byte, 1024)))...)
	data = append(data, pngChunk("IEND", nil)...)
	_, err := Inspect(data, DefaultLimits)
	require.ErrorIs(t, err, ErrTooManyPixels)
	assert.EqualError(t, err, "the image is too large: 50000×50000 is 2,500,000,000 pixels, more than the 50,000,000 allowed")

	const runs = 100
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		_, _ = Inspect(data, DefaultLimits)
	}
	runtime.ReadMemStats(&after)
	perRun := (after.TotalAlloc - before.TotalAlloc) / runs
	assert.Less(t, perRun, uint64(4096), "bytes allocated by one Inspect, against 7.5e9 for the image")
}

// TestPNGStructure: the chunks must be whole, named with letters, checksummed
// and closed by IEND; the pixels must decode.
func TestPNGStructure(t *testing.T) {
	good := encodePNGTest(t, quadrants(40, 30))
	idat := bytes.Index(good, []byte("IDAT")) - 4
	idatLen := int(binary.BigEndian.Uint32(good[idat:]))
	withChecksum := func(b []byte, chunk int) []byte { // recompute a chunk's checksum after editing it
		n := int(binary.BigEndian.Uint32(b[chunk:]))
		binary.BigEndian.PutUint32(b[chunk+8+n:], crc32.ChecksumIEEE(b[chunk+4:chunk+8+n]))
		return b
	}
	mutate := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	for _, tc := range []struct {
		name string
		data []byte
		err  error
	}{
		{"whole", good, nil},
		{"IDAT's checksum wrong", mutate(func(b []byte) []byte { b[idat+8+idatLen] ^= 1; return b }), ErrCorrupt},
		{"IDAT's data changed, checksum wrong", mutate(func(b []byte) []byte { b[idat+10] ^= 0x55; return b }), ErrCorrupt},
		{"IDAT's data garbage, checksum right", mutate(func(b []byte) []byte {
			for i := idat + 8; i < idat+8+idatLen; i++ {
				b[i] = byte(i * 7)
			}
			return withChecksum(b, idat)
		}), ErrCorrupt},
		{"cut in IDAT", good[:idat+8+idatLen/2], ErrCorrupt},
		{"cut before IEND", good[:len(good)-12], ErrCorrupt},
		{"IEND's checksum cut", good[:len(good)-2], ErrCorrupt},
		{"a chunk named with digits", withPNGChunk(good, pngChunk("a1b2", []byte("x"))), ErrCorrupt},
		{"a chunk longer than the file", append(bytes.Clone(good[:idat]), 0x00, 0xFF, 0xFF, 0xFF, 'I', 'D', 'A', 'T'), ErrCorrupt},
		{"IHDR not first", append(append(bytes.Clone(pngMagic), pngChunk("tEXt", []byte("a\x00b"))...), good[8:]...), ErrCorrupt},
		{"zeros after IEND", append(bytes.Clone(good), make([]byte, 100)...), nil},
	} {
		t.Run(tc.name, func(t *testing.T) { requireInspect(t, tc.data, tc.err) })
	}
}

// TestPNGText: markup and PDFs in text chunks, plain or compressed, in
// unknown chunks and after IEND are refused; ordinary text is not.
func TestPNGText(t *testing.T) {
	good := encodePNGTest(t, quadrants(16, 16))
	itxt := func(compressed bool, text string) []byte {
		b := []byte("Description\x00")
		if compressed {
			return pngChunk("iTXt", append(append(b, 1, 0, 'e', 'n', 0, 0), zlibBytes([]byte(text))...))
		}
		return pngChunk("iTXt", append(append(b, 0, 0, 'e', 'n', 0, 0), text...))
	}
	xmp := `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description xmp:CreatorTool="Photoshop"/></rdf:RDF></x:xmpmeta>`
	bomb := zlibBytes([]byte(strings.Repeat("a", maxPNGText+1)))
	for _, tc := range []struct {
		name  string
		chunk []byte
		after string
		err   error
	}{
		{"tEXt", pngChunk("tEXt", []byte("Software\x00Go image/png")), "", nil},
		{"iTXt XMP", itxt(false, xmp), "", nil},
		{"compressed iTXt XMP", itxt(true, xmp), "", nil},
		{"zTXt", pngChunk("zTXt", append([]byte("Comment\x00\x00"), zlibBytes([]byte("paid in cash"))...)), "", nil},
		{"zTXt that does not inflate", pngChunk("zTXt", []byte("Comment\x00\x00not zlib at all")), "", nil},
		{"<script> in tEXt", pngChunk("tEXt", []byte("Comment\x00<script>alert(1)</script>")), "", ErrPolyglot},
		{"<svg in compressed zTXt", pngChunk("zTXt", append([]byte("Comment\x00\x00"), zlibBytes([]byte(`<svg onload="alert(1)">`))...)), "", ErrPolyglot},
		{"<html in compressed iTXt", itxt(true, "<html><body>hello</body></html>"), "", ErrPolyglot},
		{"<iframe in plain iTXt", itxt(false, "<iframe src='https://evil.example'>"), "", ErrPolyglot},
		{"%PDF- in tEXt", pngChunk("tEXt", []byte("Comment\x00%PDF-1.7")), "", ErrPolyglot},
		{"HTML in a private chunk", pngChunk("prVt", []byte("<!doctype html><p>")), "", ErrPolyglot},
		{"a text bomb", pngChunk("zTXt", append([]byte("Comment\x00\x00"), bomb...)), "", ErrCorrupt},
		{"HTML after IEND", nil, "<html><script>alert(1)</script></html>", ErrPolyglot},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := good
			if tc.chunk != nil {
				data = withPNGChunk(good, tc.chunk)
			}
			requireInspect(t, append(bytes.Clone(data), tc.after...), tc.err)
		})
	}
}

// TestPNGThumbnails: every kind of PNG Go decodes makes a thumbnail, small
// or prescaled, and transparency turns white, not black.
func TestPNGThumbnails(t *testing.T) {
	transparent := func(w, h int) image.Image { return image.NewNRGBA(image.Rect(0, 0, w, h)) } // transparent black
	paletted := image.NewPaletted(image.Rect(0, 0, 400, 400), palette.Plan9)
	for i := range paletted.Pix {
		paletted.Pix[i] = uint8(i % 256)
	}
	gray16 := image.NewGray16(image.Rect(0, 0, 30, 60))
	for i := range gray16.Pix {
		gray16.Pix[i] = uint8(i)
	}
	halfClear := image.NewNRGBA(image.Rect(0, 0, 600, 300)) // left half clear, right half opaque red
	for y := range 300 {
		for x := 300; x < 600; x++ {
			halfClear.SetNRGBA(x, y, color.NRGBA{255, 0, 0, 255})
		}
	}
	for _, tc := range []struct {
		name    string
		img     image.Image
		corners map[corner]color.RGBA // colours the thumbnail must have
	}{
		{"transparent", transparent(50, 20), map[corner]color.RGBA{topLeft: white, bottomRight: white}},
		{"transparent, prescaled", transparent(500, 200), map[corner]color.RGBA{topLeft: white, bottomRight: white}},
		{"half transparent, prescaled", halfClear, map[corner]color.RGBA{topLeft: white, topRight: red, bottomLeft: white, bottomRight: red}},
		{"paletted, prescaled", paletted, nil},
		{"16-bit grey", gray16, nil},
		{"RGBA", quadrants(64, 64), map[corner]color.RGBA{topLeft: red, topRight: green, bottomLeft: blue, bottomRight: white}},
		{"RGBA, prescaled", quadrants(640, 320), map[corner]color.RGBA{topLeft: red, topRight: green, bottomLeft: blue, bottomRight: white}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := encodePNGTest(t, tc.img)
			info, err := Inspect(data, DefaultLimits)
			require.NoError(t, err)
			b := tc.img.Bounds()
			require.Equal(t, Info{Kind: PNG, Width: b.Dx(), Height: b.Dy()}, info)
			thumb, w, h, err := Thumbnail(data, info, 25)
			require.NoError(t, err)
			img, err := jpeg.Decode(bytes.NewReader(thumb))
			require.NoError(t, err)
			assert.Equal(t, image.Pt(w, h), img.Bounds().Size())
			assert.Equal(t, 25, max(w, h))
			for c, want := range tc.corners {
				assert.True(t, near(colourAt(img, c), want), "%v is %v, not %v", c, colourAt(img, c), want)
			}
		})
	}
}
