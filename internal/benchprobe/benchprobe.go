// Package benchprobe lets the benchmarks profile a server process they
// started. It is empty unless the binary is built with -tags benchprobe
// (BenchmarkLiveFanout's server); then SIGUSR1 and SIGUSR2 write profiles
// to ProfilePath (probe.go).
package benchprobe

import (
	"fmt"
	"os"
	"path/filepath"
)

// ProfilePath is where the probe of process pid writes a profile of the
// kind (cpu, heap: the heap after the last collection it was asked for).
func ProfilePath(pid int, kind string) string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("fracti-%d.%s.pprof", pid, kind))
}
