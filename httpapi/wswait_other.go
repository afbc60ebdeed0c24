//go:build !unix

package httpapi

import "net"

// readWaiter is the idle reader's wait (see wswait_unix.go); elsewhere the
// reader waits in coder/websocket's Read.
type readWaiter struct{}

func newReadWaiter(net.Conn) *readWaiter { return nil }

func (w *readWaiter) wait() {}
