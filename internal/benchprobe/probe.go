//go:build benchprobe

package benchprobe

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"
)

// The benchmarks' probe, only in a binary built with -tags benchprobe
// (BenchmarkLiveFanout's server): SIGUSR1 collects garbage (twice, so that
// finalizers run and idle goroutines' stacks shrink), for the heap and
// stacks in use to be read honestly from /metrics after it, and writes a heap
// profile; SIGUSR2 starts
// a CPU profile, and the next one writes it to ProfilePath.
func init() {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGUSR1, syscall.SIGUSR2)
	go func() {
		var profile *os.File
		heaps := 0 // heap profiles written: each is kept as heap-<n> too
		for sig := range signals {
			switch {
			case sig == syscall.SIGUSR1:
				runtime.GC()
				runtime.GC()
				heaps++
				for _, kind := range []string{"heap", fmt.Sprintf("heap-%d", heaps)} {
					if f, err := os.Create(ProfilePath(os.Getpid(), kind)); err == nil {
						_ = pprof.Lookup("heap").WriteTo(f, 0)
						_ = f.Close()
					}
				}
			case profile == nil:
				f, err := os.Create(ProfilePath(os.Getpid(), "cpu"))
				if err == nil && pprof.StartCPUProfile(f) == nil {
					profile = f
				}
			default:
				pprof.StopCPUProfile()
				_ = profile.Close()
				profile = nil
			}
		}
	}()
}
