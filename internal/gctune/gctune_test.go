package gctune

import (
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

// withCgroup points the limit files at one holding content ("" for none)
// and restores the collector's settings afterwards.
func withCgroup(t *testing.T, content string) {
	f := filepath.Join(t.TempDir(), "memory.max")
	if content != "" {
		require.NoError(t, os.WriteFile(f, []byte(content), 0o644))
	}
	saved := CgroupMemoryFiles
	CgroupMemoryFiles = []string{f}
	gogc := debug.SetGCPercent(-1)
	debug.SetGCPercent(gogc)
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		CgroupMemoryFiles = saved
		debug.SetGCPercent(gogc)
		debug.SetMemoryLimit(limit)
	})
}

func TestApply(t *testing.T) {
	for _, tc := range []struct {
		name, cgroup, gogc, gomemlimit string
		want                           Settings
	}{
		{"defaults in a container of 1 GiB", "1073741824\n", "", "", Settings{GOGC: DefaultGOGC, GOGCDefault: true, MemoryLimit: 858993459}},
		{"no container limit: no memory limit", "max\n", "", "", Settings{GOGC: DefaultGOGC, GOGCDefault: true}},
		{"no cgroup file", "", "", "", Settings{GOGC: DefaultGOGC, GOGCDefault: true}},
		{"cgroup v1 without a limit", "9223372036854771712", "", "", Settings{GOGC: DefaultGOGC, GOGCDefault: true}},
		{"GOGC and GOMEMLIMIT set: left as they are", "1073741824", "150", "500MiB", Settings{GOGC: 150}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withCgroup(t, tc.cgroup)
			if tc.gogc != "" {
				debug.SetGCPercent(150) // as the runtime would have from GOGC=150
			}
			debug.SetMemoryLimit(math.MaxInt64)
			got := Apply(tc.gogc, tc.gomemlimit)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.want.GOGC, debug.SetGCPercent(-1))
			debug.SetGCPercent(tc.want.GOGC)
			wantLimit := tc.want.MemoryLimit
			if wantLimit == 0 {
				wantLimit = math.MaxInt64
			}
			require.Equal(t, wantLimit, debug.SetMemoryLimit(-1))
		})
	}
}
