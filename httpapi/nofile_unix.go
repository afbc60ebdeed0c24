//go:build unix

package httpapi

import "syscall"

// openFileLimit is the process's file descriptor limit (its soft
// RLIMIT_NOFILE), or 0 when it cannot be read.
func openFileLimit() uint64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0
	}
	return uint64(l.Cur)
}
