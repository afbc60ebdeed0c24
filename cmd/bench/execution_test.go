package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The "before" of the per-field figures is read back from a report in
// either form this tool has printed: by default the one before issue 27.
func TestPerFieldFiguresReadBack(t *testing.T) {
	got, err := readBefore("")
	require.NoError(t, err)
	require.Equal(t, perField{cpuMicros: 3.6, bytes: 1169, allocs: 21.5}, *got)

	x := &execution{fields: 2}
	x.twice.cpu, x.twice.bytes, x.twice.allocs = 5000, 3000, 41
	var out bytes.Buffer
	x.print(&out, got)
	require.Contains(t, out.String(), "per field: cpu 2.50µs, 1500 bytes, 20.5 allocs")
	path := filepath.Join(t.TempDir(), "report.txt")
	require.NoError(t, os.WriteFile(path, out.Bytes(), 0o644))
	again, err := readBefore(path)
	require.NoError(t, err)
	require.Equal(t, perField{cpuMicros: 2.5, bytes: 1500, allocs: 20.5}, *again)

	_, err = readBefore(filepath.Join(t.TempDir(), "missing.txt"))
	require.Error(t, err)
}
