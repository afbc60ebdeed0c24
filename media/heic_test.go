package media

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// isoBox is an ISOBMFF box: size, type, body.
func isoBox(typ string, body ...[]byte) []byte {
	n := 8
	for _, b := range body {
		n += len(b)
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(n))
	out = append(out, typ...)
	for _, b := range body {
		out = append(out, b...)
	}
	return out
}

// isoFullBox is a full box: version and flags, then the body.
func isoFullBox(typ string, version byte, flags uint32, body ...[]byte) []byte {
	vf := binary.BigEndian.AppendUint32(nil, uint32(version)<<24|flags)
	return isoBox(typ, append([][]byte{vf}, body...)...)
}

func u16(v uint16) []byte { return binary.BigEndian.AppendUint16(nil, v) }
func u32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

func ispeProp(w, h uint32) []byte { return isoFullBox("ispe", 0, 0, u32(w), u32(h)) }
func irotProp(angle byte) []byte  { return isoBox("irot", []byte{angle}) }
func clapProp(w, h uint32) []byte {
	return isoBox("clap", u32(w), u32(1), u32(h), u32(1), u32(0), u32(1), u32(0), u32(1))
}

// heifItemSpec is one item of a test HEIF file: its type, its bytes (kept
// in mdat) and the ipco indexes (1-based) of its properties, in order.
type heifItemSpec struct {
	id      uint16
	typ     string
	data    []byte
	props   []int
	stretch uint32 // added to the length iloc gives
}

// heifSpec builds a HEIF file the way libheif lays one out: ftyp, meta
// (hdlr pict, pitm, iinf, iloc, iprp with ipco and ipma), mdat.
type heifSpec struct {
	brands  string // major then compatible, four letters each
	primary uint16
	items   []heifItemSpec
	props   [][]byte
	extra   [][]byte // more top-level boxes, after mdat
	noMeta  bool
	handler string
	unused  []byte // bytes at the end of mdat that no item claims
}

func (s heifSpec) build() []byte {
	if s.brands == "" {
		s.brands = "heicmif1heic"
	}
	if s.handler == "" {
		s.handler = "pict"
	}
	ftyp := isoBox("ftyp", []byte(s.brands[:4]), u32(0), []byte(s.brands[4:]))
	meta := func(mdatOffset uint32) []byte {
		var infe, iloc, ipma [][]byte
		at := mdatOffset
		for _, it := range s.items {
			infe = append(infe, isoFullBox("infe", 2, 0, u16(it.id), u16(0), []byte(it.typ), []byte{0}))
			iloc = append(iloc, u16(it.id), u16(0), u16(1), u32(at), u32(uint32(len(it.data))+it.stretch))
			at += uint32(len(it.data))
			if it.props != nil {
				entry := append(u16(it.id), byte(len(it.props)))
				for _, p := range it.props {
					entry = append(entry, byte(p)|0x80)
				}
				ipma = append(ipma, entry)
			}
		}
		return isoFullBox("meta", 0, 0,
			isoFullBox("hdlr", 0, 0, u32(0), []byte(s.handler), make([]byte, 12), []byte{0}),
			isoFullBox("pitm", 0, 0, u16(s.primary)),
			isoFullBox("iinf", 0, 0, append([][]byte{u16(uint16(len(s.items)))}, infe...)...),
			isoFullBox("iloc", 0, 0, append([][]byte{{0x44, 0x00}, u16(uint16(len(s.items)))}, iloc...)...),
			isoBox("iprp",
				isoBox("ipco", s.props...),
				isoFullBox("ipma", 0, 0, append([][]byte{u32(uint32(len(ipma)))}, ipma...)...)),
		)
	}
	var payload []byte
	for _, it := range s.items {
		payload = append(payload, it.data...)
	}
	payload = append(payload, s.unused...)
	m := meta(0)
	if s.noMeta {
		m = isoBox("free", make([]byte, len(m)-8))
	} else {
		m = meta(uint32(len(ftyp) + len(m) + 8)) // the same length, with mdat's offset
	}
	out := append(append(ftyp, m...), isoBox("mdat", payload)...)
	for _, e := range s.extra {
		out = append(out, e...)
	}
	return out
}

// photoHEIF is an iPhone-like file: a primary grid of 4032×3024 with its
// colour, rotation and size, two tiles, a thumbnail and Exif.
func photoHEIF(primaryProps ...int) heifSpec {
	return heifSpec{
		primary: 1,
		props: [][]byte{
			ispeProp(4032, 3024),                           // 1
			isoBox("hvcC", make([]byte, 23)),               // 2
			ispeProp(512, 512),                             // 3
			ispeProp(320, 240),                             // 4
			irotProp(3),                                    // 5
			isoBox("colr", []byte("nclx\x00\x01\x00\x0d")), // 6
			ispeProp(8064, 6048),                           // 7: a gain map larger than the photo
		},
		items: []heifItemSpec{
			{id: 1, typ: "grid", data: []byte{0, 0, 0, 1, 0x0F, 0xC0, 0x0B, 0xD0}, props: primaryProps},
			{id: 2, typ: "hvc1", data: make([]byte, 100), props: []int{2, 3}},
			{id: 3, typ: "hvc1", data: make([]byte, 100), props: []int{2, 3}},
			{id: 4, typ: "hvc1", data: make([]byte, 50), props: []int{2, 4}},
			{id: 5, typ: "Exif", data: append([]byte{0, 0, 0, 6}, exifOrientationPayload("MM", 6)...)},
			{id: 6, typ: "hvc1", data: make([]byte, 50), props: []int{2, 7}},
		},
	}
}

func TestHEICFixtures(t *testing.T) {
	for name, want := range map[string]Info{
		"iphone7-IMG_7702_small.heic": {Kind: HEIC, Width: 512, Height: 300},
		"libheif-grid-alpha.heic":     {Kind: HEIC, Width: 320, Height: 240},
	} {
		t.Run(name, func(t *testing.T) {
			data := fixture(t, name)
			info, err := Inspect(data, DefaultLimits)
			require.NoError(t, err)
			assert.Equal(t, want, info)
			_, _, _, err = Thumbnail(data, info, 320)
			require.ErrorIs(t, err, ErrNoThumbnail)
			_, err = Square(data, info, 64)
			require.ErrorIs(t, err, ErrNoThumbnail)

			// Cut anywhere, it is refused: a box or an item's bytes run past the end.
			for cut := 1; cut < len(data); cut += max(1, len(data)/97) {
				_, err := Inspect(data[:cut], DefaultLimits)
				require.Error(t, err, "cut at %d", cut)
				assertOneSentinel(t, err)
			}
		})
	}
}

// TestHEICSize: the primary item's own ispe, turned by irot and cropped by
// clap in the order they are associated; the largest ispe only when nothing
// is associated with the primary item.
func TestHEICSize(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec heifSpec
		w, h int
	}{
		{"the primary's ispe, not the larger gain map's", photoHEIF(1, 6), 4032, 3024},
		{"turned 270°", photoHEIF(1, 6, 5), 3024, 4032},
		{"ispe after colr", photoHEIF(6, 1), 4032, 3024},
		{"nothing associated: the largest ispe", photoHEIF(), 8064, 6048},
		{"turned 180°", func() heifSpec { s := photoHEIF(1, 8); s.props = append(s.props, irotProp(2)); return s }(), 4032, 3024},
		{"turned 90°", func() heifSpec { s := photoHEIF(1, 8); s.props = append(s.props, irotProp(1)); return s }(), 3024, 4032},
		{"cropped, then turned", func() heifSpec {
			s := photoHEIF(1, 8, 5)
			s.props = append(s.props, clapProp(4000, 3000))
			return s
		}(), 3000, 4000},
		{"a crop larger than the image is ignored", func() heifSpec {
			s := photoHEIF(1, 8)
			s.props = append(s.props, clapProp(5000, 3000))
			return s
		}(), 4032, 3024},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := Inspect(tc.spec.build(), DefaultLimits)
			require.NoError(t, err)
			assert.Equal(t, Info{Kind: HEIC, Width: tc.w, Height: tc.h}, info)
		})
	}
}

// TestHEICStructure: what Inspect refuses of a HEIC file's boxes.
func TestHEICStructure(t *testing.T) {
	good := photoHEIF(1, 6).build()
	withTop := func(b []byte, top ...[]byte) []byte { return append(bytes.Clone(b), bytes.Join(top, nil)...) }
	grown := bytes.Clone(good) // the last box (mdat) claims more than the file has
	mdat := bytes.LastIndex(grown, []byte("mdat")) - 4
	binary.BigEndian.PutUint32(grown[mdat:], binary.BigEndian.Uint32(grown[mdat:])+1)
	for _, tc := range []struct {
		name string
		data []byte
		err  error
	}{
		{"whole", good, nil},
		{"a free box after mdat", withTop(good, isoBox("free", make([]byte, 30))), nil},
		{"mdat of size 0: to the end", func() []byte {
			b := bytes.Clone(good)
			binary.BigEndian.PutUint32(b[mdat:], 0)
			return b
		}(), nil},
		{"mdat longer than the file", grown, ErrCorrupt},
		{"3 stray bytes at the end", withTop(good, []byte{1, 2, 3}), ErrCorrupt},
		{"no meta box", heifSpec{primary: 1, noMeta: true, items: photoHEIF().items}.build(), ErrCorrupt},
		{"not a picture's handler", func() []byte { s := photoHEIF(1); s.handler = "vide"; return s.build() }(), ErrCorrupt},
		{"the primary item missing", func() []byte { s := photoHEIF(1); s.primary = 9; return s.build() }(), ErrCorrupt},
		{"no size for the primary item", photoHEIF(6).build(), ErrCorrupt},
		{"an item past the end", func() []byte {
			s := photoHEIF(1)
			s.items[5].stretch = 1000
			return s.build()
		}(), ErrCorrupt},
		{"AVIF behind HEIC brands", func() []byte {
			s := photoHEIF(1)
			s.items[0].typ = "av01"
			return s.build()
		}(), ErrUnsupported},
		{"65,535 × 65,535", func() []byte {
			s := photoHEIF(1)
			s.props[0] = ispeProp(65535, 65535)
			return s.build()
		}(), ErrTooManyPixels},
		{"0 × 3024", func() []byte {
			s := photoHEIF(1)
			s.props[0] = ispeProp(0, 3024)
			return s.build()
		}(), ErrTooManyPixels},
		{"HTML in a free box", withTop(good, isoBox("free", []byte("<html><script>alert(1)</script>"))), ErrPolyglot},
		{"a script in the Exif item", func() []byte {
			s := photoHEIF(1)
			s.items[4].data = append(s.items[4].data, "<script>alert(1)</script>"...)
			return s.build()
		}(), ErrPolyglot},
		{"SVG in mdat bytes no item claims", func() []byte {
			s := photoHEIF(1)
			s.unused = []byte("<svg onload='alert(1)'>")
			return s.build()
		}(), ErrPolyglot},
		{"a PDF in the first 1024 bytes", func() []byte {
			s := photoHEIF(1)
			s.props = append(s.props, isoBox("xxxx", []byte("%PDF-1.4")))
			return s.build()
		}(), ErrPolyglot},
	} {
		t.Run(tc.name, func(t *testing.T) { requireInspect(t, tc.data, tc.err) })
	}
}

// TestHEICDeclaredTooMuch: counts in a file are bounded before they cost
// memory: an iloc whose offset and length fields have no bytes declares
// 65,535 extents in 10 bytes, and ids make items.
func TestHEICDeclaredTooMuch(t *testing.T) {
	ftyp := isoBox("ftyp", []byte("heic"), u32(0), []byte("mif1heic"))
	meta := func(iloc []byte) []byte {
		return isoFullBox("meta", 0, 0,
			isoFullBox("hdlr", 0, 0, u32(0), []byte("pict"), make([]byte, 12), []byte{0}),
			isoFullBox("pitm", 0, 0, u16(1)),
			iloc)
	}
	var bomb [][]byte
	for id := range 200 { // 200 items × 65,535 extents: 13 million extents in 2 KB
		bomb = append(bomb, u16(uint16(id+1)), u16(0), u16(65535))
	}
	extentBomb := isoFullBox("iloc", 0, 0, append([][]byte{{0x00, 0x00}, u16(200)}, bomb...)...)
	var ids [][]byte
	for id := range maxItems + 1 {
		ids = append(ids, u16(uint16(id+1)), u16(0), u16(0))
	}
	itemBomb := isoFullBox("iloc", 0, 0, append([][]byte{{0x44, 0x00}, u16(uint16(maxItems + 1))}, ids...)...)
	for name, iloc := range map[string][]byte{"extents": extentBomb, "items": itemBomb} {
		t.Run(name, func(t *testing.T) {
			data := append(append(bytes.Clone(ftyp), meta(iloc)...), isoBox("mdat", make([]byte, 16))...)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Inspect(data, DefaultLimits)
			runtime.ReadMemStats(&after)
			require.ErrorIs(t, err, ErrCorrupt)
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(16<<20))
		})
	}
}
