package media

import (
	"bytes"
	"encoding/binary"
	"image/jpeg"
)

// jpegLayout is what a walk over a JPEG's segments finds.
type jpegLayout struct {
	frame       bool     // a frame header (SOFn) was found, and gave:
	width       int      // the image's size, as stored
	height      int      //
	end         int      // the offset just after the EOI marker
	orientation int      // the EXIF orientation, 1–8 (1 when there is none)
	meta        [][]byte // the APPn and COM segments' payloads
}

// inspectJPEG checks and describes a JPEG.
func inspectJPEG(data []byte, lim Limits) (Info, error) {
	// The size from the frame header first: the walk to it reads only
	// headers, so an image too large is refused before anything else.
	head, err := walkJPEG(data, true)
	if err != nil {
		return Info{}, err
	}
	if err := checkPixels(JPEG, head.width, head.height, lim); err != nil {
		return Info{}, err
	}
	l, err := walkJPEG(data, false)
	if err != nil {
		return Info{}, err
	}
	if err := checkImage(JPEG, data, l.meta, l.end); err != nil {
		return Info{}, err
	}
	// The walk made sure the scan data reaches an EOI, whatever the decoder
	// makes of a file cut inside its last scan (some draw the missing rows
	// grey); the decoder stops at EOI and never sees what follows.
	if _, err := jpeg.Decode(bytes.NewReader(data[:l.end])); err != nil {
		return Info{}, errorf(ErrCorrupt, "the JPEG image cannot be decoded (%v)", err)
	}
	w, h := orient(l.orientation, l.width, l.height)
	return Info{Kind: JPEG, Width: w, Height: h}, nil
}

// orient is the displayed size of a width×height image with an EXIF
// orientation: 5 to 8 turn it a quarter.
func orient(orientation, width, height int) (int, int) {
	if orientation >= 5 {
		return height, width
	}
	return width, height
}

// walkJPEG follows a JPEG's marker segments from SOI to EOI, through the
// entropy-coded data after each SOS, and collects its metadata. A file that
// ends before its EOI is ErrCorrupt. With untilFrame, it stops at the first
// frame header (SOFn), with the size it gives, and a file without one is
// ErrCorrupt.
func walkJPEG(b []byte, untilFrame bool) (jpegLayout, error) {
	l := jpegLayout{orientation: 1}
	cut := errorf(ErrCorrupt, "the JPEG image is cut short")
	i := 2 // after SOI
	for {
		// A marker: 0xFF (any number of them, the extra ones are fill bytes), then its code.
		if i >= len(b) {
			return l, cut
		}
		if b[i] != 0xFF {
			// Bytes where a marker should be: libjpeg and Go's decoder skip
			// them with a warning, and so does the walk, but they hold no
			// pixels, so they are searched as metadata.
			j := bytes.IndexByte(b[i:], 0xFF)
			if j < 0 {
				return l, cut
			}
			l.meta = append(l.meta, b[i:i+j])
			i += j
		}
		for i < len(b) && b[i] == 0xFF {
			i++
		}
		if i >= len(b) {
			return l, cut
		}
		marker := b[i]
		i++
		switch {
		case marker == 0xD9: // EOI
			if untilFrame {
				return l, errorf(ErrCorrupt, "the JPEG image has no frame header")
			}
			l.end = i
			return l, nil
		case marker == 0x01 || 0xD0 <= marker && marker <= 0xD7: // TEM, RSTn: no length
			continue
		case marker == 0x00 || marker == 0xD8:
			return l, errorf(ErrCorrupt, "the JPEG image has a misplaced marker FF %02X", marker)
		}
		if i+2 > len(b) {
			return l, cut
		}
		n := int(binary.BigEndian.Uint16(b[i:]))
		if n < 2 {
			return l, errorf(ErrCorrupt, "the JPEG image has a segment of length %d", n)
		}
		if i+n > len(b) {
			return l, cut
		}
		payload := b[i+2 : i+n]
		i += n
		switch {
		case isSOF(marker) && !l.frame:
			if len(payload) < 5 {
				return l, errorf(ErrCorrupt, "the JPEG image's frame header is cut short")
			}
			l.frame = true
			l.height, l.width = int(binary.BigEndian.Uint16(payload[1:])), int(binary.BigEndian.Uint16(payload[3:]))
			if untilFrame {
				return l, nil
			}
		case marker >= 0xE0 && marker <= 0xEF || marker == 0xFE: // APPn, COM
			l.meta = append(l.meta, payload)
			if marker == 0xE1 && l.orientation == 1 && bytes.HasPrefix(payload, []byte("Exif\x00\x00")) {
				l.orientation = exifOrientation(payload[6:])
			}
		case marker == 0xDA: // SOS: entropy-coded data up to the next marker that is not RSTn
			i = skipScan(b, i)
			if i < 0 {
				return l, cut
			}
		}
	}
}

// isSOF reports the start-of-frame markers: C0–CF but DHT (C4), JPG (C8)
// and DAC (CC).
func isSOF(m byte) bool {
	return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC
}

// skipScan returns the offset of the first marker after the entropy-coded
// data starting at i (FF 00 is a stuffed data byte, FF D0–D7 a restart
// marker inside the scan), or -1 if the data runs to the end of b.
func skipScan(b []byte, i int) int {
	for {
		j := bytes.IndexByte(b[i:], 0xFF)
		if j < 0 {
			return -1
		}
		i += j
		k := i + 1
		for k < len(b) && b[k] == 0xFF {
			k++
		}
		if k >= len(b) {
			return -1
		}
		if c := b[k]; c != 0x00 && (c < 0xD0 || c > 0xD7) {
			return k - 1
		}
		i = k + 1
	}
}

// exifOrientation reads tag 0x0112 (Orientation) from the first IFD of a
// TIFF structure (an Exif APP1 payload after "Exif\0\0"); 1 when it is
// missing, malformed or out of range.
func exifOrientation(tiff []byte) int {
	if len(tiff) < 8 {
		return 1
	}
	var order binary.ByteOrder
	switch string(tiff[:4]) {
	case "II*\x00":
		order = binary.LittleEndian
	case "MM\x00*":
		order = binary.BigEndian
	default:
		return 1
	}
	ifd := int64(order.Uint32(tiff[4:]))
	if ifd+2 > int64(len(tiff)) {
		return 1
	}
	count := int64(order.Uint16(tiff[ifd:]))
	for e := ifd + 2; e+12 <= int64(len(tiff)) && e < ifd+2+12*count; e += 12 {
		tag, typ, n := order.Uint16(tiff[e:]), order.Uint16(tiff[e+2:]), order.Uint32(tiff[e+4:])
		if tag != 0x0112 {
			continue
		}
		if typ != 3 || n != 1 { // SHORT, one value, held in the entry itself
			return 1
		}
		if v := int(order.Uint16(tiff[e+8:])); v >= 1 && v <= 8 {
			return v
		}
		return 1
	}
	return 1
}
