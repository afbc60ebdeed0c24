package media

import (
	"bytes"
	"encoding/binary"
)

// SniffLen is how many leading bytes Sniff needs: enough for an ISOBMFF
// ftyp box with a dozen compatible brands. A shorter file is sniffed whole.
const SniffLen = 64

var (
	jpegMagic = []byte{0xFF, 0xD8, 0xFF}
	pngMagic  = []byte("\x89PNG\r\n\x1a\n")
	pdfMagic  = []byte("%PDF-")
)

// HEIF brands (ISO/IEC 23008-12 and its HEVC annex): the HEVC-specific ones
// name an HEVC-coded image or sequence; the structural ones (mif1, msf1)
// say only "HEIF", so a file with them and an AV1 brand is AVIF, not HEIC.
var (
	hevcBrands = []string{"heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs"}
	heifBrands = []string{"mif1", "msf1"}
	avifBrands = []string{"avif", "avis"}
)

// Sniff tells the kind from the first bytes of a file (magic numbers): JPEG's
// FF D8 FF, PNG's 8-byte signature, RIFF….WEBP, an ISOBMFF ftyp box whose
// major or compatible brands name HEIC or HEIF (heic, heix, hevc, heim, heis,
// hevm, hevs, mif1, msf1; AVIF is not HEIC), and %PDF- at offset 0. Anything
// else is ErrUnsupported, wrapped with what the file seems to be when that is
// known (no bytes at all are ErrEmpty). head is the file's first SniffLen
// bytes (all of it if shorter).
func Sniff(head []byte) (Kind, error) {
	switch {
	case len(head) == 0:
		return "", ErrEmpty
	case bytes.HasPrefix(head, jpegMagic):
		return JPEG, nil
	case bytes.HasPrefix(head, pngMagic):
		return PNG, nil
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return WebP, nil
	case bytes.HasPrefix(head, pdfMagic):
		return PDF, nil
	case len(head) >= 12 && string(head[4:8]) == "ftyp":
		return sniffFtyp(head)
	}
	return "", errorf(ErrUnsupported, "%s", seemsToBe(head))
}

// sniffFtyp reads an ftyp box's brands.
func sniffFtyp(head []byte) (Kind, error) {
	size := int(binary.BigEndian.Uint32(head))
	if size < 16 || size%4 != 0 {
		return "", errorf(ErrUnsupported, "its ftyp box is malformed")
	}
	brands := []string{string(head[8:12])} // the major brand, then the compatible ones
	for i := 16; i+4 <= min(size, len(head)); i += 4 {
		brands = append(brands, string(head[i:i+4]))
	}
	has := func(set []string) bool {
		for _, b := range brands {
			for _, s := range set {
				if b == s {
					return true
				}
			}
		}
		return false
	}
	switch {
	case has(hevcBrands):
		return HEIC, nil
	case has(avifBrands):
		return "", errorf(ErrUnsupported, "AVIF images are not accepted")
	case has(heifBrands):
		return HEIC, nil
	}
	return "", errorf(ErrUnsupported, "it is an ISO media file of brand %q (a video?)", brands[0])
}

// seemsToBe names a few kinds people upload by mistake, for the error.
func seemsToBe(head []byte) string {
	lower := bytes.ToLower(bytes.TrimLeft(head, "\xef\xbb\xbf \t\r\n"))
	switch {
	case bytes.HasPrefix(head, []byte("GIF8")):
		return "GIF images are not accepted"
	case bytes.HasPrefix(lower, []byte("<svg")), bytes.HasPrefix(lower, []byte("<?xml")):
		return "SVG and XML files are not accepted"
	case bytes.HasPrefix(lower, []byte("<!doctype")), bytes.HasPrefix(lower, []byte("<html")):
		return "web pages are not accepted"
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return "ZIP archives and office documents are not accepted"
	case bytes.HasPrefix(head, []byte("II*\x00")), bytes.HasPrefix(head, []byte("MM\x00*")):
		return "TIFF images are not accepted"
	}
	return "its first bytes match none of them"
}
