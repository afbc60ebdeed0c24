package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// memProfileRate is the allocation sampling rate while the server is
// profiled: one sample per 4 KB, fine enough for a few small allocations
// per request to show.
const memProfileRate = 4096

// startServerProfile starts the CPU profile of -server-profile (path ""
// profiles nothing) and returns what stops it and writes the allocation
// profile beside it.
func startServerProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	stopCPU, err := startCPUProfile(path + ".cpu")
	if err != nil {
		return nil, err
	}
	return func() {
		stopCPU()
		runtime.MemProfileRate = memProfileRate // the rate the samples were taken at, for their scaling
		f, err := os.Create(path + ".mem")
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: -server-profile:", err)
			return
		}
		defer f.Close()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			fmt.Fprintln(os.Stderr, "bench: -server-profile:", err)
		}
	}, nil
}

// profileServer wraps the server side's requests of one screen: their CPU
// samples carry the label screen=<name> (with every goroutine they start),
// and allocations are sampled only while one is served.
func profileServer(screen string, do func(context.Context, bool) error, allocs bool) func(context.Context, bool) error {
	labels := pprof.Labels("screen", screen)
	return func(ctx context.Context, check bool) error {
		var err error
		if allocs {
			runtime.MemProfileRate = memProfileRate
		}
		pprof.Do(ctx, labels, func(ctx context.Context) { err = do(ctx, check) })
		runtime.MemProfileRate = 0
		return err
	}
}
