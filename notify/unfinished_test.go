package notify_test

import (
	"strings"
	"testing"
	"time"
)

// TestNotifierReportsWhatItHasNotSent: a batch waiting for its window (or
// being sent) is the notifier's low-water mark for the stream's
// checkpoints; once it is sent nothing is unfinished.
func TestNotifierReportsWhatItHasNotSent(t *testing.T) {
	e := newEnv(t, 1, time.Second)
	n := e.nots[0]
	g := e.group()
	e.eventually(func() bool { _, busy := n.Unfinished(); return !busy }, "the group's setup is sent")
	before := time.Now()
	e.expense(e.stores[0], g, ann, "12.00", "waiting;", ann, boris)
	e.eventually(func() bool { since, busy := n.Unfinished(); return busy && !since.Before(before) }, "taken, not sent")
	e.eventually(func() bool { return strings.Contains(strings.Join(e.to(chat), ""), "waiting;") }, "sent")
	e.eventually(func() bool { _, busy := n.Unfinished(); return !busy }, "nothing unfinished once sent")
}
