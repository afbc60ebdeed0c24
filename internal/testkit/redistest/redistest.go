// Package redistest runs a throwaway redis-server for a test: on a free
// port, in memory (no snapshot, no append-only file), stopped when the test
// ends. scripts/test.sh installs redis-server when it is missing.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// Server is a running redis-server.
type Server struct {
	t    testing.TB
	Port int
	cmd  *exec.Cmd
}

// Start runs a redis-server until the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &Server{t: t, Port: port}
	s.Restart()
	t.Cleanup(s.Kill)
	return s
}

// URL is the server's LIVE_BROKER.
func (s *Server) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", s.Port) }

// Kill stops the server at once (SIGKILL), as a crash would.
func (s *Server) Kill() {
	if s.cmd != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

// Restart starts the server again on the same port and waits until it answers.
func (s *Server) Restart() {
	s.t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		s.t.Fatal("redis-server is missing: apt-get install -y redis-server (scripts/test.sh does it as root)")
	}
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(s.Port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.cmd = cmd
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", s.Port), 200*time.Millisecond); err == nil {
			fmt.Fprint(c, "PING\r\n")
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if line == "+PONG\r\n" {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatal("redis-server did not start")
}
