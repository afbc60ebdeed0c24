package media

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func peak(f func()) (time.Duration, uint64, uint64) {
	runtime.GC()
	var m0 runtime.MemStats
	runtime.ReadMemStats(&m0)
	var stop atomic.Bool
	var pk atomic.Uint64
	done := make(chan struct{})
	go func() {
		for !stop.Load() {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > pk.Load() {
				pk.Store(m.HeapAlloc)
			}
			time.Sleep(2 * time.Millisecond)
		}
		close(done)
	}()
	st := time.Now()
	f()
	d := time.Since(st)
	stop.Store(true)
	<-done
	var m1 runtime.MemStats
	runtime.ReadMemStats(&m1)
	return d, (pk.Load() - m0.HeapAlloc) >> 20, (m1.TotalAlloc - m0.TotalAlloc) >> 20
}

func TestScratch3(t *testing.T) {
	for _, p := range []testPDF{{pages: 200, xrefStream: true, imageBytes: 50_000}, {pages: 20000, xrefStream: true}, {pages: 20000}, {pages: 60000, xrefStream: true}} {
		b := p.bytes()
		var info Info
		var err error
		d, pk, tot := peak(func() { info, err = Inspect(b, DefaultLimits) })
		t.Logf("%+v size=%d: %+v %v %v peak=%dMB total=%dMB", p.pages, len(b), info, err, d, pk, tot)
	}
}
