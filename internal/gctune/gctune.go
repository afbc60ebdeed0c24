// Package gctune sets the garbage collector's defaults for a request
// server: the server (and cmd/bench, which measures it) applies them at
// start unless the environment sets GOGC or GOMEMLIMIT itself.
//
// Go's defaults (GOGC=100, no memory limit) collect whenever the heap has
// doubled over what survived the last collection. A request server's live
// heap is small (caches, connections) while every request allocates a few
// megabytes that die when it ends, so at GOGC=100 it collects very often
// for little: about a tenth of the server's CPU went to the collector. A
// larger GOGC collects less often; a memory limit (GOMEMLIMIT) below the
// container's keeps the larger heap from ever running it out of memory, as
// the collector works harder as the heap nears the limit.
package gctune

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// DefaultGOGC is the collector's target when GOGC is unset: the heap may
// grow to five times what survived the last collection before the next.
const DefaultGOGC = 400

// LimitShare is the share of the container's memory limit (its cgroup's)
// that becomes the default GOMEMLIMIT; the rest is for what the Go heap
// does not count (stacks of goroutines are counted; the binary, C
// libraries and the kernel's buffers are not).
const LimitShare = 0.8

// CgroupMemoryFiles are where the container's memory limit is read: cgroup
// v2, then v1. "max" or a missing file means no limit.
var CgroupMemoryFiles = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// Settings are what Apply did.
type Settings struct {
	// GOGC is the collector's target in effect; GOGCDefault whether it is
	// this package's default (GOGC was unset).
	GOGC        int
	GOGCDefault bool
	// MemoryLimit is the soft memory limit in bytes this package set from
	// the container's limit (0: none set here: GOMEMLIMIT was set, or the
	// container has no limit).
	MemoryLimit int64
}

// Apply sets DefaultGOGC when gogc (the GOGC variable) is empty, and a
// memory limit of LimitShare of the container's when gomemlimit (the
// GOMEMLIMIT variable) is empty and the container has one. A variable that
// is set was applied by the Go runtime at start and is left as it is.
func Apply(gogc, gomemlimit string) Settings {
	var s Settings
	if gogc == "" {
		debug.SetGCPercent(DefaultGOGC)
		s.GOGC, s.GOGCDefault = DefaultGOGC, true
	} else {
		s.GOGC = debug.SetGCPercent(-1) // read it back, and restore it below
		debug.SetGCPercent(s.GOGC)
	}
	if gomemlimit == "" {
		if limit := containerLimit(); limit > 0 {
			s.MemoryLimit = int64(float64(limit) * LimitShare)
			debug.SetMemoryLimit(s.MemoryLimit)
		}
	}
	return s
}

// containerLimit is the cgroup's memory limit in bytes, 0 when there is
// none or it cannot be read.
func containerLimit() int64 {
	for _, f := range CgroupMemoryFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		v := strings.TrimSpace(string(b))
		n, err := strconv.ParseInt(v, 10, 64)
		// cgroup v1 writes a huge number (close to MaxInt64) for no limit.
		if err != nil || n <= 0 || n >= 1<<60 {
			return 0
		}
		return n
	}
	return 0
}
