package live

import (
	"context"
	"sync"
	"time"
)

// memberCheckTimeout bounds a shared membership read: it serves several
// subscribers, so no one subscriber's context may end it.
const memberCheckTimeout = 10 * time.Second

// memberChecks coalesces the membership checks of new subscriptions to the
// same group. When clients reconnect together (a deploy, a network blip)
// thousands of subscriptions start at once; each used to make its own
// read. A check never waits for a timer: the first reads at once, and the
// checks that arrive while a read is in flight share the next one, which
// starts after all of them arrived, so its strongly consistent read sees
// at least what each of their own reads would have seen.
type memberChecks struct {
	members Members
	mu      sync.Mutex
	// next holds the groups with a read in flight, each with the checks
	// waiting for its next read (nil: none yet).
	next map[string]*checkBatch
}

// checkBatch is one read of some users' membership.
type checkBatch struct {
	users  []string
	done   chan struct{} // closed when active and err are set
	active map[string]bool
	err    error
}

// isActive reports whether the user is an active member of the group.
func (c *memberChecks) isActive(ctx context.Context, groupID, userID string) (bool, error) {
	c.mu.Lock()
	if c.next == nil {
		c.next = map[string]*checkBatch{}
	}
	b, reading := c.next[groupID]
	switch {
	case !reading:
		b = &checkBatch{users: []string{userID}, done: make(chan struct{})}
		c.next[groupID] = nil
		c.mu.Unlock()
		go c.read(groupID, b)
	case b == nil:
		b = &checkBatch{users: []string{userID}, done: make(chan struct{})}
		c.next[groupID] = b
		c.mu.Unlock()
	default:
		b.users = append(b.users, userID)
		c.mu.Unlock()
	}
	select {
	case <-b.done:
		return b.active[userID], b.err
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// read makes the batch's read, then the read of the checks that arrived
// meanwhile, until none is waiting.
func (c *memberChecks) read(groupID string, b *checkBatch) {
	for b != nil {
		ctx, cancel := context.WithTimeout(context.Background(), memberCheckTimeout)
		b.active, b.err = c.members.ActiveMembers(ctx, groupID, b.users)
		cancel()
		close(b.done)
		c.mu.Lock()
		b = c.next[groupID]
		if b == nil {
			delete(c.next, groupID)
		} else {
			c.next[groupID] = nil
		}
		c.mu.Unlock()
	}
}
