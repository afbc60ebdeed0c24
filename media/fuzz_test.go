package media

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzInspect: no input makes Inspect (or Thumbnail and Square after it)
// panic or hang; what it accepts is described consistently, what it refuses
// is refused with one sentinel; an image it accepts, Thumbnail can make a
// thumbnail of. The seeds are the fixtures and a file of each layout the
// tests build; testdata/fuzz/FuzzInspect keeps what earlier runs found.
func FuzzInspect(f *testing.F) {
	files, err := filepath.Glob("testdata/*")
	require.NoError(f, err)
	for _, name := range files {
		if filepath.Ext(name) == ".md" {
			continue
		}
		b, err := os.ReadFile(name)
		require.NoError(f, err)
		f.Add(b)
	}
	jpg := encodeJPEGTest(f, quadrants(24, 16))
	png := encodePNGTest(f, quadrants(16, 24))
	f.Add(withSegment(jpg, 0xE1, exifOrientationPayload("MM", 6)))
	f.Add(append(jpg, "\x00\x00\x00\x18ftypmp42"...))
	f.Add(withPNGChunk(png, pngChunk("zTXt", append([]byte("k\x00\x00"), zlibBytes([]byte("text"))...))))
	f.Add(animatedWebP(f))
	f.Add(photoHEIF(1, 6, 5).build())
	f.Add(testPDF{pages: 3}.bytes())
	f.Add(testPDF{pages: 3, xrefStream: true}.bytes())
	f.Add(appendPage(testPDF{pages: 2}.bytes(), 2))

	lim := Limits{MaxPixels: 1 << 20} // keeps each run quick
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := Inspect(data, lim)
		if err != nil {
			assert.Equal(t, Info{}, info)
			n := 0
			for _, s := range []error{ErrEmpty, ErrUnsupported, ErrTooManyPixels, ErrCorrupt, ErrPolyglot} {
				if errors.Is(err, s) {
					n++
				}
			}
			require.Equal(t, 1, n, "%v", err)
			return
		}
		kind, err := Sniff(data[:min(len(data), SniffLen)])
		require.NoError(t, err)
		require.Equal(t, kind, info.Kind)
		if info.Kind == PDF {
			require.GreaterOrEqual(t, info.Pages, 1)
			require.Zero(t, info.Width+info.Height)
			return
		}
		require.Zero(t, info.Pages)
		require.Positive(t, info.Width)
		require.Positive(t, info.Height)
		require.LessOrEqual(t, int64(info.Width)*int64(info.Height), lim.MaxPixels)

		thumb, w, h, err := Thumbnail(data, info, 32)
		if info.Kind == HEIC || errors.Is(err, ErrNoThumbnail) {
			require.ErrorIs(t, err, ErrNoThumbnail)
			return
		}
		require.NoError(t, err, "Inspect accepted what Thumbnail cannot decode")
		require.LessOrEqual(t, max(w, h), 32)
		again, err := Inspect(thumb, lim)
		require.NoError(t, err)
		require.Equal(t, Info{Kind: JPEG, Width: w, Height: h}, again)
		_, err = Square(data, info, 8)
		require.NoError(t, err)
	})
}
