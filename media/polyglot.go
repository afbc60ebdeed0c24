package media

import (
	"bytes"
	"encoding/binary"
)

// A polyglot is a file that is valid as two formats: an image to the server
// and, to whatever opens it next, a web page, a PDF or a Java archive. What
// is looked for, and where:
//   - %PDF- in the first 1024 bytes at an offset above 0, since PDF readers
//     accept a header anywhere there;
//   - HTML and SVG markup, %PDF- or a ZIP archive in the image's metadata
//     (JPEG APPn and COM segments, PNG chunks other than pixel data, WebP
//     chunks other than pixel data, HEIC boxes and metadata items) and in the
//     bytes after the image's end (JPEG EOI, PNG IEND, the RIFF size).
// Compressed pixel data is not searched: any byte string turns up in it by
// chance, and no browser or reader looks there. Data after a JPEG's end is
// common and harmless (motion photos append an MP4, Samsung phones a "SEFT"
// trailer, MPF files more JPEGs), so only those three formats are refused.

// markups are the starts of HTML and SVG that a browser renders or runs, in
// lower case (the search ignores case).
var markups = []string{"<script", "<html", "<svg", "<!doctype html", "<iframe"}

// pdfHeaderWindow is how far into a file PDF readers look for %PDF-.
const pdfHeaderWindow = 1024

// checkPDFHeader refuses an image with %PDF- in its first 1024 bytes (Sniff
// already took a file that starts with it for a PDF).
func checkPDFHeader(kind Kind, data []byte) error {
	if bytes.Contains(data[1:min(len(data), pdfHeaderWindow)], pdfMagic) {
		return errorf(ErrPolyglot, "the %s image also starts a PDF document", kindName(kind))
	}
	return nil
}

// checkImage runs the checks of a JPEG, PNG or WebP image: its first bytes,
// its metadata, and what follows its end (at offset end).
func checkImage(kind Kind, data []byte, meta [][]byte, end int) error {
	if err := checkPDFHeader(kind, data); err != nil {
		return err
	}
	for _, m := range meta {
		if err := checkHidden(kind, "metadata", m); err != nil {
			return err
		}
	}
	return checkHidden(kind, "bytes after its end", data[end:])
}

// checkHidden refuses markup, a PDF or a ZIP archive in part of an image that
// holds no pixels; where names that part for the error ("metadata", "the
// bytes after its end").
func checkHidden(kind Kind, where string, b []byte) error {
	if what := hiddenFormat(b); what != "" {
		return errorf(ErrPolyglot, "the %s image's %s hold %s", kindName(kind), where, what)
	}
	return nil
}

// hiddenFormat names the first other format found in b, or is "".
func hiddenFormat(b []byte) string {
	if m := findMarkup(b); m != "" {
		return "HTML or SVG markup (" + m + ")"
	}
	if bytes.Contains(b, pdfMagic) {
		return "a PDF document"
	}
	if hasZip(b) {
		return "a ZIP archive"
	}
	return ""
}

// findMarkup returns the first of markups found in b as a browser would
// read it, or "": in any case, then a byte that ends a tag name (a space or
// > or /), then text. The last two keep chance out: "<svg" alone turns up in
// about one in 200 motion photos' 3 MB of video; followed by a tag's end and
// eight bytes of text, in none of billions. Markup written to be run has both.
func findMarkup(b []byte) string {
	for i := 0; i < len(b); i++ {
		j := bytes.IndexByte(b[i:], '<')
		if j < 0 {
			return ""
		}
		i += j
		for _, m := range markups {
			if hasPrefixFold(b[i:], m) && isTag(b[i+len(m):]) {
				return m
			}
		}
	}
	return ""
}

// isTag reports whether what follows a tag name ends it (HTML's
// tag-terminating bytes, and / as in <svg/onload=…>) and goes on as text for
// eight bytes, or to the end of b.
func isTag(rest []byte) bool {
	if len(rest) == 0 {
		return true
	}
	switch rest[0] {
	case ' ', '\t', '\n', '\r', '\f', '>', '/':
	default:
		return false
	}
	for _, c := range rest[1:min(len(rest), 9)] {
		if (c < 0x20 || c > 0x7E) && c != '\t' && c != '\n' && c != '\r' && c != '\f' {
			return false
		}
	}
	return true
}

// hasPrefixFold reports whether b starts with the lower-case ASCII prefix,
// ignoring case.
func hasPrefixFold(b []byte, prefix string) bool {
	if len(b) < len(prefix) {
		return false
	}
	for i := range len(prefix) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// hasZip reports a ZIP local file header or end of central directory record
// in b whose fields are those of a real archive. The fields are checked, not
// just the 4-byte signatures, because a motion photo's megabytes of video
// hold PK\x03\x04 by chance about once in a thousand files; with the fields
// checked, chance alone would take many billions of them.
func hasZip(b []byte) bool {
	for i := 0; i+4 <= len(b); i++ {
		j := bytes.Index(b[i:], []byte("PK"))
		if j < 0 {
			return false
		}
		i += j
		rest := b[i:]
		switch {
		case len(rest) < 4:
			return false
		case rest[2] == 3 && rest[3] == 4 && zipLocalHeader(rest):
			return true
		case rest[2] == 5 && rest[3] == 6 && zipDirectoryEnd(rest):
			return true
		}
	}
	return false
}

// zipLocalHeader checks a local file header (APPNOTE 4.3.7): the version
// needed to extract is at most 6.3, the method one ZIP defines, the file
// name between 1 and 1024 bytes and within b.
func zipLocalHeader(b []byte) bool {
	if len(b) < 30 {
		return false
	}
	le := binary.LittleEndian
	version, method, nameLen := le.Uint16(b[4:]), le.Uint16(b[8:]), int(le.Uint16(b[26:]))
	return version <= 63 && method <= 99 && nameLen >= 1 && nameLen <= 1024 && 30+nameLen <= len(b)
}

// zipDirectoryEnd checks an end of central directory record (APPNOTE 4.3.16)
// of a one-disk archive, as every archive a reader opens is: disk numbers 0,
// as many entries on this disk as in all, and its comment within b.
func zipDirectoryEnd(b []byte) bool {
	if len(b) < 22 {
		return false
	}
	le := binary.LittleEndian
	return le.Uint16(b[4:]) == 0 && le.Uint16(b[6:]) == 0 && le.Uint16(b[8:]) == le.Uint16(b[10:]) &&
		22+int(le.Uint16(b[20:])) <= len(b)
}
