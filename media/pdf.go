package media

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strconv"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// A PDF's pages are counted from its page tree, the way readers find them:
// the trailer (or xref stream) names the catalog, /Root, whose /Pages is the
// tree's root; its leaves are the pages. Real PDFs keep their objects in
// compressed object streams and their cross-reference table in an xref
// stream (PDF 1.5+), or update an older table incrementally, so counting
// "/Type /Page" in the bytes is wrong; pdfcpu reads all three. Its full
// validation is not used: it refuses files every reader opens over problems
// no page count depends on (an annotation's missing key, a font's widths),
// and it checks signatures, which may fetch revocation lists.

// pdfEOFWindow is how near the end %%EOF must be: writers and mail gateways
// leave whitespace or a few stray bytes after it.
const pdfEOFWindow = 1024

// maxPDFObjects bounds how many objects a PDF may have. pdfcpu reads every
// object into memory, about 4 KB and 20 µs each, so that 60,000 objects
// (7 MB of them) take 240 MB and 3 s; a receipt or a 500-page statement has a
// few thousand. Objects written out are counted by their "obj" keyword, those
// packed in object streams by the xref stream's /Size.
const maxPDFObjects = 20_000

// maxXRefTableEntries bounds the entries of classic cross-reference tables,
// all sections together: pdfcpu keeps one for each, even for free objects
// that have no bytes at all (400,000 of them take 0.9 s and 78 MB), while a
// document updated a few times repeats some of its objects' entries.
const maxXRefTableEntries = 5 * maxPDFObjects

// pdfReadTimeout is the last guard on the time pdfcpu takes: with the objects
// bounded, a PDF reads in well under a second, so only a file that sends
// pdfcpu down some slow path we do not know of reaches it.
const pdfReadTimeout = 5 * time.Second

// maxPageDepth bounds the page tree's depth (real trees are a few levels;
// the bound keeps a crafted one from recursing without end).
const maxPageDepth = 64

var pdfVersion = regexp.MustCompile(`^%PDF-[12]\.[0-9]`)

// inspectPDF checks a PDF and counts its pages.
func inspectPDF(data []byte) (Info, error) {
	if !pdfVersion.Match(data) {
		return Info{}, errorf(ErrCorrupt, "the PDF header is not %%PDF-1.x or %%PDF-2.x")
	}
	if !bytes.Contains(data[max(0, len(data)-pdfEOFWindow):], []byte("%%EOF")) {
		return Info{}, errorf(ErrCorrupt, "the PDF is cut short: it does not end with %%%%EOF")
	}
	if n := bytes.Count(data, []byte("obj")) / 2; n > maxPDFObjects { // "obj" and "endobj"
		return Info{}, errorf(ErrCorrupt, "the PDF has about %d objects, more than the %d a document may have", n, maxPDFObjects)
	}
	if n := xrefTableEntries(data); n > maxXRefTableEntries {
		return Info{}, errorf(ErrCorrupt, "the PDF's cross-reference tables have %d entries, more than the %d a document may have", n, maxXRefTableEntries)
	}
	pages, err := pdfPageCount(data)
	if err != nil {
		return Info{}, err
	}
	if pages < 1 {
		return Info{}, errorf(ErrCorrupt, "the PDF has no pages")
	}
	return Info{Kind: PDF, Pages: pages}, nil
}

// pdfPageCount reads the PDF's objects with pdfcpu and counts the page
// tree's leaves. pdfcpu panics on some damaged files: a panic is ErrCorrupt.
func pdfPageCount(data []byte) (pages int, err error) {
	defer func() {
		if r := recover(); r != nil {
			pages, err = 0, errorf(ErrCorrupt, "the PDF cannot be read (%v)", r)
		}
	}()
	c, cancel := context.WithTimeout(context.Background(), pdfReadTimeout)
	defer cancel()
	ctx, err := pdfcpu.ReadWithContext(c, bytes.NewReader(data), pdfConfig(len(data)))
	if err != nil {
		switch {
		case errors.Is(err, pdfcpu.ErrWrongPassword):
			return 0, errorf(ErrCorrupt, "the PDF is protected by a password")
		case c.Err() != nil:
			return 0, errorf(ErrCorrupt, "the PDF takes more than %v to read", pdfReadTimeout)
		}
		return 0, errorf(ErrCorrupt, "the PDF cannot be read (%v)", err)
	}
	root, err := ctx.Pages()
	if err != nil || root == nil {
		return 0, errorf(ErrCorrupt, "the PDF has no page tree")
	}
	seen := map[int]bool{}
	return countPages(ctx.XRefTable, *root, seen, 0)
}

// countPages counts the pages under a page tree node: a node with /Kids or
// of /Type /Pages is a branch, anything else a page (as pdf.js counts them).
func countPages(x *model.XRefTable, node types.Object, seen map[int]bool, depth int) (int, error) {
	if depth > maxPageDepth {
		return 0, errorf(ErrCorrupt, "the PDF's page tree is more than %d levels deep", maxPageDepth)
	}
	if ir, ok := node.(types.IndirectRef); ok {
		nr := ir.ObjectNumber.Value()
		if seen[nr] {
			return 0, errorf(ErrCorrupt, "the PDF's page tree loops back on object %d", nr)
		}
		seen[nr] = true
	}
	d, err := x.DereferenceDict(node)
	if err != nil || d == nil {
		return 0, errorf(ErrCorrupt, "the PDF's page tree has a broken node")
	}
	kids, hasKids := d.Find("Kids")
	if t := d.Type(); !hasKids && (t == nil || *t != "Pages") {
		return 1, nil
	}
	arr, err := x.DereferenceArray(kids)
	if err != nil {
		return 0, errorf(ErrCorrupt, "the PDF's page tree has a broken /Kids array")
	}
	n := 0
	for _, kid := range arr {
		k, err := countPages(x, kid, seen, depth+1)
		if err != nil {
			return 0, err
		}
		n += k
	}
	return n, nil
}

// pdfConfig is pdfcpu's configuration for reading a file of n bytes: relaxed,
// offline, and with limits a 10 MB upload cannot need more than (pdfcpu's
// own defaults allow 512 MB per stream and ten million objects).
// pdfcpu's NewDefaultConfiguration is not used: it writes a configuration
// directory into the user's home unless a global switch is turned off.
func pdfConfig(n int) *model.Configuration {
	return &model.Configuration{
		Reader15:       true,
		ValidationMode: model.ValidationRelaxed,
		Offline:        true,
		Eol:            types.EolLF,
		Limits: model.ResourceLimits{
			MaxStreamBytes:       int64(n),
			MaxDecodeBytes:       64 << 20,
			MaxImagePixels:       DefaultLimits.MaxPixels,
			MaxImageBytes:        64 << 20,
			MaxObjectCount:       maxPDFObjects,
			MaxObjectStreamCount: maxPDFObjects,
			MaxObjectStreamFirst: 1 << 20,
			MaxXRefEntries:       maxPDFObjects,
			MaxRecursionDepth:    100,
		},
	}
}

// xrefTableEntries adds up the entries that the subsections of the file's
// classic cross-reference tables declare: each "xref" keyword (not the one
// in "startxref") is followed by subsections, a "first count" line and count
// entries of 20 bytes.
func xrefTableEntries(data []byte) int {
	total := 0
	for i := 0; ; {
		j := bytes.Index(data[i:], []byte("xref"))
		if j < 0 {
			return total
		}
		i += j + len("xref")
		if i-len("startxref") >= 0 && string(data[i-len("startxref"):i]) == "startxref" {
			continue
		}
		for k := i; ; {
			m := xrefSubsection.FindSubmatchIndex(data[k:min(len(data), k+64)])
			if m == nil {
				break
			}
			n, err := strconv.Atoi(string(data[k+m[4] : k+m[5]]))
			if err != nil || n < 0 {
				break
			}
			total += n
			if total > maxXRefTableEntries {
				return total
			}
			k += m[1] + 20*n
			if k >= len(data) {
				break
			}
		}
	}
}

// xrefSubsection is a subsection's header line: the first object number and
// the count, each up to 10 digits.
var xrefSubsection = regexp.MustCompile(`^[\x00\t\n\f\r ]+([0-9]{1,10})[ ]+([0-9]{1,10})[ ]*\r?\n`)
