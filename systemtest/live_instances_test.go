package systemtest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/servertest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// TestLiveAcrossTwoServerProcesses: subscribers on instance B receive every
// event of mutations sent to instance A, and of writes that went to the
// table without any server, exactly once.
func TestLiveAcrossTwoServerProcesses(t *testing.T) {
	table := servertest.LocalTable(t)
	s := store.New(dynamotest.Client(t), table, store.Options{CursorSecret: []byte("shared-by-every-instance")})
	bin := servertest.BuildServer(t)
	a, b := servertest.StartInstance(t, bin, table), servertest.StartInstance(t, bin, table)

	const writers = 4
	ids := make([]string, writers)
	tokens := make([]string, writers)
	for i := range writers {
		ids[i] = strconv.Itoa(5001 + i)
		tokens[i] = servertest.UserToken(t, s, ids[i], "User "+ids[i])
	}
	// Two groups with every writer in both, made through A.
	groups := make([]string, 2)
	for gi := range groups {
		var out struct{ CreateGroup struct{ ID string } }
		servertest.GQL(t, a.URL, tokens[0], &out, `mutation($t: String!) { createGroup(input: {title: $t, currency: "USD"}) { id } }`,
			map[string]any{"t": "Group " + strconv.Itoa(gi)})
		groups[gi] = out.CreateGroup.ID
		for _, tok := range tokens[1:] {
			var inv struct{ CreateInvite struct{ Secret string } }
			servertest.GQL(t, a.URL, tokens[0], &inv, `mutation($g: ID!) { createInvite(groupId: $g, input: {maxUses: 1}) { secret } }`, map[string]any{"g": groups[gi]})
			servertest.GQL(t, a.URL, tok, nil, `mutation($i: String!) { joinGroup(invite: $i) { id } }`, map[string]any{"i": inv.CreateInvite.Secret})
		}
	}

	// On B: writer 0 follows every group, writer 1 the first group only.
	// B must be reading its stream first: it refuses subscriptions until then.
	require.Eventually(t, func() bool {
		var probe struct{ Group struct{ SyncToken string } }
		servertest.GQL(t, b.URL, tokens[0], &probe, `query($g: ID!) { group(id: $g) { syncToken } }`, map[string]any{"g": groups[0]})
		return probe.Group.SyncToken != ""
	}, 10*time.Second, 50*time.Millisecond)
	mine := servertest.SubscribeOn(t, b.URL, tokens[0], `subscription { myEvents { id } }`, nil, "myEvents")
	one := servertest.SubscribeOn(t, b.URL, tokens[1], `subscription($g: ID!) { groupEvents(groupId: $g) { id } }`, map[string]any{"g": groups[0]}, "groupEvents")

	// A marker through A tells when both subscriptions are live: everything
	// after it counts.
	marker := func(g string) string {
		servertest.GQL(t, a.URL, tokens[0], nil, `mutation($g: ID!, $u: ID!) { createExpense(input: {groupId: $g, amount: "1.00",
			description: "marker", splitType: EQUAL, splits: [{userId: $u}]}) { id } }`, map[string]any{"g": g, "u": ids[0]})
		head, err := s.ListChanges(context.Background(), g, "", 100)
		require.NoError(t, err)
		return fmt.Sprintf("%s:%d", g, head.Events[len(head.Events)-1].Seq)
	}
	require.Eventually(t, func() bool {
		m := marker(groups[0])
		time.Sleep(300 * time.Millisecond)
		return mine.Snapshot()[m] == 1 && one.Snapshot()[m] == 1
	}, 20*time.Second, 10*time.Millisecond, "subscriptions on B never saw A's writes")
	start := map[string]int64{}
	for _, g := range groups {
		changes, err := s.ListChanges(context.Background(), g, "", 100)
		require.NoError(t, err)
		start[g] = changes.Events[len(changes.Events)-1].Seq
	}

	// 220 mutations from four clients at once, all sent to A, plus writes
	// a script makes straight to the table.
	const perWriter = 55
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				g := groups[i%len(groups)]
				servertest.GQL(t, a.URL, tokens[w], nil, `mutation($g: ID!, $a: Decimal!, $s: [SplitInput!]!) {
					createExpense(input: {groupId: $g, amount: $a, description: "lunch", splitType: EQUAL, splits: $s}) { id } }`,
					map[string]any{"g": g, "a": fmt.Sprintf("%d.00", i+1), "s": []map[string]any{{"userId": ids[w]}}})
			}
		}()
	}
	for i := range 5 {
		grp, err := s.GetGroups(context.Background(), groups[:1])
		require.NoError(t, err)
		title := fmt.Sprintf("renamed by a script %d", i)
		_, err = s.UpdateGroup(context.Background(), *grp[0], store.GroupChange{Title: &title}, ids[0])
		require.NoError(t, err)
	}
	wg.Wait()

	// Every event after the marker, per the log itself.
	want := map[string][]string{}
	for _, g := range groups {
		changes, err := s.ListChanges(context.Background(), g, s.SyncToken(g, start[g]), 100)
		require.NoError(t, err)
		for changes.HasMore {
			more, err := s.ListChanges(context.Background(), g, changes.Token, 100)
			require.NoError(t, err)
			changes.Events, changes.Token, changes.HasMore = append(changes.Events, more.Events...), more.Token, more.HasMore
		}
		for _, ev := range changes.Events {
			want[g] = append(want[g], fmt.Sprintf("%s:%d", g, ev.Seq))
		}
	}
	require.GreaterOrEqual(t, len(want[groups[0]])+len(want[groups[1]]), writers*perWriter+5)

	expect := func(r *servertest.Received, groups ...string) {
		t.Helper()
		var ids []string
		for _, g := range groups {
			ids = append(ids, want[g]...)
		}
		require.Eventually(t, func() bool {
			got := r.Snapshot()
			for _, id := range ids {
				if got[id] == 0 {
					return false
				}
			}
			return true
		}, 30*time.Second, 50*time.Millisecond, "events lost")
		time.Sleep(500 * time.Millisecond) // anything doubled arrives by now
		wanted := map[string]bool{}
		for _, id := range ids {
			wanted[id] = true
		}
		for id, n := range r.Snapshot() {
			require.Equal(t, 1, n, "%s delivered %d times", id, n)
			g, seq, ok := splitEventID(id)
			require.True(t, ok, "not an event: %s", id)
			if seq > start[g] {
				require.True(t, wanted[id], "%s was not expected here", id)
			}
		}
	}
	expect(mine, groups...)
	expect(one, groups[0])
}

// splitEventID splits a GroupEvent id "<groupId>:<seq>".
func splitEventID(id string) (string, int64, bool) {
	i := strings.LastIndexByte(id, ':')
	if i < 0 {
		return "", 0, false
	}
	seq, err := strconv.ParseInt(id[i+1:], 10, 64)
	return id[:i], seq, err == nil
}
