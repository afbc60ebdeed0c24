package media

import (
	"bytes"
	"context"
	"errors"
	"regexp"

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
	ctx, err := pdfcpu.ReadWithContext(context.Background(), bytes.NewReader(data), pdfConfig(len(data)))
	if err != nil {
		if errors.Is(err, pdfcpu.ErrWrongPassword) {
			return 0, errorf(ErrCorrupt, "the PDF is protected by a password")
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
			MaxObjectCount:       1_000_000,
			MaxObjectStreamCount: 100_000,
			MaxObjectStreamFirst: 1 << 20,
			MaxXRefEntries:       1_000_000,
			MaxRecursionDepth:    100,
		},
	}
}
