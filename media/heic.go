package media

import (
	"cmp"
	"encoding/binary"
	"slices"
)

// A HEIC file is an ISOBMFF file (ISO/IEC 14496-12) holding HEIF items
// (ISO/IEC 23008-12): a top-level ftyp box first, a meta box (a full box:
// version and flags before its children) with hdlr 'pict', pitm naming the
// primary item, iinf its items and their types, iloc where each item's bytes
// are, and iprp: ipco lists properties, ipma associates them with items by
// index. The primary item's ispe property is its coded size; transformative
// properties associated after it (clap crops, irot turns) give the displayed
// size. Its pictures are HEVC, which no Go package here decodes: the boxes are
// checked, not the pictures.

// Bounds on what a file may declare, each far above a phone's photo (an
// iPhone's 48 MP HEIC has a few hundred items and extents) and each keeping
// a crafted file from costing more memory than its own size: an iloc entry
// with fields of zero bytes declares 65,535 extents in 10 bytes.
const (
	maxBoxes   = 100_000 // boxes in one box, or at the top
	maxItems   = 10_000  // items with a type, bytes or properties
	maxExtents = 100_000 // extents of all items together
)

// box is one ISOBMFF box in a file.
type box struct {
	typ  string
	body []byte // after the header
	off  int    // the body's offset in the file
}

// heifItem is what iinf and iloc say of one item.
type heifItem struct {
	typ     string
	extents []extent
	inIdat  bool // its extents are offsets into idat (construction method 1)
}

// extent is part of an item's bytes: an offset and a length in the file
// (or in idat); length 0 means to the end.
type extent struct{ off, n uint64 }

// heifFile is what the walk over a HEIC file collects.
type heifFile struct {
	top     []box
	primary uint32
	items   map[uint32]*heifItem
	props   []box // ipco's children; property index i is props[i-1]
	assoc   map[uint32][]int
	idat    *box
}

// inspectHEIC checks and describes a HEIC file.
func inspectHEIC(data []byte, lim Limits) (Info, error) {
	f, err := walkHEIF(data)
	if err != nil {
		return Info{}, err
	}
	if t := f.items[f.primary]; t != nil && t.typ == "av01" {
		return Info{}, errorf(ErrUnsupported, "AVIF images are not accepted")
	}
	w, h, err := f.size()
	if err != nil {
		return Info{}, err
	}
	if err := checkPixels(HEIC, w, h, lim); err != nil {
		return Info{}, err
	}
	if err := checkPDFHeader(HEIC, data); err != nil {
		return Info{}, err
	}
	if err := f.checkHidden(data); err != nil {
		return Info{}, err
	}
	w, h = f.displayed(w, h)
	return Info{Kind: HEIC, Width: w, Height: h}, nil
}

// walkHEIF reads the boxes a HEIC file's size and layout come from, and
// refuses one whose box sizes do not add up or that lacks them.
func walkHEIF(data []byte) (*heifFile, error) {
	top, err := readBoxes(data, 0, len(data))
	if err != nil {
		return nil, err
	}
	if len(top) == 0 || top[0].typ != "ftyp" {
		return nil, errorf(ErrCorrupt, "the HEIC file does not start with an ftyp box")
	}
	f := &heifFile{top: top, items: map[uint32]*heifItem{}, assoc: map[uint32][]int{}}
	i := slices.IndexFunc(top, func(b box) bool { return b.typ == "meta" })
	if i < 0 {
		return nil, errorf(ErrCorrupt, "the HEIC file has no meta box")
	}
	children, err := fullBoxChildren(data, top[i])
	if err != nil {
		return nil, err
	}
	var handler, pitm bool
	for _, c := range children {
		switch c.typ {
		case "hdlr": // version, flags, pre_defined, handler_type
			handler = len(c.body) >= 12 && string(c.body[8:12]) == "pict"
		case "pitm":
			r := reader{b: c.body}
			version := r.u8()
			r.skip(3)
			f.primary = r.id(version != 0)
			pitm = !r.bad
		case "iinf":
			err = f.readIinf(data, c)
		case "iloc":
			err = f.readIloc(c)
		case "iprp":
			err = f.readIprp(data, c)
		case "idat":
			f.idat = &c
		}
		if err != nil {
			return nil, err
		}
	}
	if !handler {
		return nil, errorf(ErrCorrupt, "the HEIC file's meta box is not for a picture")
	}
	if !pitm {
		return nil, errorf(ErrCorrupt, "the HEIC file names no primary image")
	}
	if len(f.items) > 0 && f.items[f.primary] == nil {
		return nil, errorf(ErrCorrupt, "the HEIC file's primary image is not among its items")
	}
	if err := f.checkExtents(len(data)); err != nil {
		return nil, err
	}
	return f, nil
}

// readBoxes splits data[from:to] into the boxes that must fill it exactly.
func readBoxes(data []byte, from, to int) ([]box, error) {
	var out []box
	for i := from; i < to; {
		if len(out) == maxBoxes {
			return nil, errorf(ErrCorrupt, "the HEIC file has more than %d boxes in one place", maxBoxes)
		}
		if to-i < 8 {
			return nil, errorf(ErrCorrupt, "the HEIC file has %d stray bytes at offset %d", to-i, i)
		}
		size, typ, hdr := uint64(binary.BigEndian.Uint32(data[i:])), string(data[i+4:i+8]), 8
		switch size {
		case 1: // a 64-bit size follows
			if to-i < 16 {
				return nil, errorf(ErrCorrupt, "the HEIC file's %q box is cut short", typ)
			}
			size, hdr = binary.BigEndian.Uint64(data[i+8:]), 16
		case 0: // to the end
			size = uint64(to - i)
		}
		if typ == "uuid" {
			hdr += 16
		}
		if size < uint64(hdr) || size > uint64(to-i) {
			return nil, errorf(ErrCorrupt, "the HEIC file's %q box at offset %d is %d bytes long, which does not fit", typ, i, size)
		}
		out = append(out, box{typ: typ, body: data[i+hdr : i+int(size)], off: i + hdr})
		i += int(size)
	}
	return out, nil
}

// fullBoxChildren returns the boxes inside a full box (after its version and
// flags) and before nothing else.
func fullBoxChildren(data []byte, b box) ([]box, error) {
	if len(b.body) < 4 {
		return nil, errorf(ErrCorrupt, "the HEIC file's %q box is cut short", b.typ)
	}
	return readBoxes(data, b.off+4, b.off+len(b.body))
}

// readIinf reads the items' types from iinf's infe boxes (versions 2 and 3;
// older ones carry no type).
func (f *heifFile) readIinf(data []byte, b box) error {
	r := reader{b: b.body}
	skip := 4 + 2 // version, flags, a 16-bit count
	if r.u8() != 0 {
		skip = 4 + 4
	}
	if len(b.body) < skip {
		return errorf(ErrCorrupt, "the HEIC file's iinf box is cut short")
	}
	entries, err := readBoxes(data, b.off+skip, b.off+len(b.body))
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.typ != "infe" {
			continue
		}
		r := reader{b: e.body}
		version := r.u8()
		r.skip(3)
		if version < 2 {
			continue
		}
		id := r.id(version > 2)
		r.skip(2) // item_protection_index
		typ := r.bytes(4)
		if r.bad {
			return errorf(ErrCorrupt, "the HEIC file's infe box is cut short")
		}
		it, err := f.item(id)
		if err != nil {
			return err
		}
		it.typ = string(typ)
	}
	return nil
}

// item returns the item with an id, made on first use.
func (f *heifFile) item(id uint32) (*heifItem, error) {
	it := f.items[id]
	if it == nil {
		if len(f.items) == maxItems {
			return nil, errorf(ErrCorrupt, "the HEIC file has more than %d items", maxItems)
		}
		it = &heifItem{}
		f.items[id] = it
	}
	return it, nil
}

// readIloc reads where each item's bytes are (ISO/IEC 14496-12 8.11.3).
func (f *heifFile) readIloc(b box) error {
	r := reader{b: b.body}
	version := r.u8()
	r.skip(3)
	sizes := r.u16()
	offSize, lenSize, baseSize, idxSize := int(sizes>>12), int(sizes>>8&15), int(sizes>>4&15), int(sizes&15)
	if version == 0 {
		idxSize = 0
	}
	extents := 0
	for range r.id(version >= 2) { // the item count
		id := r.id(version >= 2)
		it, err := f.item(id)
		if err != nil {
			return err
		}
		if version >= 1 {
			it.inIdat = r.u16()&15 == 1
		}
		r.skip(2) // data_reference_index
		base := r.uint(baseSize)
		n := int(r.u16())
		if extents += n; extents > maxExtents {
			return errorf(ErrCorrupt, "the HEIC file's items have more than %d extents", maxExtents)
		}
		for range n {
			r.uint(idxSize)
			off, length := r.uint(offSize), r.uint(lenSize)
			if r.bad {
				break
			}
			if off > ^uint64(0)-base {
				return errorf(ErrCorrupt, "the HEIC file's item %d lies past any file", id)
			}
			it.extents = append(it.extents, extent{off: base + off, n: length})
		}
		if r.bad {
			return errorf(ErrCorrupt, "the HEIC file's iloc box is cut short")
		}
	}
	return nil
}

// readIprp reads the properties (ipco) and which items they belong to (ipma).
func (f *heifFile) readIprp(data []byte, b box) error {
	children, err := readBoxes(data, b.off, b.off+len(b.body))
	if err != nil {
		return err
	}
	for _, c := range children {
		switch c.typ {
		case "ipco":
			if f.props, err = readBoxes(data, c.off, c.off+len(c.body)); err != nil {
				return err
			}
		case "ipma":
			r := reader{b: c.body}
			version := r.u8()
			r.skip(2)
			wide := r.u8()&1 != 0
			count := r.u32()
			if count > maxItems {
				return errorf(ErrCorrupt, "the HEIC file has more than %d items", maxItems)
			}
			for range count {
				id := r.id(version >= 1)
				n := r.u8()
				for range n {
					if wide {
						f.assoc[id] = append(f.assoc[id], int(r.u16()&0x7FFF))
					} else {
						f.assoc[id] = append(f.assoc[id], int(r.u8()&0x7F))
					}
				}
				if r.bad {
					return errorf(ErrCorrupt, "the HEIC file's ipma box is cut short")
				}
			}
		}
	}
	return nil
}

// checkExtents refuses items whose bytes lie past the file's end (or idat's).
func (f *heifFile) checkExtents(fileLen int) error {
	for id, it := range f.items {
		limit := uint64(fileLen)
		if it.inIdat {
			limit = 0
			if f.idat != nil {
				limit = uint64(len(f.idat.body))
			}
		}
		for _, e := range it.extents {
			if e.off > limit || e.n > limit-e.off {
				return errorf(ErrCorrupt, "the HEIC file is cut short: item %d's bytes lie past its end", id)
			}
		}
	}
	return nil
}

// size is the primary item's coded size: its ispe, or, when no property is
// associated with it, the largest ispe in the file.
func (f *heifFile) size() (int, int, error) {
	var w, h uint32
	found := false
	for _, p := range f.primaryProps() {
		if p.typ == "ispe" {
			w, h, found = ispe(p)
			break
		}
	}
	if !found && len(f.assoc[f.primary]) == 0 {
		for _, p := range f.props {
			if pw, ph, ok := ispe(p); ok && uint64(pw)*uint64(ph) >= uint64(w)*uint64(h) {
				w, h, found = pw, ph, true
			}
		}
	}
	if !found {
		return 0, 0, errorf(ErrCorrupt, "the HEIC file gives no size for its primary image")
	}
	return clampInt(w), clampInt(h), nil
}

// displayed applies the primary item's transformative properties, in the
// order they are associated, to its coded size: clap crops it, irot turns
// it (by a quarter when its angle is odd).
func (f *heifFile) displayed(w, h int) (int, int) {
	for _, p := range f.primaryProps() {
		switch p.typ {
		case "clap":
			if cw, ch, ok := clap(p); ok && cw <= w && ch <= h {
				w, h = cw, ch
			}
		case "irot":
			if len(p.body) >= 1 && p.body[0]&1 == 1 {
				w, h = h, w
			}
		}
	}
	return w, h
}

// primaryProps are the properties associated with the primary item, in order.
func (f *heifFile) primaryProps() []box {
	var out []box
	for _, idx := range f.assoc[f.primary] {
		if idx >= 1 && idx <= len(f.props) {
			out = append(out, f.props[idx-1])
		}
	}
	return out
}

// ispe reads an image spatial extents property: a full box, then the width
// and height.
func ispe(p box) (w, h uint32, ok bool) {
	if p.typ != "ispe" || len(p.body) < 12 {
		return 0, 0, false
	}
	return binary.BigEndian.Uint32(p.body[4:]), binary.BigEndian.Uint32(p.body[8:]), true
}

// clap reads a clean aperture's width and height (fractions, rounded down).
func clap(p box) (w, h int, ok bool) {
	if len(p.body) < 16 {
		return 0, 0, false
	}
	be := binary.BigEndian
	wn, wd, hn, hd := be.Uint32(p.body), be.Uint32(p.body[4:]), be.Uint32(p.body[8:]), be.Uint32(p.body[12:])
	if wd == 0 || hd == 0 || wn/wd == 0 || hn/hd == 0 {
		return 0, 0, false
	}
	return clampInt(wn / wd), clampInt(hn / hd), true
}

// clampInt turns a size from a file into an int no multiplication overflows.
func clampInt(v uint32) int { return int(min(v, 1<<31-1)) }

// checkHidden searches what holds no pictures: every box but mdat (the meta
// box with its properties and idat, and any box a reader skips), the items
// that are metadata (Exif, XMP and other mime items), and the bytes of mdat
// that no item claims.
func (f *heifFile) checkHidden(data []byte) error {
	for _, b := range f.top {
		if b.typ == "mdat" {
			if err := f.checkUnclaimed(data, b); err != nil {
				return err
			}
			continue
		}
		if err := checkHidden(HEIC, "boxes", b.body); err != nil {
			return err
		}
	}
	for _, it := range f.items {
		if it.inIdat || it.typ != "Exif" && it.typ != "mime" && it.typ != "uri " {
			continue
		}
		for _, e := range it.extents {
			if err := checkHidden(HEIC, "metadata", extentBytes(data, e)); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkUnclaimed searches the parts of an mdat box that no item's extent covers.
func (f *heifFile) checkUnclaimed(data []byte, mdat box) error {
	var claimed []extent
	for _, it := range f.items {
		if !it.inIdat {
			claimed = append(claimed, it.extents...)
		}
	}
	slices.SortFunc(claimed, func(a, b extent) int { return cmp.Compare(a.off, b.off) })
	at := uint64(mdat.off)
	end := uint64(mdat.off + len(mdat.body))
	for _, e := range claimed {
		if e.off > at {
			if err := checkHidden(HEIC, "unused bytes", data[at:min(e.off, end)]); err != nil {
				return err
			}
		}
		if e.n == 0 {
			return nil
		}
		at = max(at, e.off+e.n)
		if at >= end {
			return nil
		}
	}
	return checkHidden(HEIC, "unused bytes", data[at:end])
}

// extentBytes is the part of data an extent covers (checkExtents made sure
// it lies inside).
func extentBytes(data []byte, e extent) []byte {
	if e.n == 0 {
		return data[e.off:]
	}
	return data[e.off : e.off+e.n]
}

// reader reads big-endian numbers from a box's body; reading past its end
// gives zeros and sets bad.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) bytes(n int) []byte {
	if n > len(r.b) {
		r.bad = true
		r.b = nil
		return make([]byte, n)
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) skip(n int)  { r.bytes(n) }
func (r *reader) u8() uint8   { return r.bytes(1)[0] }
func (r *reader) u16() uint16 { return binary.BigEndian.Uint16(r.bytes(2)) }
func (r *reader) u32() uint32 { return binary.BigEndian.Uint32(r.bytes(4)) }
func (r *reader) u64() uint64 { return binary.BigEndian.Uint64(r.bytes(8)) }

// id reads an item ID or a count: 32 bits wide, 16 bits if not.
func (r *reader) id(wide bool) uint32 {
	if wide {
		return r.u32()
	}
	return uint32(r.u16())
}

// uint reads a number of 0, 4 or 8 bytes (iloc's field sizes); other sizes are bad.
func (r *reader) uint(size int) uint64 {
	switch size {
	case 0:
		return 0
	case 4:
		return uint64(r.u32())
	case 8:
		return r.u64()
	}
	r.bad = true
	return 0
}
