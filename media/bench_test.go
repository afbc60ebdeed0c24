package media

import (
	"bytes"
	"image"
	"image/jpeg"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// photo is a w×h JPEG whose pixels are gradients with noise, so that it
// compresses like a photo (a 12 MP one to about 4 MB at quality 90) and not
// like a flat colour.
func photo(w, h int) []byte {
	img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	for y := range h {
		for x := range w {
			noise := (x*7 + y*13 ^ x*y>>5) % 24
			img.Y[y*img.YStride+x] = uint8((x*255/w+y*255/h)/2 + noise)
		}
	}
	for y := range h / 2 {
		for x := range w / 2 {
			img.Cb[y*img.CStride+x] = uint8(96 + x*64/(w/2) + (x^y)%8)
			img.Cr[y*img.CStride+x] = uint8(160 - y*64/(h/2) + (x*y)%8)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// photo12MP is a 4032×3024 JPEG, a 12 MP phone photo's size, with EXIF
// orientation 6, as a phone held upright saves it.
var photo12MP = sync.OnceValue(func() []byte {
	return withSegment(photo(4032, 3024), 0xE1, exifOrientationPayload("MM", 6))
})

// pdf10MB is a 10 MB PDF of 200 pages, each with an incompressible image, in
// the layout of PDF 1.5 (object streams, an xref stream).
var pdf10MB = sync.OnceValue(func() []byte {
	return testPDF{pages: 200, xrefStream: true, imageBytes: 50_000}.bytes()
})

// BenchmarkInspectJPEG12MP is the check of a 12 MP photo: a full decode.
func BenchmarkInspectJPEG12MP(b *testing.B) {
	data := photo12MP()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		_, err := Inspect(data, DefaultLimits)
		require.NoError(b, err)
	}
}

// BenchmarkThumbnailJPEG12MP is its 320-pixel thumbnail: a second decode,
// the scaling and the encoding.
func BenchmarkThumbnailJPEG12MP(b *testing.B) {
	data := photo12MP()
	info, err := Inspect(data, DefaultLimits)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		_, _, _, err := Thumbnail(data, info, 320)
		require.NoError(b, err)
	}
}

// BenchmarkInspectPDF10MB counts the pages of a 10 MB PDF.
func BenchmarkInspectPDF10MB(b *testing.B) {
	data := pdf10MB()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		_, err := Inspect(data, DefaultLimits)
		require.NoError(b, err)
	}
}

// BenchmarkInspectPDFManyObjects counts the pages of a PDF of 9,000 pages
// (18,000 objects, near maxPDFObjects): what an upload made to cost the most
// within the bounds costs.
func BenchmarkInspectPDFManyObjects(b *testing.B) {
	data := testPDF{pages: 9000}.bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		_, err := Inspect(data, DefaultLimits)
		require.NoError(b, err)
	}
}
