package live

import (
	"context"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/testclock"
	"github.com/fracti/api/money"
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

// TestOrderPassesEachGroupInSequenceOnce: repeats are dropped, an event
// beyond the next waits for it, groups have their own numbers.
func TestOrderPassesEachGroupInSequenceOnce(t *testing.T) {
	var got []store.Event
	o := &Order{Out: func(_ context.Context, e []store.Event) { got = append(got, e...) }}
	ctx := context.Background()
	o.Take(ctx, evs("g", 5))
	o.Take(ctx, evs("g", 7, 5, 4))
	require.Equal(t, []int64{5, 4}, seqsOf(got), "7 waits for 6; 5 is a repeat; 4, older than the first seen, comes late")
	o.Take(ctx, evs("g", 4, 5))
	require.Equal(t, []int64{5, 4}, seqsOf(got), "late ones are passed on once")
	o.Take(ctx, evs("h", 5))
	o.Take(ctx, evs("g", 6, 7, 8))
	require.Equal(t, []int64{5, 4, 5, 6, 7, 8}, seqsOf(got))
}

// TestOrderStaysBounded: idle groups are forgotten, too many groups make
// room, and too many waiting events make the gap due at once.
func TestOrderStaysBounded(t *testing.T) {
	clock := testclock.At(time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC))
	var got []store.Event
	o := &Order{Out: func(_ context.Context, e []store.Event) { got = append(got, e...) }, Now: clock.Now,
		MaxGroups: 2, MaxPending: 2, Wait: time.Hour,
		Changes: func(_ context.Context, g string, after int64) ([]store.Event, error) {
			return evs(g, after+1, after+2), nil
		}}
	ctx := context.Background()
	o.Take(ctx, evs("a", 1))
	o.Take(ctx, evs("b", 1))
	o.Take(ctx, evs("c", 1))
	require.Len(t, o.groups, 3, "past MaxGroups, groups with an event in the last minute keep their marks")
	clock.Add(pruneAfter)
	o.Take(ctx, evs("e", 1))
	require.Len(t, o.groups, 1, "past MaxGroups the groups idle for a minute are forgotten")
	clock.Add(DefaultOrderIdle)
	o.Fill(ctx)
	require.Empty(t, o.groups, "idle groups are forgotten")
	o.Take(ctx, evs("d", 1))
	o.Take(ctx, evs("d", 4, 5, 6))
	o.Fill(ctx)
	require.Equal(t, []int64{1, 1, 1, 1, 1, 2, 3, 4, 5, 6}, seqsOf(got), "past MaxPending the gap is read at once")
}

// TestTableChangesReadsTheLogAfterTheMark: the gap reader on the real
// table returns the group's events after the mark, oldest first, without a
// gap.
func TestTableChangesReadsTheLogAfterTheMark(t *testing.T) {
	s := dynamotest.Store(t)
	ctx := context.Background()
	g, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "Trip", Currency: money.MustCurrency("EUR"),
		Creator: store.NewMember{UserID: "5000000001", Name: "Ann", Language: "en"}})
	require.NoError(t, err)
	for _, u := range []string{"5000000002", "5000000003"} {
		_, _, err := s.JoinGroup(ctx, g.ID, store.NewMember{UserID: u, Name: u, Language: "en"})
		require.NoError(t, err)
	}
	all, err := TableChanges(s)(ctx, g.ID, 0)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(all), 3)
	after, err := TableChanges(s)(ctx, g.ID, 1)
	require.NoError(t, err)
	require.Equal(t, seqsOf(all)[1:], seqsOf(after))
	require.EqualValues(t, 2, after[0].Seq)
}
