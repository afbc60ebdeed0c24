package media

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
)

// testPDF writes PDFs the way real writers lay them out, for tests that need
// a known page count or size: a catalog, a page tree of two levels (ten pages
// to a branch), a content stream per page, and optionally an incompressible
// image per page to make the file big. With xrefStream, the catalog, the tree
// and the pages go into a Flate-compressed object stream and the
// cross-reference table is an xref stream (PDF 1.5+, as pdfTeX, Word and
// Chrome write them); without it, a classic xref table.
type testPDF struct {
	pages      int
	xrefStream bool
	imageBytes int // bytes of random "JPEG" data per page (0: none)
}

// pdfObject is one object's number and text (a stream's dictionary and data
// are written out by the caller).
type pdfObject struct {
	nr   int
	body string
}

func (p testPDF) bytes() []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var objs []pdfObject // objects that may go into an object stream
	var streams []pdfObject
	next := 1
	alloc := func() int { next++; return next - 1 }
	catalog, root := alloc(), alloc()
	branches := (p.pages + 9) / 10
	branchNrs := make([]int, branches)
	for i := range branchNrs {
		branchNrs[i] = alloc()
	}
	var rootKids []string
	for b := range branches {
		var kids []string
		for i := b * 10; i < min(p.pages, (b+1)*10); i++ {
			page, content := alloc(), alloc()
			res := "<< >>"
			if p.imageBytes > 0 {
				img := alloc()
				data := make([]byte, p.imageBytes)
				for j := range data {
					data[j] = byte(rng.Uint32())
				}
				streams = append(streams, pdfObject{img, fmt.Sprintf(
					"<< /Type /XObject /Subtype /Image /Width 100 /Height 100 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n%s\nendstream", len(data), data)})
				res = fmt.Sprintf("<< /XObject << /Im0 %d 0 R >> >>", img)
			}
			text := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (Receipt page %d) Tj ET", i+1)
			streams = append(streams, pdfObject{content, fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(text), text)})
			objs = append(objs, pdfObject{page, fmt.Sprintf(
				"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources %s /Contents %d 0 R >>", branchNrs[b], res, content)})
			kids = append(kids, fmt.Sprintf("%d 0 R", page))
		}
		objs = append(objs, pdfObject{branchNrs[b], fmt.Sprintf(
			"<< /Type /Pages /Parent %d 0 R /Kids [%s] /Count %d >>", root, strings.Join(kids, " "), len(kids))})
		rootKids = append(rootKids, fmt.Sprintf("%d 0 R", branchNrs[b]))
	}
	objs = append(objs,
		pdfObject{catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", root)},
		pdfObject{root, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(rootKids, " "), p.pages)})

	var out bytes.Buffer
	version := "1.4"
	if p.xrefStream {
		version = "1.5"
	}
	fmt.Fprintf(&out, "%%PDF-%s\n%%\xe2\xe3\xcf\xd3\n", version)
	offsets := map[int]int{}
	write := func(o pdfObject) {
		offsets[o.nr] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", o.nr, o.body)
	}
	for _, s := range streams {
		write(s)
	}
	if !p.xrefStream {
		for _, o := range objs {
			write(o)
		}
		xref := out.Len()
		fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", next)
		for nr := 1; nr < next; nr++ {
			fmt.Fprintf(&out, "%010d 00000 n \n", offsets[nr])
		}
		fmt.Fprintf(&out, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", next, catalog, xref)
		return out.Bytes()
	}

	// The object stream: "nr offset" pairs, then the objects.
	objStm := next
	next++
	var head, body strings.Builder
	inStream := map[int]int{} // object number → index in the object stream
	for i, o := range objs {
		inStream[o.nr] = i
		fmt.Fprintf(&head, "%d %d ", o.nr, body.Len())
		body.WriteString(o.body + "\n")
	}
	packed := zlibBytes([]byte(head.String() + body.String()))
	offsets[objStm] = out.Len()
	fmt.Fprintf(&out, "%d 0 obj\n<< /Type /ObjStm /N %d /First %d /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream\nendobj\n",
		objStm, len(objs), head.Len(), len(packed), packed)

	// The xref stream: type 1 (offset) or 2 (object stream, index) entries, /W [1 4 2].
	xrefNr := next
	next++
	offsets[xrefNr] = out.Len()
	var rows []byte
	for nr := range next {
		switch i, ok := inStream[nr]; {
		case nr == 0:
			rows = append(rows, 0, 0, 0, 0, 0, 0xFF, 0xFF)
		case ok:
			rows = append(rows, 2)
			rows = binary.BigEndian.AppendUint32(rows, uint32(objStm))
			rows = binary.BigEndian.AppendUint16(rows, uint16(i))
		default:
			rows = append(rows, 1)
			rows = binary.BigEndian.AppendUint32(rows, uint32(offsets[nr]))
			rows = binary.BigEndian.AppendUint16(rows, 0)
		}
	}
	packed = zlibBytes(rows)
	fmt.Fprintf(&out, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Root %d 0 R /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n",
		xrefNr, next, catalog, len(packed), packed, offsets[xrefNr])
	return out.Bytes()
}

// appendPage adds one page to a classic-xref PDF that testPDF wrote, as an
// incremental update does: new objects, a new root of the page tree, and an
// xref section whose trailer points back (/Prev) to the previous one.
func appendPage(pdf []byte, oldPages int) []byte {
	var out bytes.Buffer
	out.Write(pdf)
	prev := bytes.LastIndex(pdf, []byte("startxref\n"))
	var prevXref, size int
	fmt.Sscanf(string(pdf[prev+len("startxref\n"):]), "%d", &prevXref)
	s := bytes.LastIndex(pdf, []byte("/Size "))
	fmt.Sscanf(string(pdf[s+len("/Size "):]), "%d", &size)
	const catalog, root = 1, 2
	// The root's kids as the last version of the file gives them.
	k := bytes.LastIndex(pdf, []byte("2 0 obj\n<< /Type /Pages /Kids ["))
	kidsText := pdf[k+len("2 0 obj\n<< /Type /Pages /Kids ["):]
	kids := []string{string(kidsText[:bytes.IndexByte(kidsText, ']')])}
	page := size
	kids = append(kids, fmt.Sprintf("%d 0 R", page))
	offPage := out.Len()
	fmt.Fprintf(&out, "%d 0 obj\n<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] >>\nendobj\n", page, root)
	offRoot := out.Len()
	fmt.Fprintf(&out, "%d 0 obj\n<< /Type /Pages /Kids [%s] /Count %d >>\nendobj\n", root, strings.Join(kids, " "), oldPages+1)
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 1\n0000000000 65535 f \n%d 1\n%010d 00000 n \n%d 1\n%010d 00000 n \n", root, offRoot, page, offPage)
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root %d 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n", size+1, catalog, prevXref, xref)
	return out.Bytes()
}
