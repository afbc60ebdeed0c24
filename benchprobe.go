//go:build benchprobe

package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"syscall"
)

// The benchmarks' probe, only in a binary built with -tags benchprobe
// (BenchmarkLiveFanout's server): SIGUSR1 collects garbage (twice, so that
// finalizers run and idle goroutines' stacks shrink), for the heap and
// stacks in use to be read honestly from /metrics after it; SIGUSR2 starts
// a CPU profile, and the next one writes it to benchProfilePath.
func init() {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGUSR1, syscall.SIGUSR2)
	go func() {
		var profile *os.File
		for sig := range signals {
			switch {
			case sig == syscall.SIGUSR1:
				runtime.GC()
				runtime.GC()
				fmt.Fprintln(os.Stderr, "benchprobe: collected")
			case profile == nil:
				f, err := os.Create(benchProfilePath(os.Getpid()))
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

// benchProfilePath is where the probe of process pid writes its CPU profile.
func benchProfilePath(pid int) string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("fracti-%d.cpu.pprof", pid))
}
