// Package media tells what an uploaded file really is: its type by magic
// bytes, its size in pixels or pages, and its thumbnails.
//
// Receipts and avatars reach the server as bytes a client chose, so nothing
// a client says about them is believed: Inspect reads the whole file, names
// its type from its first bytes (never from a Content-Type or a file name),
// checks that it is whole and decodes it, and refuses files that carry a
// second format a browser or a PDF reader would act on (polyglots).
// Thumbnail and Square then re-encode images as plain JPEGs, so what the
// server serves back is always something it wrote itself.
//
// Everything is pure code over a byte slice held in memory (RECEIPT_MAX_BYTES
// bounds it): no I/O, no global state that changes, safe for concurrent use.
package media

import (
	"errors"
	"fmt"
	"mime"
	"strconv"
	"strings"
)

// Kind is a file type the server accepts, spelled as its MIME type.
type Kind string

// The kinds of file accepted as receipts and avatars.
const (
	// JPEG is a JPEG (JFIF or Exif) image.
	JPEG Kind = "image/jpeg"
	// PNG is a PNG image (an animated PNG counts by its first frame).
	PNG Kind = "image/png"
	// WebP is a WebP image, lossy or lossless, still or animated.
	WebP Kind = "image/webp"
	// HEIC is a HEIF image coded with HEVC, as iPhones and many Android phones take them.
	HEIC Kind = "image/heic"
	// PDF is a PDF document.
	PDF Kind = "application/pdf"
)

// Extension is how a file of the kind's name ends: ".jpg", ".png", ".webp",
// ".heic" or ".pdf" ("" for any other).
func (k Kind) Extension() string {
	switch k {
	case JPEG:
		return ".jpg"
	case PNG:
		return ".png"
	case WebP:
		return ".webp"
	case HEIC:
		return ".heic"
	case PDF:
		return ".pdf"
	}
	return ""
}

// The sentinel texts are short fragments that read as a sentence a front end
// can show as-is; Inspect wraps them with a detail ("the file is damaged or
// cannot be read: the JPEG image is cut short"), and callers branch on them with errors.Is.
var (
	// ErrEmpty reports a file with no bytes at all.
	ErrEmpty = errors.New("the file is empty")
	// ErrUnsupported reports a file that is none of the accepted kinds.
	ErrUnsupported = errors.New("the file is not a JPEG, PNG, WebP or HEIC image or a PDF")
	// ErrTooManyPixels reports an image with more pixels than Limits.MaxPixels, or none.
	ErrTooManyPixels = errors.New("the image is too large")
	// ErrCorrupt reports a file of an accepted kind that is cut short, damaged or
	// inconsistent, or that cannot be read within bounds (a PDF with a password,
	// or with more objects than any document needs).
	ErrCorrupt = errors.New("the file is damaged or cannot be read")
	// ErrPolyglot reports an image that also carries a document, page or archive.
	ErrPolyglot = errors.New("the file hides another kind of file")
	// ErrNoThumbnail reports a file no thumbnail can be made of here (HEIC, PDF, animated WebP).
	ErrNoThumbnail = errors.New("no thumbnail can be made of this file")
)

// errorf wraps a sentinel with a detail a user can read.
func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
}

// KindOf maps a Content-Type a client announced to a Kind: case does not
// matter, parameters ("; charset=…") are ignored, "image/heif" is HEIC and
// "image/jpg" (a common misspelling) is JPEG. ok is false for any other type
// (image/svg+xml, image/gif, text/html, …). What a file really is comes from
// Sniff and Inspect alone; KindOf only reads what the client claims.
func KindOf(contentType string) (Kind, bool) {
	t, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		// ParseMediaType refuses malformed parameters; the type before them still counts.
		t, _, _ = strings.Cut(contentType, ";")
		t = strings.ToLower(strings.TrimSpace(t))
	}
	switch t {
	case "image/jpeg", "image/jpg":
		return JPEG, true
	case "image/png":
		return PNG, true
	case "image/webp":
		return WebP, true
	case "image/heic", "image/heif":
		return HEIC, true
	case "application/pdf":
		return PDF, true
	}
	return "", false
}

// Limits bounds what Inspect accepts.
type Limits struct {
	// MaxPixels is the most pixels (width × height) an image may have; it
	// bounds the memory a full decode takes: 1.5 bytes a pixel for a JPEG,
	// 4 for most PNGs and WebPs, 8 for a 16-bit PNG. Zero or less means
	// DefaultLimits.MaxPixels.
	MaxPixels int64
}

// DefaultLimits are the limits receipts and avatars are checked against:
// 50 megapixels, above any phone camera's default (a 48 MP sensor saves 12 MP
// unless asked), 75 MB as a decoded JPEG and 200 MB as most PNGs.
var DefaultLimits = Limits{MaxPixels: 50_000_000}

// Info describes a file Inspect accepted.
type Info struct {
	// Kind is the file's real type, from its content.
	Kind Kind
	// Width and Height are an image's size in pixels as it is displayed: a
	// JPEG's EXIF orientation 5–8 and a HEIC's rotation by 90° or 270° swap
	// them. Zero for a PDF.
	Width, Height int
	// Pages is a PDF's page count (at least 1); zero for an image.
	Pages int
}

// Inspect checks the whole file and describes it. It refuses, each error
// wrapping one of the sentinels with a detail a user can read:
//   - ErrEmpty: no bytes;
//   - ErrUnsupported: not a JPEG, PNG, WebP, HEIC or PDF by its magic bytes
//     (SVG, HTML, GIF, ZIP, text, AVIF, …);
//   - ErrTooManyPixels: an image whose header gives a width or height of 0, or
//     more than lim.MaxPixels pixels, refused from the header alone, before
//     anything is decoded;
//   - ErrCorrupt: a file cut short or damaged (a JPEG without its end marker,
//     a PNG chunk with a wrong checksum, box or chunk sizes that do not add
//     up, a PDF without %%EOF at its end or whose pages cannot be counted), or
//     an image Go's decoders refuse; JPEG, PNG and still WebP images are
//     decoded in full once, HEIC's boxes are checked but its pictures are not
//     decoded;
//   - ErrPolyglot: an image that also carries something a browser or reader
//     would act on: %PDF- in its first 1024 bytes, HTML or SVG markup (<script,
//     <html, <svg, <!doctype html, <iframe) or %PDF- in its metadata or after
//     its end, or a ZIP archive after its end. Other data after a JPEG's end,
//     such as the video of a motion photo or a Samsung trailer, is accepted.
func Inspect(data []byte, lim Limits) (Info, error) {
	if len(data) == 0 {
		return Info{}, ErrEmpty
	}
	if lim.MaxPixels <= 0 {
		lim.MaxPixels = DefaultLimits.MaxPixels
	}
	kind, err := Sniff(data[:min(len(data), SniffLen)])
	if err != nil {
		return Info{}, err
	}
	switch kind {
	case JPEG:
		return inspectJPEG(data, lim)
	case PNG:
		return inspectPNG(data, lim)
	case WebP:
		return inspectWebP(data, lim)
	case HEIC:
		return inspectHEIC(data, lim)
	default:
		return inspectPDF(data)
	}
}

// checkPixels refuses a size with no pixels or more than the limit allows.
// It runs on the header's numbers, before any decoder allocates the image.
func checkPixels(kind Kind, width, height int, lim Limits) error {
	if width <= 0 || height <= 0 {
		return errorf(ErrTooManyPixels, "the %s header gives a size of %d×%d pixels", kindName(kind), width, height)
	}
	if int64(width)*int64(height) > lim.MaxPixels {
		return errorf(ErrTooManyPixels, "%d×%d is %s pixels, more than the %s allowed",
			width, height, thousands(int64(width)*int64(height)), thousands(lim.MaxPixels))
	}
	return nil
}

// thousands spells a count with its thousands apart ("50,000,000").
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// kindName is a kind as a person calls it.
func kindName(k Kind) string {
	switch k {
	case JPEG:
		return "JPEG"
	case PNG:
		return "PNG"
	case WebP:
		return "WebP"
	case HEIC:
		return "HEIC"
	case PDF:
		return "PDF"
	}
	return string(k)
}
