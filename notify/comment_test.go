package notify_test

import (
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// Comments are activity events the notifier does not tell: it reads them
// from the stream like any event and passes over them (they are not
// notable), so a thread never floods the chat, and what follows is sent as
// usual.
func TestCommentsAreNotNotified(t *testing.T) {
	e := newEnv(t, 1, 300*time.Millisecond)
	g := e.group()
	s := e.stores[0]
	x := e.expense(s, g, ann, "3.00", "bread;", ann)
	c, err := s.AddComment(ctx, x.Ref(), store.Comment{AuthorID: boris, AuthorName: "Boris", Body: "whose bread?"})
	require.NoError(t, err)
	_, err = s.DeleteComment(ctx, c, boris)
	require.NoError(t, err)
	e.expense(s, g, ann, "2.00", "milk;", ann)

	e.eventually(func() bool { return strings.Contains(strings.Join(e.to(chat), "\n"), "milk;") }, "the expense after the comments told")
	time.Sleep(3 * e.window) // a message about a comment would come within a window
	all := strings.Join(e.to(chat), "\n")
	require.Equal(t, 1, strings.Count(all, "bread;"))
	for _, m := range e.sentNow() {
		require.NotContains(t, m.Text, "whose bread")
	}
	require.Empty(t, e.refusedNow())
}
