package media

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decodeJPEG decodes what Thumbnail or Square made with Go's own decoder, an
// independent reader of what our encoder wrote.
func decodeJPEG(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	return img
}

// TestThumbnailOfPhones: a real phone photo with EXIF orientation 6 and a
// photo of a phone's shape (4:3, 2 MP: under the race detector a 12 MP one
// takes half a minute; BenchmarkThumbnailJPEG12MP has it, and TestFit its
// 320×240); the thumbnail's longest side is 320, turned upright.
func TestThumbnailOfPhones(t *testing.T) {
	big := photo(1600, 1200)
	for _, tc := range []struct {
		name           string
		data           []byte
		info           Info
		thumbW, thumbH int
	}{
		{"Samsung Galaxy S, 640×480 stored, orientation 6", fixture(t, "samsung-galaxy-s-orientation6.jpg"), Info{Kind: JPEG, Width: 480, Height: 640}, 240, 320},
		{"1600×1200, orientation 6", withSegment(big, 0xE1, exifOrientationPayload("MM", 6)), Info{Kind: JPEG, Width: 1200, Height: 1600}, 240, 320},
		{"1600×1200, no orientation", big, Info{Kind: JPEG, Width: 1600, Height: 1200}, 320, 240},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			info, err := Inspect(tc.data, DefaultLimits)
			require.NoError(t, err)
			require.Equal(t, tc.info, info)

			thumb, w, h, err := Thumbnail(tc.data, info, 320)
			require.NoError(t, err)
			assert.Equal(t, [2]int{tc.thumbW, tc.thumbH}, [2]int{w, h})
			assert.Equal(t, image.Pt(w, h), decodeJPEG(t, thumb).Bounds().Size())
			assert.NotContains(t, string(thumb[:64]), "Exif", "no metadata is carried over")

			sq, err := Square(tc.data, info, 256)
			require.NoError(t, err)
			assert.Equal(t, image.Pt(256, 256), decodeJPEG(t, sq).Bounds().Size())

			// What Thumbnail made is itself an image Inspect accepts.
			again, err := Inspect(thumb, DefaultLimits)
			require.NoError(t, err)
			assert.Equal(t, Info{Kind: JPEG, Width: w, Height: h}, again)
		})
	}
}

// TestSquare: the centred square, scaled to exactly side×side (up or down),
// turned upright.
func TestSquare(t *testing.T) {
	wide := encodeJPEGTest(t, quadrants(200, 100)) // the square is x 50–150: red, green / blue, white
	tall := encodePNGTest(t, quadrants(30, 90))
	for _, tc := range []struct {
		name       string
		data       []byte
		side       int
		tl, tr, bl color.RGBA
	}{
		{"wide, down", wide, 50, red, green, blue},
		{"wide, up", wide, 300, red, green, blue},
		{"wide, turned 90° clockwise", withSegment(wide, 0xE1, exifOrientationPayload("II", 6)), 64, blue, red, white},
		{"tall PNG, down", tall, 20, red, green, blue},
		{"tall PNG, same size", tall, 30, red, green, blue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := Inspect(tc.data, DefaultLimits)
			require.NoError(t, err)
			sq, err := Square(tc.data, info, tc.side)
			require.NoError(t, err)
			img := decodeJPEG(t, sq)
			require.Equal(t, image.Pt(tc.side, tc.side), img.Bounds().Size())
			assert.True(t, near(colourAt(img, topLeft), tc.tl), "top left %v", colourAt(img, topLeft))
			assert.True(t, near(colourAt(img, topRight), tc.tr), "top right %v", colourAt(img, topRight))
			assert.True(t, near(colourAt(img, bottomLeft), tc.bl), "bottom left %v", colourAt(img, bottomLeft))
		})
	}
}

// TestThumbnailMisuse: an Info that is not Inspect's for these bytes, or a
// side that is not positive, is refused before anything is decoded.
func TestThumbnailMisuse(t *testing.T) {
	jpg := encodeJPEGTest(t, quadrants(40, 20))
	info, err := Inspect(jpg, DefaultLimits)
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		info Info
		side int
	}{
		{"zero Info", Info{}, 10},
		{"another kind", Info{Kind: PNG, Width: 40, Height: 20}, 10},
		{"another size", Info{Kind: JPEG, Width: 40000, Height: 20000}, 10},
		{"a side of 0", info, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, err := Thumbnail(jpg, tc.info, tc.side)
			require.Error(t, err)
			_, err = Square(jpg, tc.info, tc.side)
			require.Error(t, err)
		})
	}
	_, _, _, err = Thumbnail(jpg, Info{Kind: HEIC, Width: 40, Height: 20}, 10)
	require.ErrorIs(t, err, ErrNoThumbnail)
	_, _, _, err = Thumbnail(jpg, Info{Kind: PDF, Pages: 1}, 10)
	require.ErrorIs(t, err, ErrNoThumbnail)
}

func TestFit(t *testing.T) {
	for _, tc := range []struct{ w, h, side, wantW, wantH int }{
		{4032, 3024, 320, 320, 240},
		{3024, 4032, 320, 240, 320},
		{320, 240, 320, 320, 240},
		{100, 50, 320, 100, 50},    // never upscaled
		{10000, 1, 320, 320, 1},    // at least a pixel
		{1, 10000, 320, 1, 320},    //
		{1000, 999, 320, 320, 320}, // 319.68 rounds to 320
		{400, 301, 320, 320, 241},
	} {
		w, h := fit(tc.w, tc.h, tc.side)
		assert.Equal(t, [2]int{tc.wantW, tc.wantH}, [2]int{w, h}, "%d×%d in %d", tc.w, tc.h, tc.side)
	}
}
