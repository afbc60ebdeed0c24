package media

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corner names where a stored quadrant of quadrants() ends up once displayed.
type corner int

const (
	topLeft corner = iota
	topRight
	bottomLeft
	bottomRight
)

// colourAt is the colour near the middle of a corner's quadrant.
func colourAt(img image.Image, c corner) color.RGBA {
	b := img.Bounds()
	x, y := b.Dx()/4, b.Dy()/4
	if c == topRight || c == bottomRight {
		x = b.Dx() * 3 / 4
	}
	if c == bottomLeft || c == bottomRight {
		y = b.Dy() * 3 / 4
	}
	r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}
}

// near reports colours within a JPEG's error of each other.
func near(a, b color.RGBA) bool {
	d := func(x, y uint8) int { return max(int(x)-int(y), int(y)-int(x)) }
	return d(a.R, b.R) < 40 && d(a.G, b.G) < 40 && d(a.B, b.B) < 40
}

var (
	red   = color.RGBA{255, 0, 0, 255}
	green = color.RGBA{0, 255, 0, 255}
	blue  = color.RGBA{0, 0, 255, 255}
	white = color.RGBA{255, 255, 255, 255}
)

// TestJPEGOrientation: each EXIF orientation gives the displayed size and a
// thumbnail turned the way the EXIF specification's table says: where the
// stored picture's top-left (red) and top-right (green) quadrants are seen.
func TestJPEGOrientation(t *testing.T) {
	want := map[int][2]corner{ // orientation → where red, where green
		1: {topLeft, topRight},
		2: {topRight, topLeft},       // mirrored left to right
		3: {bottomRight, bottomLeft}, // turned 180°
		4: {bottomLeft, bottomRight}, // mirrored top to bottom
		5: {topLeft, bottomLeft},     // mirrored along the top-left diagonal
		6: {topRight, bottomRight},   // turned 90° clockwise
		7: {bottomRight, topRight},   // mirrored along the other diagonal
		8: {bottomLeft, topLeft},     // turned 90° counter-clockwise
	}
	for _, size := range []struct{ w, h, side int }{{64, 32, 16}, {640, 320, 64}} { // the second one is prescaled
		stored := encodeJPEGTest(t, quadrants(size.w, size.h))
		for o := 1; o <= 8; o++ {
			order := []string{"II", "MM"}[o%2]
			data := withSegment(stored, 0xE1, exifOrientationPayload(order, uint16(o)))
			info, err := Inspect(data, DefaultLimits)
			require.NoError(t, err)
			w, h := size.w, size.h
			if o >= 5 {
				w, h = h, w
			}
			require.Equal(t, Info{Kind: JPEG, Width: w, Height: h}, info, "orientation %d", o)

			thumb, tw, th, err := Thumbnail(data, info, size.side)
			require.NoError(t, err)
			img, err := jpeg.Decode(bytes.NewReader(thumb))
			require.NoError(t, err)
			assert.Equal(t, image.Pt(tw, th), img.Bounds().Size())
			if o >= 5 {
				assert.Equal(t, image.Pt(size.side/2, size.side), img.Bounds().Size(), "orientation %d", o)
			} else {
				assert.Equal(t, image.Pt(size.side, size.side/2), img.Bounds().Size(), "orientation %d", o)
			}
			assert.True(t, near(colourAt(img, want[o][0]), red), "orientation %d: red at %v is %v", o, want[o][0], colourAt(img, want[o][0]))
			assert.True(t, near(colourAt(img, want[o][1]), green), "orientation %d: green at %v is %v", o, want[o][1], colourAt(img, want[o][1]))
		}
	}
}

func TestExifOrientation(t *testing.T) {
	for _, tc := range []struct {
		name string
		tiff []byte
		want int
	}{
		{"little-endian", exifOrientationPayload("II", 6)[6:], 6},
		{"big-endian", exifOrientationPayload("MM", 8)[6:], 8},
		{"out of range", exifOrientationPayload("II", 9)[6:], 1},
		{"zero", exifOrientationPayload("MM", 0)[6:], 1},
		{"cut inside the IFD", exifOrientationPayload("II", 6)[6:20], 1},
		{"IFD offset past the end", []byte("II*\x00\xff\xff\x00\x00"), 1},
		{"not TIFF", []byte("XX*\x00\x08\x00\x00\x00"), 1},
		{"empty", nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, exifOrientation(tc.tiff))
		})
	}
	// A tag of the wrong type (LONG) is not trusted.
	p := exifOrientationPayload("II", 6)[6:]
	binary.LittleEndian.PutUint16(p[8+2+12+2:], 4)
	assert.Equal(t, 1, exifOrientation(p))
}

// TestJPEGCutShort: a JPEG cut anywhere, a phone's or Go's, is refused, by
// the walk to its EOI marker whatever the decoder makes of it (Go 1.26's
// refuses these too, but older ones and other decoders have drawn the
// missing rows grey).
func TestJPEGCutShort(t *testing.T) {
	for _, data := range [][]byte{encodeJPEGTest(t, quadrants(256, 128)), fixture(t, "samsung-galaxy-s-orientation6.jpg")} {
		for cut := 1; cut < len(data); cut += max(1, len(data)/300) {
			_, err := Inspect(data[:cut], DefaultLimits)
			if cut < 3 {
				require.ErrorIs(t, err, ErrUnsupported, "cut at %d", cut) // not even JPEG's magic
				continue
			}
			require.ErrorIs(t, err, ErrCorrupt, "cut at %d of %d", cut, len(data))
		}
		for _, cut := range []int{len(data) - 1, len(data) - 2} { // EOI cut in half, or missing
			_, err := Inspect(data[:cut], DefaultLimits)
			require.ErrorIs(t, err, ErrCorrupt)
		}
	}
}

// TestJPEGDamagedScan: a scan whose bytes are garbage the decoder rejects.
func TestJPEGDamagedScan(t *testing.T) {
	data := encodeJPEGTest(t, quadrants(64, 64))
	l, err := walkJPEG(data, false)
	require.NoError(t, err)
	bad := bytes.Clone(data)
	// Replace the SOS header's component selectors: the scan names a component that does not exist.
	sos := bytes.Index(bad, []byte{0xFF, 0xDA})
	bad[sos+5] = 9
	_, err = Inspect(bad, DefaultLimits)
	require.ErrorIs(t, err, ErrCorrupt)
	assert.Equal(t, len(data), l.end)
}

// TestJPEGTrailers: what follows a JPEG's EOI on real phones is accepted; the
// formats a browser, a PDF reader or a Java runtime would open are refused.
func TestJPEGTrailers(t *testing.T) {
	jpg := encodeJPEGTest(t, quadrants(64, 48))
	rng := rand.New(rand.NewPCG(5, 6))
	noise := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}

	// A motion photo as Google's and Samsung's cameras write it: XMP in APP1
	// naming the video's length, the photo, then an MP4 (ftyp mp42, moov,
	// mdat of compressed video). The video here is random bytes, seeded with
	// the accidents compressed video is full of: ZIP and markup signatures
	// whose fields are not those of a real archive or a tag.
	xmp := []byte(`http://ns.adobe.com/xap/1.0/` + "\x00" + `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` +
		`<rdf:Description xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" GCamera:MotionPhoto="1" GCamera:MotionPhotoVersion="1" GCamera:MicroVideoOffset="1048632"/>` +
		`</rdf:RDF></x:xmpmeta>`)
	video := []byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom\x00\x00\x00\x10moov\x00\x00\x00\x08mvhd")
	mdat := noise(1 << 20)
	copy(mdat[1000:], "PK\x03\x04\xff\xff")        // a version no ZIP has
	copy(mdat[5000:], "PK\x05\x06\x07\x00")        // an archive on disk 7
	copy(mdat[9000:], "<svg\x8f\x02\x99")          // not followed by a tag's end
	copy(mdat[13000:], "<SCRIPT>\x00\x01\x02\x03") // not followed by text
	video = append(video, binary.BigEndian.AppendUint32(nil, uint32(8+len(mdat)))...)
	video = append(append(video, "mdat"...), mdat...)
	motion := append(withSegment(jpg, 0xE1, xmp), video...)

	// Samsung's trailer: tagged blocks of metadata and an index, SEFH … SEFT.
	seft := append([]byte("\x00\x00\x01\x0aImage_UTC_Data1700000000000"), noise(64)...)
	seft = append(seft, "SEFH\x6b\x00\x00\x00\x01\x00\x00\x00\x00\x00\x01\x0a\x2e\x00\x00\x00\x1b\x00\x00\x00"...)
	seft = append(seft, "\x44\x00\x00\x00SEFT"...)

	// A second JPEG after the first, as in MPF files (depth maps, previews).
	mpf := append(bytes.Clone(jpg), encodeJPEGTest(t, quadrants(16, 8))...)

	var archive bytes.Buffer
	zw := zip.NewWriter(&archive)
	w, err := zw.Create("a.class")
	require.NoError(t, err)
	_, _ = w.Write(noise(100))
	require.NoError(t, zw.Close())
	// Only the end record of an archive (a reader starts from it).
	end := archive.Bytes()[bytes.LastIndex(archive.Bytes(), []byte("PK\x05\x06")):]

	for _, tc := range []struct {
		name string
		data []byte
		err  error
	}{
		{"motion photo (JPEG + MP4)", motion, nil},
		{"Samsung SEFT trailer", append(bytes.Clone(jpg), seft...), nil},
		{"MPF: a second JPEG", mpf, nil},
		{"zero padding", append(bytes.Clone(jpg), make([]byte, 4096)...), nil},
		{"a line feed", append(bytes.Clone(jpg), '\n'), nil},
		{"HTML", append(bytes.Clone(jpg), "\n<!DOCTYPE html>\n<p>hi"...), ErrPolyglot},
		{"HTML in upper case", append(bytes.Clone(jpg), "<HTML><BODY>hi</BODY></HTML>"...), ErrPolyglot},
		{"an iframe", append(bytes.Clone(jpg), "<iframe src=//evil.example>"...), ErrPolyglot},
		{"SVG", append(bytes.Clone(jpg), `<svg/onload=alert(1)>`...), ErrPolyglot},
		{"script after the video", append(bytes.Clone(motion), "<script>alert(1)</script>"...), ErrPolyglot},
		{"a ZIP archive (GIFAR)", append(bytes.Clone(jpg), archive.Bytes()...), ErrPolyglot},
		{"a ZIP's end record alone", append(bytes.Clone(jpg), end...), ErrPolyglot},
		{"a ZIP after the video", append(bytes.Clone(motion), archive.Bytes()...), ErrPolyglot},
		{"a PDF", append(bytes.Clone(jpg), "%PDF-1.7\n1 0 obj\n<<>>\nendobj\n%%EOF"...), ErrPolyglot},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := Inspect(tc.data, DefaultLimits)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				assertOneSentinel(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, Info{Kind: JPEG, Width: 64, Height: 48}, info)
			thumb, w, h, err := Thumbnail(tc.data, info, 320)
			require.NoError(t, err)
			assert.Equal(t, [2]int{64, 48}, [2]int{w, h}, "never upscaled")
			_, err = jpeg.Decode(bytes.NewReader(thumb))
			require.NoError(t, err)
		})
	}
}

// TestJPEGMetadata: markup and PDFs in APPn and COM segments are refused,
// ordinary metadata (XMP, ICC profiles, comments) is not.
func TestJPEGMetadata(t *testing.T) {
	jpg := encodeJPEGTest(t, quadrants(32, 32))
	for _, tc := range []struct {
		name    string
		marker  byte
		payload string
		err     error
	}{
		{"a comment", 0xFE, "Receipt from the bakery <3", nil},
		{"XMP", 0xE1, "http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF/></x:xmpmeta>", nil},
		{"an ICC profile", 0xE2, "ICC_PROFILE\x00\x01\x01\x00\x00\x02\x30lcms\x02\x10\x00\x00mntrRGB XYZ ", nil},
		{"a comment that mentions <svg", 0xFE, "the logo is an <svg-file", nil},
		{"%PDF- in a comment", 0xFE, "%PDF-1.4", ErrPolyglot},
		{"%PDF- in a comment far into the file", 0xFE, string(make([]byte, 2000)) + "%PDF-1.4", ErrPolyglot},
		{"a script in a comment", 0xFE, "<script>fetch('/steal')</script>", ErrPolyglot},
		{"SVG in XMP", 0xE1, "http://ns.adobe.com/xap/1.0/\x00<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>", ErrPolyglot},
		{"HTML in APP15", 0xEF, "<!DOCTYPE html><html>", ErrPolyglot},
	} {
		t.Run(tc.name, func(t *testing.T) { requireInspect(t, withSegment(jpg, tc.marker, []byte(tc.payload)), tc.err) })
	}

	// Bytes between segments, which decoders skip with a warning, are searched too.
	i := bytes.Index(jpg, []byte{0xFF, 0xC0}) // before the frame header
	junk := append(append(bytes.Clone(jpg[:i]), "<script>alert(1)</script>"...), jpg[i:]...)
	_, err := Inspect(junk, DefaultLimits)
	require.ErrorIs(t, err, ErrPolyglot)
	stray := append(append(bytes.Clone(jpg[:i]), 0, 0, 0), jpg[i:]...)
	_, err = Inspect(stray, DefaultLimits)
	require.NoError(t, err, "stray bytes between segments are only a warning")
}

// TestJPEGTooManyPixels: the frame header's size is refused before anything
// is decoded, however little of the file follows it.
func TestJPEGTooManyPixels(t *testing.T) {
	jpg := encodeJPEGTest(t, quadrants(16, 16))
	sof := bytes.Index(jpg, []byte{0xFF, 0xC0})
	for _, size := range [][2]uint16{{65535, 65535}, {0, 16}, {16, 0}} {
		big := bytes.Clone(jpg[:sof+2+int(binary.BigEndian.Uint16(jpg[sof+2:]))]) // SOI … the whole SOF, then nothing
		binary.BigEndian.PutUint16(big[sof+5:], size[1])
		binary.BigEndian.PutUint16(big[sof+7:], size[0])
		_, err := Inspect(big, DefaultLimits)
		require.ErrorIs(t, err, ErrTooManyPixels, "%v", size)
	}
}
