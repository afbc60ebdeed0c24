package media

import "testing"

func BenchmarkScratchPDF(b *testing.B) {
	data := testPDF{pages: 20000}.bytes()
	b.ReportAllocs()
	for b.Loop() {
		Inspect(data, DefaultLimits)
	}
}
