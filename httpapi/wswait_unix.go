//go:build unix

package httpapi

import (
	"errors"
	"net"
	"syscall"
)

// readWaiter waits, on a shallow stack, until a connection has something
// to read. An idle connection's reader waits here rather than inside
// coder/websocket's Read, whose frames take more than a quarter of an
// 8 KiB stack: a collection then halves the idle reader's stack (it halves
// one only when less than a quarter of it is in use).
type readWaiter struct{ raw syscall.RawConn }

// newReadWaiter is conn's waiter; nil (no wait) for a connection that is
// not a socket of its own (TLS, a pipe in a test).
func newReadWaiter(conn net.Conn) *readWaiter {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return &readWaiter{raw: raw}
}

// wait returns once the socket has data (or an end, or an error) to read,
// reading none of it.
//
//go:noinline
func (w *readWaiter) wait() {
	_ = w.raw.Read(func(fd uintptr) bool {
		var b [1]byte
		_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return !errors.Is(err, syscall.EAGAIN) // data, the peer's end, or an error: read on
	})
}
