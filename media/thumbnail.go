package media

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"
)

// jpegQuality is the quality thumbnails and avatars are encoded at: small
// files, no blocking visible at their sizes.
const jpegQuality = 85

// errWrongInfo reports an Info that is not the one Inspect gave for the bytes.
var errWrongInfo = errors.New("media: the Info given does not describe these bytes")

// Thumbnail re-encodes a JPEG, PNG or WebP as a JPEG whose longest side is at
// most maxSide pixels (a smaller image keeps its size: never upscaled), turned
// as its EXIF orientation says, transparency flattened onto white. width and
// height are the thumbnail's. info must be what Inspect returned for data.
// HEIC, PDF and animated WebP (which no Go package here decodes) give
// ErrNoThumbnail.
func Thumbnail(data []byte, info Info, maxSide int) (jpegData []byte, width, height int, err error) {
	if maxSide < 1 {
		return nil, 0, 0, fmt.Errorf("media: thumbnail side %d is not positive", maxSide)
	}
	src, orientation, err := decodeImage(data, info)
	if err != nil {
		return nil, 0, 0, err
	}
	width, height = fit(info.Width, info.Height, maxSide)
	sw, sh := width, height // the size before turning
	if orientation >= 5 {
		sw, sh = height, width
	}
	out := reorient(scale(src, src.Bounds(), sw, sh), orientation)
	b, err := encodeJPEG(out)
	return b, width, height, err
}

// Square re-encodes an image as a side×side JPEG: the largest centred square
// of it, scaled up or down to side, turned as its EXIF orientation says,
// transparency flattened onto white (for avatars). info must be what Inspect
// returned for data; HEIC, PDF and animated WebP give ErrNoThumbnail.
func Square(data []byte, info Info, side int) ([]byte, error) {
	if side < 1 {
		return nil, fmt.Errorf("media: square side %d is not positive", side)
	}
	src, orientation, err := decodeImage(data, info)
	if err != nil {
		return nil, err
	}
	b := src.Bounds()
	s := min(b.Dx(), b.Dy())
	x0, y0 := b.Min.X+(b.Dx()-s)/2, b.Min.Y+(b.Dy()-s)/2
	return encodeJPEG(reorient(scale(src, image.Rect(x0, y0, x0+s, y0+s), side, side), orientation))
}

// decodeImage decodes an image Inspect accepted, and returns its EXIF
// orientation (1 for anything but a JPEG).
func decodeImage(data []byte, info Info) (image.Image, int, error) {
	switch info.Kind {
	case JPEG, PNG, WebP:
	case HEIC, PDF:
		return nil, 0, errorf(ErrNoThumbnail, "%s files are not decoded here", kindName(info.Kind))
	default:
		return nil, 0, errWrongInfo
	}
	if kind, err := Sniff(data[:min(len(data), SniffLen)]); err != nil || kind != info.Kind {
		return nil, 0, errWrongInfo
	}
	var (
		img         image.Image
		cfg         image.Config
		orientation = 1
		err         error
	)
	switch info.Kind {
	case JPEG:
		var l jpegLayout
		if l, err = walkJPEG(data, false); err == nil {
			orientation = l.orientation
			if matches(l.width, l.height, orientation, info) {
				img, err = jpeg.Decode(bytes.NewReader(data[:l.end]))
			}
		}
	case PNG:
		if cfg, err = png.DecodeConfig(bytes.NewReader(data)); err == nil && matches(cfg.Width, cfg.Height, 1, info) {
			img, err = png.Decode(bytes.NewReader(data))
		}
	case WebP:
		var l webpLayout
		if l, err = walkWebP(data); err == nil {
			if l.animated {
				return nil, 0, errorf(ErrNoThumbnail, "animated WebP images are not decoded here")
			}
			if cfg, err = webp.DecodeConfig(bytes.NewReader(data)); err == nil && matches(cfg.Width, cfg.Height, 1, info) {
				img, err = webp.Decode(bytes.NewReader(data[:l.end]))
			}
		}
	}
	if err != nil {
		return nil, 0, errorf(ErrCorrupt, "the %s image cannot be decoded (%v)", kindName(info.Kind), err)
	}
	if img == nil {
		return nil, 0, errWrongInfo
	}
	return img, orientation, nil
}

// matches reports whether a header's size, turned, is the one info gives:
// the check that info came from Inspect of these bytes, so that no image
// bigger than Inspect's limits is decoded here.
func matches(width, height, orientation int, info Info) bool {
	w, h := orient(orientation, width, height)
	return w == info.Width && h == info.Height
}

// fit is the size of a w×h image scaled down, keeping its shape, so that its
// longest side is at most maxSide (a smaller one keeps its size).
func fit(w, h, maxSide int) (int, int) {
	if w <= maxSide && h <= maxSide {
		return w, h
	}
	if w >= h {
		return maxSide, max(1, int(math.Round(float64(h)*float64(maxSide)/float64(w))))
	}
	return max(1, int(math.Round(float64(w)*float64(maxSide)/float64(h)))), maxSide
}

// scale draws the part r of src into a new w×h image on white, with a
// Catmull-Rom filter (sharp, and without aliasing when shrinking a lot, as
// x/image/draw widens the kernel with the ratio). A photo is first averaged
// down by a whole factor (see prescale).
func scale(src image.Image, r image.Rectangle, w, h int) *image.RGBA {
	src, r = prescale(src, r, w, h)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(dst, dst.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	op := draw.Over
	if opaque(src) {
		op = draw.Src
	}
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, r, op, nil)
	return dst
}

// prescale averages blocks of k×k pixels of src's part r, k being half the
// ratio of r to the target, when that is 2 or more: the filter that follows
// then reads a quarter of a million pixels instead of twelve million (for a
// 12 MP photo's thumbnail, a quarter of the time and 25 MB less), and what
// it reads is still at least twice the target's size, which Catmull-Rom
// brings down as sharply as from the original.
func prescale(src image.Image, r image.Rectangle, w, h int) (image.Image, image.Rectangle) {
	k := min(r.Dx()/w, r.Dy()/h) / 2
	if k < 2 {
		return src, r
	}
	if m, ok := src.(*image.YCbCr); ok {
		return shrinkYCbCr(m, r, k)
	}
	return shrinkRGBA(src, r, k)
}

// shrinkYCbCr box-averages a YCbCr image (a JPEG's, a lossy WebP's) in its
// own colour space.
func shrinkYCbCr(m *image.YCbCr, r image.Rectangle, k int) (*image.YCbCr, image.Rectangle) {
	dst := image.NewYCbCr(shrunk(r, k), image.YCbCrSubsampleRatio444)
	eachBlock(r, k, func(ox, oy int, b image.Rectangle) {
		var sy, sb, sr int
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := m.Y[m.YOffset(b.Min.X, y):]
			for x := b.Min.X; x < b.Max.X; x++ {
				sy += int(row[x-b.Min.X])
				c := m.COffset(x, y)
				sb += int(m.Cb[c])
				sr += int(m.Cr[c])
			}
		}
		n := b.Dx() * b.Dy()
		i := oy*dst.YStride + ox
		dst.Y[i], dst.Cb[i], dst.Cr[i] = uint8((sy+n/2)/n), uint8((sb+n/2)/n), uint8((sr+n/2)/n)
	})
	return dst, dst.Rect
}

// shrinkRGBA box-averages any other image in premultiplied RGBA (so that
// transparent pixels lend no colour to their neighbours).
func shrinkRGBA(src image.Image, r image.Rectangle, k int) (*image.RGBA, image.Rectangle) {
	at := premultiplied(src)
	dst := image.NewRGBA(shrunk(r, k))
	eachBlock(r, k, func(ox, oy int, b image.Rectangle) {
		var s [4]uint32
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				p := at(x, y)
				s[0], s[1], s[2], s[3] = s[0]+p[0], s[1]+p[1], s[2]+p[2], s[3]+p[3]
			}
		}
		n := uint32(b.Dx() * b.Dy())
		i := dst.PixOffset(ox, oy)
		for c := range 4 {
			dst.Pix[i+c] = uint8((s[c] + n/2) / n)
		}
	})
	return dst, dst.Rect
}

// shrunk is the bounds of r shrunk k times (a partial block at the right or
// bottom edge makes a pixel too).
func shrunk(r image.Rectangle, k int) image.Rectangle {
	return image.Rect(0, 0, (r.Dx()+k-1)/k, (r.Dy()+k-1)/k)
}

// eachBlock calls f with each k×k block of r, clipped to r, and the pixel
// of shrunk(r, k) it becomes.
func eachBlock(r image.Rectangle, k int, f func(ox, oy int, block image.Rectangle)) {
	out := shrunk(r, k)
	for oy := range out.Dy() {
		for ox := range out.Dx() {
			x0, y0 := r.Min.X+ox*k, r.Min.Y+oy*k
			f(ox, oy, image.Rect(x0, y0, min(x0+k, r.Max.X), min(y0+k, r.Max.Y)))
		}
	}
}

// premultiplied reads an image's pixels as premultiplied 8-bit RGBA, from
// the pixel arrays of the types PNG decodes to most (screenshots are RGBA
// or NRGBA), through At for the rest.
func premultiplied(src image.Image) func(x, y int) [4]uint32 {
	switch m := src.(type) {
	case *image.RGBA:
		return func(x, y int) [4]uint32 {
			p := m.Pix[m.PixOffset(x, y):]
			return [4]uint32{uint32(p[0]), uint32(p[1]), uint32(p[2]), uint32(p[3])}
		}
	case *image.NRGBA:
		return func(x, y int) [4]uint32 {
			p := m.Pix[m.PixOffset(x, y):]
			a := uint32(p[3])
			return [4]uint32{(uint32(p[0])*a + 127) / 255, (uint32(p[1])*a + 127) / 255, (uint32(p[2])*a + 127) / 255, a}
		}
	case *image.Gray:
		return func(x, y int) [4]uint32 {
			v := uint32(m.Pix[m.PixOffset(x, y)])
			return [4]uint32{v, v, v, 255}
		}
	}
	return func(x, y int) [4]uint32 {
		r, g, b, a := src.At(x, y).RGBA()
		return [4]uint32{r >> 8, g >> 8, b >> 8, a >> 8}
	}
}

// opaque reports images that have no alpha to flatten, cheaply.
func opaque(img image.Image) bool {
	switch img.(type) {
	case *image.YCbCr, *image.Gray, *image.Gray16, *image.CMYK:
		return true
	}
	if o, ok := img.(interface{ Opaque() bool }); ok {
		return o.Opaque()
	}
	return false
}

// reorient turns and flips an image as an EXIF orientation says its stored
// pixels are to be displayed (orientations 5–8 swap width and height).
func reorient(src *image.RGBA, orientation int) *image.RGBA {
	if orientation <= 1 || orientation > 8 {
		return src
	}
	w, h := src.Rect.Dx(), src.Rect.Dy()
	dw, dh := w, h
	if orientation >= 5 {
		dw, dh = h, w
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := range dh {
		for x := range dw {
			var sx, sy int
			switch orientation {
			case 2:
				sx, sy = w-1-x, y
			case 3:
				sx, sy = w-1-x, h-1-y
			case 4:
				sx, sy = x, h-1-y
			case 5:
				sx, sy = y, x
			case 6:
				sx, sy = y, h-1-x
			case 7:
				sx, sy = w-1-y, h-1-x
			case 8:
				sx, sy = w-1-y, x
			}
			si, di := src.PixOffset(sx, sy), dst.PixOffset(x, y)
			copy(dst.Pix[di:di+4], src.Pix[si:si+4])
		}
	}
	return dst
}

// encodeJPEG encodes an image as a baseline JPEG with no metadata (the
// orientation is already applied, and nothing of the upload is carried over).
func encodeJPEG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: jpegQuality}); err != nil {
		return nil, fmt.Errorf("media: encoding the JPEG: %w", err)
	}
	return buf.Bytes(), nil
}
