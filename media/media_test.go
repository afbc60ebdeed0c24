package media

import (
	"archive/zip"
	"bytes"
	"errors"
	"image"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKindOf(t *testing.T) {
	for _, tc := range []struct {
		contentType string
		want        Kind
		ok          bool
	}{
		{"image/jpeg", JPEG, true},
		{"IMAGE/JPEG", JPEG, true},
		{"image/jpg", JPEG, true},
		{"image/png", PNG, true},
		{"image/webp", WebP, true},
		{"image/heic", HEIC, true},
		{"image/heif", HEIC, true},
		{"Image/HEIF", HEIC, true},
		{"application/pdf", PDF, true},
		{"application/pdf; charset=binary", PDF, true},
		{" image/png ; name=\"receipt.png\"", PNG, true},
		{"image/png; broken=", PNG, true}, // a malformed parameter: the type still counts
		{"image/svg+xml", "", false},
		{"image/gif", "", false},
		{"text/html", "", false},
		{"text/html; charset=utf-8", "", false},
		{"application/octet-stream", "", false},
		{"image/avif", "", false},
		{"image/heic-sequence", "", false},
		{"", "", false},
		{"jpeg", "", false},
	} {
		t.Run(tc.contentType, func(t *testing.T) {
			got, ok := KindOf(tc.contentType)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestSniff(t *testing.T) {
	ftyp := func(major string, compatible ...string) []byte {
		b := []byte{0, 0, 0, byte(16 + 4*len(compatible))}
		b = append(b, "ftyp"+major+"\x00\x00\x00\x00"...)
		for _, c := range compatible {
			b = append(b, c...)
		}
		return append(b, "\x00\x00\x00\x08free"...)
	}
	for _, tc := range []struct {
		name string
		head []byte
		want Kind
		err  error
	}{
		{"JPEG", []byte{0xFF, 0xD8, 0xFF, 0xE0}, JPEG, nil},
		{"JPEG, three bytes", []byte{0xFF, 0xD8, 0xFF}, JPEG, nil},
		{"PNG", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"), PNG, nil},
		{"WebP", []byte("RIFF\x10\x00\x00\x00WEBPVP8 "), WebP, nil},
		{"RIFF but WAVE", []byte("RIFF\x10\x00\x00\x00WAVEfmt "), "", ErrUnsupported},
		{"PDF", []byte("%PDF-1.7\n"), PDF, nil},
		{"PDF after a byte", []byte(" %PDF-1.7\n"), "", ErrUnsupported},
		{"HEIC, major brand heic", ftyp("heic", "mif1", "heic"), HEIC, nil},
		{"HEIC, major brand mif1", ftyp("mif1", "heic"), HEIC, nil},
		{"HEIC, heix", ftyp("heix", "mif1"), HEIC, nil},
		{"HEIC, hevc sequence", ftyp("msf1", "hevc"), HEIC, nil},
		{"HEIF, mif1 only", ftyp("mif1"), HEIC, nil},
		{"HEIF, msf1 and others", ftyp("msf1", "iso8"), HEIC, nil},
		{"HEIC brand late in the list", ftyp("isom", "iso2", "mp41", "mp42", "iso8", "heim"), HEIC, nil},
		{"AVIF", ftyp("avif", "mif1", "miaf"), "", ErrUnsupported},
		{"AVIF sequence", ftyp("avis", "msf1"), "", ErrUnsupported},
		{"MP4 video", ftyp("isom", "iso2", "avc1", "mp41"), "", ErrUnsupported},
		{"QuickTime", ftyp("qt  ", "qt  "), "", ErrUnsupported},
		{"ftyp of a wrong size", []byte("\x00\x00\x00\x0bftypheic\x00\x00\x00\x00"), "", ErrUnsupported},
		{"GIF", []byte("GIF89a\x01\x00\x01\x00"), "", ErrUnsupported},
		{"SVG", []byte(`<svg xmlns="http://www.w3.org/2000/svg">`), "", ErrUnsupported},
		{"SVG with an XML declaration", []byte(`<?xml version="1.0"?><svg>`), "", ErrUnsupported},
		{"HTML", []byte("<!DOCTYPE html><html><body>"), "", ErrUnsupported},
		{"ZIP", []byte("PK\x03\x04\x14\x00\x00\x00"), "", ErrUnsupported},
		{"text", []byte("Total: 42.00 EUR\n"), "", ErrUnsupported},
		{"TIFF", []byte("II*\x00\x08\x00\x00\x00"), "", ErrUnsupported},
		{"two bytes of JPEG", []byte{0xFF, 0xD8}, "", ErrUnsupported},
		{"empty", nil, "", ErrEmpty},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Sniff(tc.head)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestSniffNeedsOnlySniffLen: Inspect, which reads whole files, and Sniff
// of their first SniffLen bytes agree on every fixture.
func TestSniffNeedsOnlySniffLen(t *testing.T) {
	for name, want := range map[string]Kind{
		"samsung-galaxy-s-orientation6.jpg": JPEG, "iphone7-IMG_7702_small.heic": HEIC,
		"libheif-grid-alpha.heic": HEIC, "yellow_rose.lossy.webp": WebP, "pdflatex-4-pages.pdf": PDF,
	} {
		data := fixture(t, name)
		got, err := Sniff(data[:SniffLen])
		require.NoError(t, err, name)
		assert.Equal(t, want, got, name)
	}
}

// TestInspectRefuses is the table of what Inspect refuses, one case a rule,
// built from real and generated files; the formats' own tests go further.
func TestInspectRefuses(t *testing.T) {
	jpg := encodeJPEGTest(t, quadrants(64, 48))
	pngData := encodePNGTest(t, quadrants(64, 48))
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	f, err := zw.Create("META-INF/MANIFEST.MF")
	require.NoError(t, err)
	_, _ = f.Write([]byte("Manifest-Version: 1.0\n"))
	require.NoError(t, zw.Close())
	badCRC := bytes.Clone(pngData)
	badCRC[len(pngMagic)+8+13] ^= 0xFF // IHDR's checksum

	for _, tc := range []struct {
		name string
		data []byte
		err  error
	}{
		{"empty", nil, ErrEmpty},
		{"SVG", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), ErrUnsupported},
		{"SVG with an XML declaration", []byte("<?xml version=\"1.0\"?>\n<svg/>"), ErrUnsupported},
		{"HTML", []byte("<!doctype html><title>receipt</title>"), ErrUnsupported},
		{"GIF", []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"), ErrUnsupported},
		{"ZIP", zipped.Bytes(), ErrUnsupported},
		{"plain text", []byte("Coffee 3.50\nTotal 3.50\n"), ErrUnsupported},
		{"AVIF", fixture(t, "oiio-test-10bit.avif"), ErrUnsupported},
		{"PNG 50,000 × 50,000", pngHeader(50_000, 50_000), ErrTooManyPixels},
		{"PNG of width 0", pngHeader(0, 10), ErrTooManyPixels},
		{"JPEG cut in its scan data", jpg[:len(jpg)*2/3], ErrCorrupt},
		{"JPEG without EOI", jpg[:len(jpg)-2], ErrCorrupt},
		{"PNG with a wrong checksum", badCRC, ErrCorrupt},
		{"PNG cut in IDAT", pngData[:len(pngData)-20], ErrCorrupt},
		{"WebP cut short", fixture(t, "yellow_rose.lossy.webp")[:5000], ErrCorrupt},
		{"HEIC cut short", fixture(t, "iphone7-IMG_7702_small.heic")[:20000], ErrCorrupt},
		{"PDF without %%EOF", []byte("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"), ErrCorrupt},
		{"PDF password", fixture(t, "libreoffice-password.pdf"), ErrCorrupt},
		{"JPEG + HTML", append(bytes.Clone(jpg), "<html><body><script>alert(1)</script>"...), ErrPolyglot},
		{"JPEG + ZIP (GIFAR)", append(bytes.Clone(jpg), zipped.Bytes()...), ErrPolyglot},
		{"JPEG + PDF", append(bytes.Clone(jpg), "%PDF-1.4\n%%EOF\n"...), ErrPolyglot},
		{"JPEG with %PDF- in a COM segment", withSegment(jpg, 0xFE, []byte("%PDF-1.4 1 0 obj")), ErrPolyglot},
		{"PNG with <script> in tEXt", withPNGChunk(pngData, pngChunk("tEXt", []byte("Comment\x00<script>alert(document.cookie)</script>"))), ErrPolyglot},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := Inspect(tc.data, DefaultLimits)
			require.ErrorIs(t, err, tc.err)
			assert.Equal(t, Info{}, info)
			assertOneSentinel(t, err)
		})
	}
}

// requireInspect runs Inspect and requires no error (err nil) or that error,
// wrapped alone.
func requireInspect(t *testing.T, data []byte, err error) {
	t.Helper()
	_, got := Inspect(data, DefaultLimits)
	if err == nil {
		require.NoError(t, got)
		return
	}
	require.ErrorIs(t, got, err)
	assertOneSentinel(t, got)
}

// assertOneSentinel checks that an error wraps exactly one of the sentinels
// and reads as a sentence: the sentinel's text, then a detail.
func assertOneSentinel(t *testing.T, err error) {
	t.Helper()
	n := 0
	for _, s := range []error{ErrEmpty, ErrUnsupported, ErrTooManyPixels, ErrCorrupt, ErrPolyglot, ErrNoThumbnail} {
		if errors.Is(err, s) {
			n++
			assert.True(t, strings.HasPrefix(err.Error(), s.Error()), "%q", err)
		}
	}
	assert.Equal(t, 1, n, "%v wraps %d sentinels", err, n)
}

// TestInspectLimits: the limit is Limits.MaxPixels, inclusive; zero means the default.
func TestInspectLimits(t *testing.T) {
	data := encodePNGTest(t, image.NewGray(image.Rect(0, 0, 100, 50)))
	_, err := Inspect(data, Limits{MaxPixels: 5000})
	require.NoError(t, err)
	_, err = Inspect(data, Limits{MaxPixels: 4999})
	require.ErrorIs(t, err, ErrTooManyPixels)
	assert.EqualError(t, err, "the image is too large: 100×50 is 5,000 pixels, more than the 4,999 allowed")
	_, err = Inspect(data, Limits{})
	require.NoError(t, err)
	_, err = Inspect(pngHeader(7072, 7071), Limits{})
	assert.EqualError(t, err, "the image is too large: 7072×7071 is 50,006,112 pixels, more than the 50,000,000 allowed")
}
