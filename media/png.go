package media

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image/png"
	"io"
)

// maxPNGText bounds the text a PNG's compressed text chunks inflate to, all
// together: metadata that big is a decompression bomb, not a photo's.
const maxPNGText = 8 << 20

// inspectPNG checks and describes a PNG.
func inspectPNG(data []byte, lim Limits) (Info, error) {
	// IHDR's size first, read here: Go's decoder refuses a zero size as a
	// format error, and a size too large must be refused before it decodes.
	if len(data) < 24 || string(data[12:16]) != "IHDR" {
		return Info{}, errorf(ErrCorrupt, "the PNG image does not start with its header")
	}
	w, h := binary.BigEndian.Uint32(data[16:]), binary.BigEndian.Uint32(data[20:])
	if err := checkPixels(PNG, clampInt(w), clampInt(h), lim); err != nil {
		return Info{}, err
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return Info{}, errorf(ErrCorrupt, "the PNG header cannot be read (%v)", err)
	}
	end, meta, err := walkPNG(data)
	if err != nil {
		return Info{}, err
	}
	if err := checkImage(PNG, data, meta, end); err != nil {
		return Info{}, err
	}
	if _, err := png.Decode(bytes.NewReader(data[:end])); err != nil {
		return Info{}, errorf(ErrCorrupt, "the PNG image cannot be decoded (%v)", err)
	}
	return Info{Kind: PNG, Width: cfg.Width, Height: cfg.Height}, nil
}

// walkPNG follows a PNG's chunks from its signature to IEND, checking each
// one's checksum, and returns the offset just after IEND and the data of
// every chunk that holds no pixels (with compressed text inflated).
func walkPNG(b []byte) (end int, meta [][]byte, err error) {
	cut := errorf(ErrCorrupt, "the PNG image is cut short")
	text := 0 // bytes of text inflated so far
	for i := len(pngMagic); ; {
		if i+12 > len(b) {
			return 0, nil, cut
		}
		n := int64(binary.BigEndian.Uint32(b[i:]))
		if n > 1<<31-1 {
			return 0, nil, errorf(ErrCorrupt, "the PNG image has a chunk of length %d", n)
		}
		if int64(i)+12+n > int64(len(b)) {
			return 0, nil, cut
		}
		typ, payload := b[i+4:i+8], b[i+8:i+8+int(n)]
		if !isChunkType(typ) {
			return 0, nil, errorf(ErrCorrupt, "the PNG image has a chunk named %q", typ)
		}
		if crc32.ChecksumIEEE(b[i+4:i+8+int(n)]) != binary.BigEndian.Uint32(b[i+8+int(n):]) {
			return 0, nil, errorf(ErrCorrupt, "the PNG image's %s chunk has a wrong checksum", typ)
		}
		i += 12 + int(n)
		switch string(typ) {
		case "IEND":
			return i, meta, nil
		case "IDAT", "fdAT": // pixels (fdAT: an APNG frame's)
			continue
		}
		meta = append(meta, payload)
		if inflated := pngText(typ, payload); inflated != nil {
			t, err := inflate(inflated, maxPNGText-text)
			if err == errTooLarge {
				return 0, nil, errorf(ErrCorrupt, "the PNG image's text inflates to more than %d MB", maxPNGText>>20)
			}
			text += len(t)
			meta = append(meta, t)
		}
	}
}

// isChunkType reports a chunk type of four ASCII letters, as PNG requires.
func isChunkType(t []byte) bool {
	for _, c := range t {
		if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') {
			return false
		}
	}
	return true
}

// pngText returns the compressed text of a zTXt chunk or of a compressed
// iTXt chunk, or nil.
func pngText(typ, p []byte) []byte {
	k := bytes.IndexByte(p, 0) // after the keyword
	if k < 0 {
		return nil
	}
	switch string(typ) {
	case "zTXt": // keyword 0 method text
		if k+2 <= len(p) {
			return p[k+2:]
		}
	case "iTXt": // keyword 0 compressed method language 0 translated 0 text
		if k+3 > len(p) || p[k+1] != 1 {
			return nil
		}
		rest := p[k+3:]
		for range 2 { // the language tag and the translated keyword
			z := bytes.IndexByte(rest, 0)
			if z < 0 {
				return nil
			}
			rest = rest[z+1:]
		}
		return rest
	}
	return nil
}

// errTooLarge reports zlib data that inflates to more than allowed.
var errTooLarge = io.ErrShortBuffer

// inflate returns what zlib data inflates to, at most limit bytes
// (errTooLarge past that). Damaged data gives what could be inflated: PNG
// decoders skip a damaged text chunk, and what came out is still searched.
func inflate(z []byte, limit int) ([]byte, error) {
	r, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, nil
	}
	defer func() { _ = r.Close() }()
	out, _ := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if len(out) > limit {
		return nil, errTooLarge
	}
	return out, nil
}
