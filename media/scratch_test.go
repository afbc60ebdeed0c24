package media

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestScratch(t *testing.T) {
	files, _ := filepath.Glob("testdata/*")
	for _, f := range files {
		b, _ := os.ReadFile(f)
		st := time.Now()
		info, err := Inspect(b, DefaultLimits)
		t.Logf("%s: %+v %v (%v)", f, info, err, time.Since(st))
		if err == nil {
			_, w, h, err := Thumbnail(b, info, 320)
			t.Logf("   thumb %dx%d %v", w, h, err)
		}
	}
}
