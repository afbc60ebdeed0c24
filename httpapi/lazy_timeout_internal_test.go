package httpapi

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A lazyTimeout behaves as context.WithTimeout's context: its deadline is
// set at once, it ends at the deadline when waited on, and it is cancelled
// once stopped, whether or not its timer was made.
func TestLazyTimeout(t *testing.T) {
	deadline := time.Now().Add(20 * time.Millisecond)
	waited := &lazyTimeout{Context: context.Background(), deadline: deadline}
	d, ok := waited.Deadline()
	require.True(t, ok)
	require.Equal(t, deadline, d)
	require.NoError(t, waited.Err())
	select {
	case <-waited.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the deadline passed and Done stayed open")
	}
	require.ErrorIs(t, waited.Err(), context.DeadlineExceeded)
	waited.stop()

	unused := &lazyTimeout{Context: context.Background(), deadline: time.Now().Add(time.Hour)}
	unused.stop()
	require.Nil(t, unused.cancel, "a timer was made for a context nothing waited on")
	require.ErrorIs(t, unused.Err(), context.Canceled)
	<-unused.Done()

	used := &lazyTimeout{Context: context.Background(), deadline: time.Now().Add(time.Hour)}
	require.NoError(t, used.Err())
	used.stop()
	require.ErrorIs(t, used.Err(), context.Canceled)
}
