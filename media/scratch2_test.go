package media

import (
	"bytes"
	"image/jpeg"
	"image/png"
	"os"
	"testing"
)

func TestScratch2(t *testing.T) {
	b, _ := os.ReadFile("testdata/samsung-galaxy-s-orientation6.jpg")
	info, _ := Inspect(b, DefaultLimits)
	th, _, _, _ := Thumbnail(b, info, 320)
	img, _ := jpeg.Decode(bytes.NewReader(th))
	f, _ := os.Create("/tmp/fx/galaxy-thumb.png")
	png.Encode(f, img)
	f.Close()
	sq, _ := Square(b, info, 128)
	img, _ = jpeg.Decode(bytes.NewReader(sq))
	f, _ = os.Create("/tmp/fx/galaxy-square.png")
	png.Encode(f, img)
	f.Close()
	raw, _ := jpeg.Decode(bytes.NewReader(b))
	f, _ = os.Create("/tmp/fx/galaxy-raw.png")
	png.Encode(f, raw)
	f.Close()
}
