package graph_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/stretchr/testify/require"
)

const updateExpense = `mutation($id: ID!, $in: UpdateExpenseInput!) { updateExpense(id: $id, input: $in) {
	id version amount currency description category splitType spentAt createdAt
	payer { userId } splits { userId amount shares }
} }`

type editedResult struct {
	UpdateExpense struct {
		ID, Amount, Currency, Description, SplitType, SpentAt, CreatedAt string
		Version                                                          int
		Category                                                         *string
		Payer                                                            struct{ UserID string }
		Splits                                                           []struct {
			UserID, Amount string
			Shares         *string
		}
	}
}

const history = `query($id: ID!) { expense(id: $id) { version deletedAt restorableUntil history {
	id version action at editor { userId } changes { field before after }
} } }`

type change struct {
	Field         string
	Before, After *string
}

type historyResult struct {
	Expense *struct {
		Version         int
		DeletedAt       *string
		RestorableUntil *string
		History         []struct {
			ID, Action, At string
			Version        int
			Editor         struct{ UserID string }
			Changes        []change
		}
	}
}

// usdNets reads the group's nets in USD by user id.
func usdNets(t *testing.T, u *apitest.User, group string) map[string]string {
	t.Helper()
	var out balancesResult
	u.Must(&out, balancesQuery, "g", group)
	nets := map[string]string{}
	for k, v := range netsOf(out.Group.Balances) {
		if user, ok := strings.CutPrefix(k, "USD "); ok {
			nets[user] = v
		}
	}
	return nets
}

func expenseIDs(t *testing.T, u *apitest.User, group string) []string {
	t.Helper()
	var out struct {
		Group struct {
			Expenses struct{ Nodes []struct{ ID string } }
		}
	}
	u.Must(&out, `query($g: ID!) { group(id: $g) { expenses(first: 100) { nodes { id } } } }`, "g", group)
	var ids []string
	for _, n := range out.Group.Expenses.Nodes {
		ids = append(ids, n.ID)
	}
	return ids
}

func TestUpdateExpense(t *testing.T) {
	_, group, alice, bob, carol := trio(t)
	id := alice.Expense(group, "30.00", "111", "222", "333")
	require.Equal(t, map[string]string{"111": "20.00", "222": "-10.00", "333": "-10.00"}, usdNets(t, alice, group))

	// Any member may edit: Bob fixes the amount and the description; the
	// equal split follows the new amount.
	var out editedResult
	bob.Must(&out, updateExpense, "id", id, "in", map[string]any{"expectedVersion": 1, "amount": "45.00", "description": "Dinner and taxi", "spentAt": "2026-11-20T19:00:00.000Z"})
	e := out.UpdateExpense
	require.Equal(t, 2, e.Version)
	require.Equal(t, "45.00", e.Amount)
	require.Equal(t, "Dinner and taxi", e.Description)
	require.Equal(t, "2026-11-20T19:00:00.000Z", e.SpentAt)
	require.NotEqual(t, e.SpentAt, e.CreatedAt)
	require.Equal(t, "111", e.Payer.UserID, "the single payer pays the new amount")
	require.Equal(t, map[string]string{"111": "30.00", "222": "-15.00", "333": "-15.00"}, usdNets(t, carol, group))

	// A stale version is a conflict that tells the current one, and changes nothing.
	res := carol.Fails("CONFLICT", updateExpense, "id", id, "in", map[string]any{"expectedVersion": 1, "amount": "1.00"})
	require.EqualValues(t, 2, res.Errors[0].Extensions["currentVersion"])
	require.Equal(t, "45.00", out.UpdateExpense.Amount)

	// New splits replace all splits: only Bob shares it now, by weight; Carol's
	// share and her participant record go.
	carol.Must(&out, updateExpense, "id", id, "in", map[string]any{"expectedVersion": 2, "splitType": "SHARES",
		"splits": []any{map[string]any{"userId": "111", "shares": "1"}, map[string]any{"userId": "222", "shares": "2"}}})
	require.Equal(t, 3, out.UpdateExpense.Version)
	require.Equal(t, map[string]string{"111": "30.00", "222": "-30.00", "333": "0.00"}, usdNets(t, alice, group))
	var owes struct {
		Me struct {
			Owes struct{ Nodes []struct{ Amount string } }
		}
	}
	carol.Must(&owes, `{ me { owes(first: 10) { nodes { amount } } } }`)
	require.Empty(t, owes.Me.Owes.Nodes, "Carol no longer owes anything for it")
	bob.Must(&owes, `{ me { owes(first: 10) { nodes { amount } } } }`)
	require.Len(t, owes.Me.Owes.Nodes, 1)
	require.Equal(t, "30.00", owes.Me.Owes.Nodes[0].Amount)

	// A new payer and currency; the amount stays and must fit the currency.
	bob.Fails("BAD_USER_INPUT", updateExpense, "id", id, "in", map[string]any{"expectedVersion": 3, "currency": "JPY"})
	bob.Must(&out, updateExpense, "id", id, "in", map[string]any{"expectedVersion": 3, "currency": "EUR", "payerId": "333", "category": "food"})
	require.Equal(t, "EUR", out.UpdateExpense.Currency)
	require.Equal(t, "food", *out.UpdateExpense.Category)
	require.Equal(t, map[string]string{"111": "0.00", "222": "0.00", "333": "0.00"}, usdNets(t, alice, group), "USD is all zero")

	// The same rules as createExpense.
	for _, in := range []map[string]any{
		{"expectedVersion": 4, "amount": "-1.00"},
		{"expectedVersion": 4, "splits": []any{map[string]any{"userId": "999"}}},
		{"expectedVersion": 4, "splitType": "EXACT"},
		{"expectedVersion": 4, "description": ""},
		{"expectedVersion": 4, "spentAt": "2999-01-01T00:00:00.000Z"},
	} {
		bob.Fails("BAD_USER_INPUT", updateExpense, "id", id, "in", in)
	}
	// Nothing changed: the same version comes back.
	bob.Must(&out, updateExpense, "id", id, "in", map[string]any{"expectedVersion": 4, "description": "Dinner and taxi"})
	require.Equal(t, 4, out.UpdateExpense.Version)

	// The history, newest first, says who changed what.
	var h historyResult
	alice.Must(&h, history, "id", id)
	revs := h.Expense.History
	require.Len(t, revs, 4)
	for i, want := range []struct {
		action, editor string
		version        int
	}{{"UPDATED", "222", 4}, {"UPDATED", "333", 3}, {"UPDATED", "222", 2}, {"CREATED", "111", 1}} {
		require.Equal(t, want.action, revs[i].Action)
		require.Equal(t, want.editor, revs[i].Editor.UserID)
		require.Equal(t, want.version, revs[i].Version)
		require.Equal(t, fmt.Sprintf("%s:%d", id, want.version), revs[i].ID)
	}
	require.Contains(t, revs[2].Changes, change{"amount", ptr("30.00"), ptr("45.00")})
	require.Contains(t, revs[2].Changes, change{"description", ptr("Dinner"), ptr("Dinner and taxi")})
	require.Contains(t, revs[2].Changes, change{"splits", ptr("Alice: 10.00; Bob: 10.00; Carol: 10.00"), ptr("Alice: 15.00; Bob: 15.00; Carol: 15.00")})
	require.Contains(t, revs[1].Changes, change{"splitType", ptr("EQUAL"), ptr("SHARES")})
	require.Contains(t, revs[1].Changes, change{"splits", ptr("Alice: 15.00; Bob: 15.00; Carol: 15.00"), ptr("Alice: 15.00 (1 shares); Bob: 30.00 (2 shares)")})
	require.Contains(t, revs[0].Changes, change{"category", nil, ptr("food")})
	require.Contains(t, revs[0].Changes, change{"payers", ptr("Alice: 45.00"), ptr("Carol: 45.00")})
}

func ptr(s string) *string { return &s }

func TestDeleteAndRestoreExpense(t *testing.T) {
	api, group, alice, bob, carol := trio(t)
	mallory := api.User("666", "Mallory")
	id := alice.Expense(group, "30.00", "111", "222", "333")
	keep := bob.Expense(group, "10.00", "111", "222")
	before := usdNets(t, alice, group)

	alice.Must(nil, `mutation($id: ID!) { deleteExpense(id: $id) }`, "id", id)
	require.Equal(t, []string{keep}, expenseIDs(t, alice, group), "a deleted expense leaves the list")
	require.Equal(t, map[string]string{"111": "-5.00", "222": "5.00", "333": "0.00"}, usdNets(t, alice, group), "and the balances")

	// Still there by id, deleted, for members only; deleting again is a conflict.
	var h historyResult
	carol.Must(&h, history, "id", id)
	require.NotNil(t, h.Expense.DeletedAt)
	require.NotNil(t, h.Expense.RestorableUntil)
	require.Equal(t, 2, h.Expense.Version)
	require.Equal(t, "DELETED", h.Expense.History[0].Action)
	mallory.Must(&h, history, "id", id)
	require.Nil(t, h.Expense, "a non-member sees nothing")
	alice.Fails("CONFLICT", `mutation($id: ID!) { deleteExpense(id: $id) }`, "id", id)
	bob.Fails("CONFLICT", updateExpense, "id", id, "in", map[string]any{"expectedVersion": 2, "amount": "1.00"})
	mallory.Fails("NOT_FOUND", `mutation($id: ID!) { restoreExpense(id: $id) { id } }`, "id", id)

	// Any member may restore it: it is back in the list and the balances.
	var restored struct {
		RestoreExpense struct {
			Version   int
			DeletedAt *string
		}
	}
	carol.Must(&restored, `mutation($id: ID!) { restoreExpense(id: $id) { version deletedAt } }`, "id", id)
	require.Equal(t, 3, restored.RestoreExpense.Version)
	require.Nil(t, restored.RestoreExpense.DeletedAt)
	require.ElementsMatch(t, []string{id, keep}, expenseIDs(t, alice, group))
	require.Equal(t, before, usdNets(t, alice, group))
	carol.Fails("CONFLICT", `mutation($id: ID!) { restoreExpense(id: $id) { id } }`, "id", id)

	carol.Must(&h, history, "id", id)
	var actions []string
	for _, r := range h.Expense.History {
		actions = append(actions, fmt.Sprintf("%s v%d by %s", r.Action, r.Version, r.Editor.UserID))
	}
	require.Equal(t, []string{"RESTORED v3 by 333", "DELETED v2 by 111", "CREATED v1 by 111"}, actions)

	// Restoring is refused once someone it involves has left.
	alice.Must(nil, `mutation($id: ID!) { deleteExpense(id: $id) }`, "id", id)
	carol.Must(nil, `mutation($g: ID!) { leaveGroup(groupId: $g) }`, "g", group)
	bob.Fails("CONFLICT", `mutation($id: ID!) { restoreExpense(id: $id) { id } }`, "id", id)
}

// TestConcurrentEdits: eight members edit the same expense at once, each with
// the version they read. Exactly one edit wins each version; the others get
// CONFLICT, and the history has every version once.
func TestConcurrentEdits(t *testing.T) {
	api := apitest.New(t)
	users := make([]*apitest.User, 8)
	for i := range users {
		users[i] = api.User(fmt.Sprint(500+i), fmt.Sprint("U", i))
	}
	group := users[0].CreateGroup("Race")
	for _, u := range users[1:] {
		u.Join(group)
	}
	id := users[0].Expense(group, "80.00", "500", "501")

	wins := 0
	for round := 1; round <= 3; round++ {
		var wg sync.WaitGroup
		codes := make([]string, len(users))
		for i, u := range users {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := u.Do(updateExpense, "id", id, "in", map[string]any{"expectedVersion": round, "description": fmt.Sprintf("round %d by %d", round, i)})
				codes[i] = res.Code()
			}()
		}
		wg.Wait()
		won := 0
		for _, c := range codes {
			switch c {
			case "":
				won++
			default:
				require.Equal(t, "CONFLICT", c)
			}
		}
		require.Equal(t, 1, won, "round %d: exactly one edit of version %d wins", round, round)
		wins += won
	}
	var h historyResult
	users[3].Must(&h, history, "id", id)
	require.Equal(t, 1+wins, h.Expense.Version)
	require.Len(t, h.Expense.History, 1+wins)
	for i, r := range h.Expense.History {
		require.Equal(t, 1+wins-i, r.Version, "no gap, no duplicate")
	}
	require.Equal(t, map[string]string{"500": "40.00", "501": "-40.00", "502": "0.00", "503": "0.00", "504": "0.00", "505": "0.00", "506": "0.00", "507": "0.00"},
		usdNets(t, users[0], group))
}

const activity = `query($g: ID!, $after: String) { group(id: $g) { historyHead activity(first: 5, after: $after) {
	pageInfo { hasNextPage endCursor }
	nodes { id sequence type at hash previousHash actor { userId } changes { field before after }
		subject { __typename ... on Expense { id deletedAt } ... on Settlement { id status } ... on Member { userId } ... on Group { id title } } }
} } }`

type eventResult struct {
	ID, Type, At, Hash string
	Sequence           int
	PreviousHash       *string
	Actor              struct{ UserID string }
	Changes            []change
	Subject            *struct {
		Typename  string `json:"__typename"`
		ID        string
		UserID    string
		Title     string
		Status    string
		DeletedAt *string
	}
}

// allActivity pages through a group's activity, newest first.
func allActivity(t *testing.T, u *apitest.User, group string) (events []eventResult, head *string) {
	t.Helper()
	var after any
	for {
		var out struct {
			Group struct {
				HistoryHead *string
				Activity    struct {
					PageInfo struct {
						HasNextPage bool
						EndCursor   string
					}
					Nodes []eventResult
				}
			}
		}
		u.Must(&out, activity, "g", group, "after", after)
		head = out.Group.HistoryHead
		events = append(events, out.Group.Activity.Nodes...)
		if !out.Group.Activity.PageInfo.HasNextPage {
			return events, head
		}
		after = out.Group.Activity.PageInfo.EndCursor
	}
}

func TestGroupActivity(t *testing.T) {
	api, group, alice, bob, carol := trio(t)
	mallory := api.User("666", "Mallory")
	id := alice.Expense(group, "30.00", "111", "222", "333")
	bob.Must(nil, updateExpense, "id", id, "in", map[string]any{"expectedVersion": 1, "amount": "33.00"})
	st := bob.Settle(group, "111", "11.00")
	alice.Must(nil, `mutation($id: ID!) { updateSettlement(id: $id, input: {status: COMPLETED}) { id } }`, "id", st)
	alice.Must(nil, `mutation($id: ID!) { deleteExpense(id: $id) }`, "id", id)
	carol.Must(nil, `mutation($g: ID!) { updateWallet(groupId: $g, wallet: "") { id } }`, "g", group) // no change: no event
	alice.Must(nil, `mutation($g: ID!) { updateGroup(id: $g, input: {expectedVersion: 1, title: "Ski trip"}) { version } }`, "g", group)

	events, head := allActivity(t, carol, group)
	var got []string
	for _, ev := range events {
		got = append(got, fmt.Sprintf("%d %s by %s", ev.Sequence, ev.Type, ev.Actor.UserID))
	}
	require.Equal(t, []string{
		"11 GROUP_UPDATED by 111",
		"10 EXPENSE_DELETED by 111",
		"9 SETTLEMENT_COMPLETED by 111",
		"8 SETTLEMENT_CREATED by 222",
		"7 EXPENSE_UPDATED by 222",
		"6 EXPENSE_CREATED by 111",
		"5 MEMBER_JOINED by 333",
		"4 INVITE_CREATED by 111", // the invite Carol joined with
		"3 MEMBER_JOINED by 222",
		"2 INVITE_CREATED by 111",
		"1 GROUP_CREATED by 111",
	}, got)

	// Subjects resolve as they are now; the deleted expense is still there.
	require.Equal(t, "Group", events[0].Subject.Typename)
	require.Equal(t, "Ski trip", events[0].Subject.Title)
	require.Contains(t, events[0].Changes, change{"title", ptr("Trip"), ptr("Ski trip")})
	require.Equal(t, "Expense", events[1].Subject.Typename)
	require.NotNil(t, events[1].Subject.DeletedAt)
	require.Equal(t, "COMPLETED", events[2].Subject.Status)
	require.Contains(t, events[2].Changes, change{"status", ptr("PENDING"), ptr("COMPLETED")})
	require.Contains(t, events[4].Changes, change{"amount", ptr("30.00"), ptr("33.00")})
	require.Equal(t, "Member", events[6].Subject.Typename)
	require.Equal(t, "333", events[6].Subject.UserID)
	require.Equal(t, "Invite", events[7].Subject.Typename)

	// The chain: every event names the hash of the one before, and the head is the newest.
	require.Equal(t, events[0].Hash, *head)
	for i, ev := range events {
		require.Regexp(t, `^[0-9a-f]{64}$`, ev.Hash)
		require.Equal(t, fmt.Sprintf("%s:%d", group, ev.Sequence), ev.ID)
		if i+1 < len(events) {
			require.Equal(t, events[i+1].Hash, *ev.PreviousHash)
		} else {
			require.Nil(t, ev.PreviousHash)
		}
	}

	// Non-members see no group, so no activity.
	var hidden struct{ Group *struct{ ID string } }
	mallory.Must(&hidden, activity, "g", group, "after", nil)
	require.Nil(t, hidden.Group)
}

func TestUpdateGroup(t *testing.T) {
	api, group, alice, bob, _ := trio(t)
	mallory := api.User("666", "Mallory")
	alice.Expense(group, "30.00", "111", "222", "333")
	const update = `mutation($g: ID!, $in: UpdateGroupInput!) { updateGroup(id: $g, input: $in) { title currency version } }`

	var out struct {
		UpdateGroup struct {
			Title, Currency string
			Version         int
		}
	}
	bob.Must(&out, update, "g", group, "in", map[string]any{"expectedVersion": 1, "title": "Ski trip", "currency": "EUR"})
	require.Equal(t, "Ski trip", out.UpdateGroup.Title)
	require.Equal(t, "EUR", out.UpdateGroup.Currency)
	require.Equal(t, 2, out.UpdateGroup.Version)

	res := alice.Fails("CONFLICT", update, "g", group, "in", map[string]any{"expectedVersion": 1, "title": "Mine"})
	require.EqualValues(t, 2, res.Errors[0].Extensions["currentVersion"])
	alice.Fails("BAD_USER_INPUT", update, "g", group, "in", map[string]any{"expectedVersion": 2, "title": " "})
	alice.Fails("BAD_USER_INPUT", update, "g", group, "in", map[string]any{"expectedVersion": 2, "currency": "XXX1"})
	mallory.Fails("NOT_FOUND", update, "g", group, "in", map[string]any{"expectedVersion": 2, "title": "Mine"})

	// The new title shows wherever the API shows the group: on the group, in
	// the user's groups, and on what they owe (whose records were written
	// under the old title).
	var seen struct {
		Me struct {
			Groups struct{ Nodes []struct{ Title string } }
			Owes   struct {
				Nodes []struct{ Group struct{ Title string } }
			}
		}
	}
	bob.Must(&seen, `{ me { groups(first: 5) { nodes { title } } owes(first: 5) { nodes { group { title } } } } }`)
	require.Equal(t, "Ski trip", seen.Me.Groups.Nodes[0].Title)
	require.Equal(t, "Ski trip", seen.Me.Owes.Nodes[0].Group.Title)

	// New expenses default to the new currency.
	var e struct{ CreateExpense struct{ Currency string } }
	alice.Must(&e, `mutation($g: ID!) { createExpense(input: {groupId: $g, amount: "5.00", description: "x", splitType: EQUAL, splits: [{userId: "222"}]}) { currency } }`, "g", group)
	require.Equal(t, "EUR", e.CreateExpense.Currency)
}
