package media

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPDFPages(t *testing.T) {
	for _, tc := range []struct {
		name  string
		data  []byte
		pages int
	}{
		{"pdfTeX, xref stream and object streams (fixture)", fixture(t, "pdflatex-4-pages.pdf"), 4},
		{"ImageMagick, classic xref (fixture)", fixture(t, "imagemagick-6-pages.pdf"), 6},
		{"Google Docs via Skia, classic xref (fixture)", fixture(t, "google-doc-skia.pdf"), 1},
		{"classic xref, 1 page", testPDF{pages: 1}.bytes(), 1},
		{"classic xref, 37 pages in 4 branches", testPDF{pages: 37}.bytes(), 37},
		{"xref stream, 1 page", testPDF{pages: 1, xrefStream: true}.bytes(), 1},
		{"xref stream, 123 pages in object streams", testPDF{pages: 123, xrefStream: true}.bytes(), 123},
		{"an incremental update adds a page", appendPage(testPDF{pages: 3}.bytes(), 3), 4},
		{"two updates", appendPage(appendPage(testPDF{pages: 12}.bytes(), 12), 13), 14},
		{"whitespace after %%EOF", append(testPDF{pages: 2}.bytes(), "\r\n\r\n   \n"...), 2},
		{"a mail gateway's bytes after %%EOF", append(testPDF{pages: 2}.bytes(), strings.Repeat("\x00", 900)...), 2},
		{"version 2.0", bytes.Replace(testPDF{pages: 2}.bytes(), []byte("%PDF-1.4"), []byte("%PDF-2.0"), 1), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := Inspect(tc.data, DefaultLimits)
			require.NoError(t, err)
			assert.Equal(t, Info{Kind: PDF, Pages: tc.pages}, info)
			_, _, _, err = Thumbnail(tc.data, info, 320)
			require.ErrorIs(t, err, ErrNoThumbnail)
		})
	}
}

// TestPDFRefused: damaged PDFs, and ones made to cost a lot to read.
func TestPDFRefused(t *testing.T) {
	two := testPDF{pages: 2}.bytes()
	replace := func(old, new string) []byte { return bytes.Replace(bytes.Clone(two), []byte(old), []byte(new), 1) }
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"no %%EOF", two[:len(two)-6]},
		{"%%EOF more than 1024 bytes before the end", append(bytes.Clone(two), make([]byte, 1100)...)},
		{"version 3", replace("%PDF-1.4", "%PDF-3.0")},
		{"no version", replace("%PDF-1.4", "%PDF-abc")},
		{"no pages", testPDF{pages: 0}.bytes()},
		{"a page tree that loops", replace("/Kids [3 0 R]", "/Kids [3 0 R 2 0 R]")},
		{"a /Kids that is not an array", replace("/Kids [3 0 R]", "/Kids 7")},
		{"no catalog", replace("/Root 1 0 R", "/Root 99 0 R")},
		{"cut in half, %%EOF kept", append(bytes.Clone(two[:len(two)/2]), "\n%%EOF\n"...)},
		{"garbage with a PDF's ends", []byte("%PDF-1.7\n" + strings.Repeat("\x8f\x02junk", 100) + "\n%%EOF\n")},
		{"password (fixture)", fixture(t, "libreoffice-password.pdf")},
		{"more objects than allowed", testPDF{pages: maxPDFObjects/2 + 10}.bytes()},
		{"more xref entries than allowed", func() []byte {
			// A table that declares maxXRefTableEntries+1 free objects, which have no bytes at all.
			i := bytes.Index(two, []byte("xref\n"))
			var b bytes.Buffer
			b.Write(two[:i])
			fmt.Fprintf(&b, "xref\n0 %d\n", maxXRefTableEntries+1)
			b.WriteString(strings.Repeat("0000000000 65535 f \n", maxXRefTableEntries+1))
			b.Write(two[bytes.Index(two, []byte("trailer")):])
			return b.Bytes()
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := Inspect(tc.data, DefaultLimits)
			require.ErrorIs(t, err, ErrCorrupt)
			assert.Equal(t, Info{}, info)
			assertOneSentinel(t, err)
		})
	}
}

// TestPDFCountsPagesInParallel: pdfcpu is used from many requests at once
// (run with -race).
func TestPDFCountsPagesInParallel(t *testing.T) {
	files := [][]byte{fixture(t, "pdflatex-4-pages.pdf"), fixture(t, "imagemagick-6-pages.pdf"), testPDF{pages: 30, xrefStream: true}.bytes()}
	want := []int{4, 6, 30}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 5 {
				k := (g + i) % len(files)
				info, err := Inspect(files[k], DefaultLimits)
				assert.NoError(t, err)
				assert.Equal(t, want[k], info.Pages)
			}
		})
	}
	wg.Wait()
}

// TestPDF10MBMemory: a 10 MB PDF (200 pages of images, object streams, an
// xref stream) is read without holding its images decoded: pdfcpu allocates
// about twice the file, not hundreds of megabytes.
func TestPDF10MBMemory(t *testing.T) {
	data := pdf10MB()
	require.Greater(t, len(data), 10_000_000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	info, err := Inspect(data, DefaultLimits)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.Equal(t, 200, info.Pages)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "bytes allocated")
}
