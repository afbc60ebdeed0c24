package live

import (
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func evs(group string, seqs ...int64) []store.Event {
	out := make([]store.Event, len(seqs))
	for i, s := range seqs {
		out[i] = store.Event{GroupID: group, Seq: s}
	}
	return out
}

func seqsOf(events []store.Event) []int64 {
	out := []int64{}
	for _, ev := range events {
		out = append(out, ev.Seq)
	}
	return out
}

func TestDedupPassesEachEventOnceInAnyOrder(t *testing.T) {
	d := NewDedup(4, 0)
	require.Equal(t, []int64{5}, seqsOf(d.Fresh(evs("g", 5))), "the writer's own commit")
	require.Equal(t, []int64{3, 4, 6}, seqsOf(d.Fresh(evs("g", 3, 4, 5, 6))), "the stream: 3 and 4 came from another writer, later")
	require.Equal(t, []int64{5}, seqsOf(d.Fresh(evs("h", 5))), "another group has its own numbers")
	require.Empty(t, d.Fresh(evs("g", 6, 3)))
	require.Equal(t, []int64{7}, seqsOf(d.Fresh(evs("g", 7))))
	require.Equal(t, []int64{5}, seqsOf(d.Fresh(evs("g", 5, 6))), "only the last 4 are kept: 5 was forgotten")
}

func TestDedupForgetsEveryGroupPastItsBound(t *testing.T) {
	d := NewDedup(0, 2)
	d.Fresh(evs("a", 1))
	d.Fresh(evs("b", 1))
	d.Fresh(evs("c", 1))
	require.Equal(t, []int64{1}, seqsOf(d.Fresh(evs("a", 1))), "forgotten: a repeat may pass, an event is never dropped")
	require.Empty(t, d.Fresh(evs("c", 1)))
}
