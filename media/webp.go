package media

import (
	"bytes"
	"encoding/binary"

	"golang.org/x/image/webp"
)

// webpLayout is what a walk over a WebP's RIFF chunks finds.
type webpLayout struct {
	end      int      // the offset just after the RIFF chunk
	animated bool     // VP8X's animation flag: frames x/image cannot decode
	meta     [][]byte // chunks that hold no pixels (EXIF, XMP, ICCP, unknown ones)
}

// inspectWebP checks and describes a WebP.
func inspectWebP(data []byte, lim Limits) (Info, error) {
	cfg, err := webp.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return Info{}, errorf(ErrCorrupt, "the WebP header cannot be read (%v)", err)
	}
	if err := checkPixels(WebP, cfg.Width, cfg.Height, lim); err != nil {
		return Info{}, err
	}
	l, err := walkWebP(data)
	if err != nil {
		return Info{}, err
	}
	if err := checkImage(WebP, data, l.meta, l.end); err != nil {
		return Info{}, err
	}
	// x/image decodes still images only; an animation's frames were checked
	// for their chunk sizes alone.
	if !l.animated {
		if _, err := webp.Decode(bytes.NewReader(data[:l.end])); err != nil {
			return Info{}, errorf(ErrCorrupt, "the WebP image cannot be decoded (%v)", err)
		}
	}
	return Info{Kind: WebP, Width: cfg.Width, Height: cfg.Height}, nil
}

// walkWebP follows a WebP's RIFF chunks: the RIFF size must fit the file,
// each chunk must fit the RIFF, and the first chunk must be VP8, VP8L or VP8X.
func walkWebP(b []byte) (webpLayout, error) {
	var l webpLayout
	size := int64(binary.LittleEndian.Uint32(b[4:]))
	if size < 4 {
		return l, errorf(ErrCorrupt, "the WebP image's RIFF size is %d", size)
	}
	if 8+size > int64(len(b)) {
		return l, errorf(ErrCorrupt, "the WebP image is cut short")
	}
	l.end = 8 + int(size)
	for i, first := 12, true; i < l.end; first = false {
		if i+8 > l.end {
			return l, errorf(ErrCorrupt, "the WebP image has a chunk cut short")
		}
		fourcc, n := string(b[i:i+4]), int64(binary.LittleEndian.Uint32(b[i+4:]))
		if int64(i)+8+n > int64(l.end) {
			return l, errorf(ErrCorrupt, "the WebP image's %q chunk runs past its end", fourcc)
		}
		payload := b[i+8 : i+8+int(n)]
		i += 8 + int(n) + int(n&1) // chunks are padded to an even size
		switch fourcc {
		case "VP8 ", "VP8L", "ALPH", "ANMF": // pixels, or frames of them
		case "VP8X":
			if len(payload) >= 1 && payload[0]&0x02 != 0 {
				l.animated = true
			}
		default: // EXIF, "XMP ", ICCP, ANIM and chunks no decoder knows
			l.meta = append(l.meta, payload)
		}
		if first && fourcc != "VP8 " && fourcc != "VP8L" && fourcc != "VP8X" {
			return l, errorf(ErrCorrupt, "the WebP image starts with a %q chunk", fourcc)
		}
	}
	return l, nil
}
