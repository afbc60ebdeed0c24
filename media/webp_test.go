package media

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/jpeg"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vp8x is a VP8X chunk's payload: flags and the canvas size.
func vp8x(flags byte, w, h int) []byte {
	b := []byte{flags, 0, 0, 0}
	b = binary.LittleEndian.AppendUint32(b, uint32(w-1))[:7]
	return binary.LittleEndian.AppendUint32(b, uint32(h-1))[:10]
}

// animatedWebP is an animation of two frames, each the lossy rose's VP8
// chunk, laid out as libwebp's img2webp writes one: VP8X with the animation
// flag, ANIM, then an ANMF per frame.
func animatedWebP(t testing.TB) []byte {
	frame := riffChunk("VP8 ", webpChunks(t, fixture(t, "yellow_rose.lossy.webp"))["VP8 "])
	anmf := func(duration byte) []byte {
		h := make([]byte, 16) // x, y (0), width-1, height-1, duration, flags
		binary.LittleEndian.PutUint32(h[6:], 399)
		binary.LittleEndian.PutUint32(h[9:], 300)
		h[12], h[15] = duration, 0
		return riffChunk("ANMF", append(h, frame...))
	}
	return riff(
		riffChunk("VP8X", vp8x(0x02, 400, 301)),
		riffChunk("ANIM", []byte{255, 255, 255, 255, 0, 0}), // background, loop forever
		anmf(100), anmf(200),
	)
}

func TestWebPFixtures(t *testing.T) {
	for _, name := range []string{"yellow_rose.lossy.webp", "yellow_rose.lossless.webp", "yellow_rose.lossy-with-alpha.webp"} {
		t.Run(name, func(t *testing.T) {
			data := fixture(t, name)
			info, err := Inspect(data, DefaultLimits)
			require.NoError(t, err)
			require.Equal(t, Info{Kind: WebP, Width: 400, Height: 301}, info)
			thumb, w, h, err := Thumbnail(data, info, 320)
			require.NoError(t, err)
			assert.Equal(t, [2]int{320, 241}, [2]int{w, h})
			img, err := jpeg.Decode(bytes.NewReader(thumb))
			require.NoError(t, err)
			assert.Equal(t, image.Pt(320, 241), img.Bounds().Size())
			sq, err := Square(data, info, 96)
			require.NoError(t, err)
			cfg, err := jpeg.DecodeConfig(bytes.NewReader(sq))
			require.NoError(t, err)
			assert.Equal(t, [2]int{96, 96}, [2]int{cfg.Width, cfg.Height})
		})
	}
}

func TestWebPAnimated(t *testing.T) {
	data := animatedWebP(t)
	info, err := Inspect(data, DefaultLimits)
	require.NoError(t, err)
	assert.Equal(t, Info{Kind: WebP, Width: 400, Height: 301}, info)
	_, _, _, err = Thumbnail(data, info, 320)
	require.ErrorIs(t, err, ErrNoThumbnail)
	_, err = Square(data, info, 64)
	require.ErrorIs(t, err, ErrNoThumbnail)

	// Its frames' chunks are checked for their sizes: one cut short is refused.
	cut := bytes.Clone(data[:len(data)-100])
	binary.LittleEndian.PutUint32(cut[4:], uint32(len(cut)-8))
	_, err = Inspect(cut, DefaultLimits)
	require.ErrorIs(t, err, ErrCorrupt)
}

// TestWebPStructure: the RIFF size must fit the file, the chunks the RIFF,
// the first chunk must be an image, the pixels must decode.
func TestWebPStructure(t *testing.T) {
	lossy := fixture(t, "yellow_rose.lossy.webp")
	vp8 := webpChunks(t, lossy)["VP8 "]
	withVP8X := func(extra ...[]byte) []byte {
		return riff(append([][]byte{riffChunk("VP8X", vp8x(0x08|0x04, 400, 301)), riffChunk("VP8 ", vp8)}, extra...)...)
	}
	for _, tc := range []struct {
		name string
		data []byte
		err  error
	}{
		{"lossy", lossy, nil},
		{"VP8X with EXIF and XMP", withVP8X(riffChunk("EXIF", exifOrientationPayload("II", 1)[6:]), riffChunk("XMP ", []byte("<x:xmpmeta/>"))), nil},
		{"zeros after the RIFF", append(bytes.Clone(lossy), make([]byte, 10)...), nil},
		{"RIFF size past the end", lossy[:len(lossy)-1], ErrCorrupt},
		{"RIFF size too small", []byte("RIFF\x02\x00\x00\x00WEBP"), ErrCorrupt},
		{"a chunk past the RIFF", riff(riffChunk("VP8 ", vp8)[:100]), ErrCorrupt},
		{"VP8 data cut, sizes consistent", riff(riffChunk("VP8 ", vp8[:len(vp8)/2])), ErrCorrupt},
		{"EXIF first", riff(riffChunk("EXIF", []byte("II*\x00")), riffChunk("VP8 ", vp8)), ErrCorrupt},
		{"no image", riff(riffChunk("VP8X", vp8x(0, 400, 301))), ErrCorrupt},
		{"canvas of 16384 × 16384", riff(riffChunk("VP8X", vp8x(0, 16384, 16384)), riffChunk("VP8 ", vp8)), ErrTooManyPixels},
		{"<script> in EXIF", withVP8X(riffChunk("EXIF", []byte("II*\x00<script>alert(1)</script>"))), ErrPolyglot},
		{"SVG in XMP", withVP8X(riffChunk("XMP ", []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="x()">`))), ErrPolyglot},
		{"HTML in an unknown chunk", withVP8X(riffChunk("ABCD", []byte("<!DOCTYPE html>\n<title>x</title>"))), ErrPolyglot},
		{"HTML after the RIFF", append(bytes.Clone(lossy), "<html><body>"...), ErrPolyglot},
		{"a PDF after the RIFF", append(bytes.Clone(lossy), "%PDF-1.4 trailer"...), ErrPolyglot},
	} {
		t.Run(tc.name, func(t *testing.T) { requireInspect(t, tc.data, tc.err) })
	}
}
