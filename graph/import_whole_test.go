package graph_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/stretchr/testify/require"
)

// groupScreen is what a member's client reads of a group: the group, its
// members, expenses, settlements, balances, debts, spending and activity.
const groupScreen = `query($g: ID!) { group(id: $g) {
	memberCount version historyHead
	members { nodes { userId name placeholder } }
	expenses(first: 100) { nodes { id description amount } pageInfo { hasNextPage } }
	settlements(first: 100) { nodes { id amount } }
	balances { currency net member { userId } }
	debts(simplify: false) { amount from { userId } to { userId } }
	spending(from: "2020-01-01", to: "2020-12-31", by: MONTH) { start currency total count }
	activity(first: 100) { nodes { type } }
} }`

// TestImportIntoAGroupIsSeenWholeOrNotAtAll: a Splitwise file of 120 rows
// imported into a group fails at its third transaction. A member reading
// the group screen and the export, and subscribed to its live events, sees
// nothing of it; run again, it appears at once, announced by one
// GROUP_IMPORTED event.
func TestImportIntoAGroupIsSeenWholeOrNotAtAll(t *testing.T) {
	var fail, calls atomic.Int64
	fault := dynamotest.NewFault(func(op string, _ int) error {
		if op == "TransactWriteItems" && fail.Load() > 0 && calls.Add(1) == fail.Load() {
			return errors.New("injected: connection reset")
		}
		return nil
	})
	api := apitest.NewWithClientOptions(t, []func(*dynamodb.Options){fault.Option()}, apitest.Live())
	ann, ben := api.User("1001", "Ann"), api.User("1002", "Ben")
	g := ann.CreateGroup("Flat")
	ben.Join(g)
	exp := ann.Expense(g, "30.00", "1001", "1002")

	var csv strings.Builder
	csv.WriteString("Date,Description,Category,Cost,Currency,Ann,Ben,Cid\n")
	for i := range 120 {
		fmt.Fprintf(&csv, "2020-%02d-%02d,Groceries %d,Groceries,9.00,USD,6.00,-3.00,-3.00\n", 1+i%12, 1+i%28, i)
	}
	fmt.Fprintf(&csv, "2020-12-31,Ben paid Ann,Payment,30.00,USD,-30.00,30.00,0.00\n")
	file := apitest.File{Name: "flat.csv", Data: []byte(csv.String())}
	members := []map[string]any{{"name": "Ann", "userId": "1001"}, {"name": "Ben", "userId": "1002"}}

	c := dial(t, api, ben)
	const sub = `subscription($g: ID!) { groupEvents(groupId: $g) { type } }`
	require.NoError(t, c.Subscribe(context.Background(), "1", sub, map[string]any{"g": g}))
	waitSubscribed(t, api, 1)
	// The events of the set-up may still be on their way: a comment's event
	// comes after them, and then nothing more is due.
	addComment(t, ann, exp, "Groceries from now on in the file?")
	for ev := nextEvent(t, c, "1", "groupEvents"); ev.Type != "COMMENT_ADDED"; ev = nextEvent(t, c, "1", "groupEvents") {
	}

	screen := func() string {
		var data any
		ben.Must(&data, groupScreen, "g", g)
		return fmt.Sprint(data)
	}
	export := func() string { return ben.Get("/export/groups/" + g + ".csv").Body.String() }
	before, exportBefore := screen(), export()

	calls.Store(0)
	fail.Store(3)
	res := ann.Do(importMutation, "file", file, "g", g, "dry", false, "members", members, "format", "SPLITWISE_CSV")
	fail.Store(0)
	require.NotEmpty(t, res.Errors, "the third transaction failed")
	require.Equal(t, before, screen(), "the two batches that landed are not seen")
	require.Equal(t, exportBefore, export())
	noMessage(t, c, 500*time.Millisecond)

	var done importReport
	ann.Must(&done, importMutation, "file", file, "g", g, "dry", false, "members", members, "format", "SPLITWISE_CSV")
	require.Equal(t, 120, done.ImportGroup.Expenses)
	require.Equal(t, 1, done.ImportGroup.Settlements)
	require.Equal(t, 3, done.ImportGroup.Group.MemberCount, "Cid joins as a placeholder")
	ev := nextEvent(t, c, "1", "groupEvents")
	require.Equal(t, "GROUP_IMPORTED", ev.Type, "the first event since is the whole import's one")
	noMessage(t, c, 500*time.Millisecond)

	var after struct {
		Group struct {
			Expenses struct {
				Nodes    []struct{ ID string }
				PageInfo struct{ HasNextPage bool }
			}
			Balances []struct {
				Net    string
				Member struct{ UserID string }
			}
			Activity struct{ Nodes []struct{ Type string } }
		}
	}
	ben.Must(&after, groupScreen, "g", g)
	require.Len(t, after.Group.Expenses.Nodes, 100)
	require.True(t, after.Group.Expenses.PageInfo.HasNextPage, "121 expenses")
	net := map[string]string{}
	for _, b := range after.Group.Balances {
		net[b.Member.UserID] = b.Net
	}
	// Ann: 120 × 6.00 − 30.00 received, plus 15.00 of her own expense.
	require.Equal(t, "705.00", net["1001"])
	require.Equal(t, "GROUP_IMPORTED", after.Group.Activity.Nodes[0].Type)
	require.NotEqual(t, "GROUP_IMPORTED", after.Group.Activity.Nodes[1].Type, "one event for the whole import")
	require.Contains(t, export(), "Groceries 119")
	require.Contains(t, export(), "Groceries 0,")
}
