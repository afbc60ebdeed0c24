package graph_test

import (
	"context"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

const createRecurring = `mutation($in: CreateRecurringExpenseInput!) { createRecurringExpense(input: $in) {
	id description amount currency category splitType every interval startsOn endsOn count nextOn paused version createdAt
	group { id } createdBy { userId } payers { id userId amount } splits { id userId amount member { name } }
} }`

type recurringResult struct {
	ID, Description, Amount, Currency, SplitType, Every, StartsOn, CreatedAt string
	Category, EndsOn, NextOn                                                 *string
	Interval, Version                                                        int
	Count                                                                    *int
	Paused                                                                   bool
	Group                                                                    struct{ ID string }
	CreatedBy                                                                struct{ UserID string }
	Payers                                                                   []struct{ ID, UserID, Amount string }
	Splits                                                                   []struct {
		ID, UserID, Amount string
		Member             struct{ Name string }
	}
}

// today is the UTC day the API's clock is on, moved by days.
func today(days int) string { return store.FormatDay(store.Today(time.Now()).AddDate(0, 0, days)) }

// rentTemplate is a 90.00 rent Alice pays for the trio, equally.
func rentTemplate(group string) map[string]any {
	return map[string]any{
		"groupId": group, "amount": "90.00", "description": "Rent", "category": "home", "splitType": "EQUAL",
		"splits": []any{map[string]any{"userId": "111"}, map[string]any{"userId": "222"}, map[string]any{"userId": "333"}},
	}
}

func createSeries(t *testing.T, u *apitest.User, in map[string]any) recurringResult {
	t.Helper()
	var out struct{ CreateRecurringExpense recurringResult }
	u.Must(&out, createRecurring, "in", in)
	return out.CreateRecurringExpense
}

func TestCreateRecurringExpense(t *testing.T) {
	api, group, alice, bob, _ := trio(t)
	sr := createSeries(t, alice, map[string]any{"template": rentTemplate(group), "every": "MONTH", "startsOn": today(-2), "count": 12})
	require.Regexp(t, `^rec_[0-9a-f]{32}$`, sr.ID)
	require.Equal(t, "Rent", sr.Description)
	require.Equal(t, "90.00", sr.Amount)
	require.Equal(t, "USD", sr.Currency)
	require.Equal(t, "MONTH", sr.Every)
	require.Equal(t, 1, sr.Interval)
	require.Equal(t, today(-2), sr.StartsOn)
	require.Equal(t, today(-2), *sr.NextOn)
	require.Equal(t, 12, *sr.Count)
	require.Nil(t, sr.EndsOn)
	require.False(t, sr.Paused)
	require.Equal(t, 1, sr.Version)
	require.Equal(t, "111", sr.CreatedBy.UserID)
	require.Equal(t, "111", sr.Payers[0].UserID)
	require.Equal(t, sr.ID+":222", sr.Splits[1].ID)
	require.Equal(t, "30.00", sr.Splits[1].Amount)
	require.Equal(t, "Bob", sr.Splits[1].Member.Name)

	// The scheduler's run creates the occurrence due two days ago.
	run, err := api.Store.RunRecurring(context.Background(), 31)
	require.NoError(t, err)
	require.Equal(t, 1, run.Created)

	var got struct {
		Node struct {
			NextOn      *string
			Occurrences struct {
				Nodes []struct {
					ID, SpentAt, Amount string
					Recurrence          struct{ ID string }
				}
			}
		}
		Group struct {
			RecurringExpenses struct{ Nodes []struct{ ID string } }
			Activity          struct{ Nodes []struct{ Type string } }
		}
	}
	bob.Must(&got, `query($id: ID!, $g: ID!) {
		node(id: $id) { ... on RecurringExpense { nextOn occurrences { nodes { id spentAt amount recurrence { id } } } } }
		group(id: $g) { recurringExpenses { nodes { id } } activity(first: 3) { nodes { type } } } }`, "id", sr.ID, "g", group)
	occ := got.Node.Occurrences.Nodes
	require.Len(t, occ, 1)
	require.Equal(t, today(-2)+"T12:00:00.000Z", occ[0].SpentAt)
	require.Equal(t, sr.ID, occ[0].Recurrence.ID)
	require.Equal(t, store.FormatDay(mustDay(today(-2)).AddDate(0, 1, 0)), clampless(*got.Node.NextOn))
	require.Equal(t, []struct{ ID string }{{sr.ID}}, got.Group.RecurringExpenses.Nodes)
	require.Equal(t, "EXPENSE_CREATED", got.Group.Activity.Nodes[0].Type)
	require.Equal(t, "RECURRING_CREATED", got.Group.Activity.Nodes[1].Type)
}

func mustDay(s string) time.Time {
	d, err := store.ParseDay(s)
	if err != nil {
		panic(err)
	}
	return d
}

// clampless is a next day as it is, for a month that may be clamped: the
// test compares it only when the day exists in both months.
func clampless(s string) string {
	d := mustDay(s)
	if d.Day() != mustDay(today(-2)).Day() {
		return store.FormatDay(mustDay(today(-2)).AddDate(0, 1, 0))
	}
	return s
}

func TestCreateRecurringExpenseValidation(t *testing.T) {
	_, group, alice, _, _ := trio(t)
	with := func(edit func(in, tmpl map[string]any)) map[string]any {
		tmpl := rentTemplate(group)
		in := map[string]any{"template": tmpl, "every": "WEEK", "startsOn": today(0)}
		edit(in, tmpl)
		return in
	}
	for _, tc := range []struct {
		name, field string
		in          map[string]any
	}{
		{"template spentAt", "input.template.spentAt", with(func(_, tm map[string]any) { tm["spentAt"] = "2024-01-01T00:00:00.000Z" })},
		{"template idempotencyKey", "input.template.idempotencyKey", with(func(_, tm map[string]any) { tm["idempotencyKey"] = "k1" })},
		{"template convertTo", "input.template.convertTo", with(func(_, tm map[string]any) { tm["convertTo"] = "EUR"; tm["currency"] = "USD" })},
		{"template rate", "input.template.convertTo", with(func(_, tm map[string]any) { tm["rate"] = "0.9" })},
		{"template amount as createExpense checks it", "input.template.amount", with(func(_, tm map[string]any) { tm["amount"] = "1.001" })},
		{"template non-member split", "input.template.splits[0].userId", with(func(_, tm map[string]any) { tm["splits"] = []any{map[string]any{"userId": "999"}} })},
		{"template description", "input.template.description", with(func(_, tm map[string]any) { tm["description"] = " " })},
		{"interval zero", "input.interval", with(func(in, _ map[string]any) { in["interval"] = 0 })},
		{"interval too large", "input.interval", with(func(in, _ map[string]any) { in["interval"] = 1000 })},
		{"start too long ago", "input.startsOn", with(func(in, _ map[string]any) { in["startsOn"] = today(-367) })},
		{"start too far ahead", "input.startsOn", with(func(in, _ map[string]any) { in["startsOn"] = today(3661) })},
		{"end before start", "input.endsOn", with(func(in, _ map[string]any) { in["endsOn"] = today(-1) })},
		{"count zero", "input.count", with(func(in, _ map[string]any) { in["count"] = 0 })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := alice.Fails("BAD_USER_INPUT", createRecurring, "in", tc.in)
			require.Equal(t, tc.field, res.Errors[0].Extensions["field"], "%+v", res.Errors)
		})
	}
	res := alice.Fails("BAD_USER_INPUT", createRecurring, "in", with(func(in, _ map[string]any) { in["startsOn"] = "2026-02-30" }))
	require.Contains(t, res.Errors[0].Message, "Date")
}

func TestRecurringExpenseChanges(t *testing.T) {
	_, group, alice, bob, _ := trio(t)
	sr := createSeries(t, alice, map[string]any{"template": rentTemplate(group), "every": "DAY", "interval": 2, "startsOn": today(1)})

	const update = `mutation($id: ID!, $in: UpdateRecurringExpenseInput!) { updateRecurringExpense(id: $id, input: $in) { version amount endsOn count } }`
	res := bob.Fails("CONFLICT", update, "id", sr.ID, "in", map[string]any{"expectedVersion": 5, "count": 3})
	require.EqualValues(t, 1, res.Errors[0].Extensions["currentVersion"])
	bob.Fails("BAD_USER_INPUT", update, "id", sr.ID, "in", map[string]any{"expectedVersion": 1, "endsOn": today(0)})
	other := alice.CreateGroup("Elsewhere")
	tmpl := rentTemplate(other)
	tmpl["splits"] = []any{map[string]any{"userId": "111"}}
	res = bob.Fails("BAD_USER_INPUT", update, "id", sr.ID, "in", map[string]any{"expectedVersion": 1, "template": tmpl})
	require.Equal(t, "input.template.groupId", res.Errors[0].Extensions["field"])

	tmpl = rentTemplate(group)
	tmpl["amount"] = "120.00"
	var out struct {
		UpdateRecurringExpense struct {
			Version int
			Amount  string
			EndsOn  *string
			Count   *int
		}
	}
	bob.Must(&out, update, "id", sr.ID, "in", map[string]any{"expectedVersion": 1, "template": tmpl, "endsOn": today(30), "count": 4})
	require.Equal(t, 2, out.UpdateRecurringExpense.Version)
	require.Equal(t, "120.00", out.UpdateRecurringExpense.Amount)
	require.Equal(t, today(30), *out.UpdateRecurringExpense.EndsOn)
	require.Equal(t, 4, *out.UpdateRecurringExpense.Count)
	bob.Must(&out, update, "id", sr.ID, "in", map[string]any{"expectedVersion": 2, "noEnd": true, "count": 0})
	require.Nil(t, out.UpdateRecurringExpense.EndsOn)
	require.Nil(t, out.UpdateRecurringExpense.Count)

	var paused struct{ PauseRecurringExpense struct{ Paused bool } }
	bob.Must(&paused, `mutation($id: ID!) { pauseRecurringExpense(id: $id) { paused } }`, "id", sr.ID)
	require.True(t, paused.PauseRecurringExpense.Paused)
	var resumed struct{ ResumeRecurringExpense struct{ Paused bool } }
	alice.Must(&resumed, `mutation($id: ID!) { resumeRecurringExpense(id: $id) { paused } }`, "id", sr.ID)
	require.False(t, resumed.ResumeRecurringExpense.Paused)

	var deleted struct{ DeleteRecurringExpense string }
	alice.Must(&deleted, `mutation($id: ID!) { deleteRecurringExpense(id: $id) }`, "id", sr.ID)
	require.Equal(t, sr.ID, deleted.DeleteRecurringExpense)
	alice.Fails("NOT_FOUND", `mutation($id: ID!) { pauseRecurringExpense(id: $id) { id } }`, "id", sr.ID)

	var events struct {
		Group struct {
			Activity struct {
				Nodes []struct {
					Type    string
					Subject *struct{ ID string }
				}
			}
		}
	}
	alice.Must(&events, `query($g: ID!) { group(id: $g) { activity(first: 6) { nodes { type subject { ... on RecurringExpense { id } } } } } }`, "g", group)
	var types []string
	for _, n := range events.Group.Activity.Nodes {
		types = append(types, n.Type)
		require.Nil(t, n.Subject, "the recurring expense is deleted")
	}
	require.Equal(t, []string{"RECURRING_DELETED", "RECURRING_RESUMED", "RECURRING_PAUSED", "RECURRING_UPDATED", "RECURRING_UPDATED", "RECURRING_CREATED"}, types)
}

// recurringOperations are the recurring expenses' fields and mutations for
// the authorization matrix (auth_test.go), against Alice's series.
func recurringOperations(group, series string) []operation {
	isNull := func(field string) func(t *testing.T, data string) {
		return func(t *testing.T, data string) { require.JSONEq(t, `{"`+field+`":null}`, data) }
	}
	return []operation{
		{name: "node recurring expense", query: `query($id: ID!) { node(id: $id) { ... on RecurringExpense { id occurrences { nodes { id } } } } }`, vars: []any{"id", series}, hidden: isNull("node")},
		{name: "group recurringExpenses", query: `query($g: ID!) { group(id: $g) { recurringExpenses { nodes { id } } } }`, vars: []any{"g", group}, hidden: isNull("group")},
		{name: "expense recurrence", query: `query($g: ID!) { group(id: $g) { expenses { nodes { recurrence { id } } } } }`, vars: []any{"g", group}, hidden: isNull("group")},
		{name: "createRecurringExpense", query: `mutation($g: ID!) { createRecurringExpense(input: {template: {groupId: $g, amount: "1.00", description: "x", splitType: EQUAL, splits: [{userId: "111"}]}, every: DAY, startsOn: "2026-01-01"}) { id } }`,
			vars: []any{"g", group}, nonMember: "NOT_FOUND"},
		{name: "updateRecurringExpense", query: `mutation($id: ID!) { updateRecurringExpense(id: $id, input: {expectedVersion: 1, count: 2}) { id } }`,
			vars: []any{"id", series}, nonMember: "NOT_FOUND"},
		{name: "pauseRecurringExpense", query: `mutation($id: ID!) { pauseRecurringExpense(id: $id) { id } }`, vars: []any{"id", series}, nonMember: "NOT_FOUND"},
		{name: "resumeRecurringExpense", query: `mutation($id: ID!) { resumeRecurringExpense(id: $id) { id } }`, vars: []any{"id", series}, nonMember: "NOT_FOUND"},
		{name: "deleteRecurringExpense", query: `mutation($id: ID!) { deleteRecurringExpense(id: $id) }`, vars: []any{"id", series}, nonMember: "NOT_FOUND"},
	}
}

// recurringFixture is a recurring expense of Alice's in group, paused so
// that its state is what the matrix compares.
func recurringFixture(t *testing.T, alice *apitest.User, group string) string {
	t.Helper()
	return createSeries(t, alice, map[string]any{
		"template": map[string]any{"groupId": group, "amount": "3.00", "description": "Netflix", "splitType": "EQUAL",
			"splits": []any{map[string]any{"userId": "111"}, map[string]any{"userId": "222"}}},
		"every": "MONTH", "startsOn": today(5),
	}).ID
}

// A page of occurrences asking for their recurring expense reads it once,
// in a BatchGetItem, however many occurrences the page holds.
func TestOccurrencesRecurrenceIsBatched(t *testing.T) {
	api := apitest.New(t, apitest.LoaderWait(50*time.Millisecond))
	alice, bob := api.User("111", "Alice"), api.User("222", "Bob")
	group := alice.CreateGroup("Flat")
	bob.Join(group)
	tmpl := rentTemplate(group)
	tmpl["splits"] = []any{map[string]any{"userId": "111"}, map[string]any{"userId": "222"}}
	sr := createSeries(t, alice, map[string]any{"template": tmpl, "every": "DAY", "startsOn": today(-9)})
	run, err := api.Store.RunRecurring(context.Background(), 31)
	require.NoError(t, err)
	require.Equal(t, 10, run.Created)

	for range 2 {
		api.Calls.Reset()
		var out struct {
			Group struct {
				Expenses struct {
					Nodes []struct {
						Recurrence struct{ ID, Description string }
					}
				}
			}
		}
		alice.Must(&out, `query($g: ID!) { group(id: $g) { expenses { nodes { recurrence { id description } } } } }`, "g", group)
		require.Len(t, out.Group.Expenses.Nodes, 10)
		for _, e := range out.Group.Expenses.Nodes {
			require.Equal(t, sr.ID, e.Recurrence.ID)
		}
		ops := api.Calls.ByOperation()
		require.Zero(t, ops["GetItem"])
		require.LessOrEqual(t, ops["BatchGetItem"], 2, "%v", ops) // the group with the membership, then the recurring expense
	}
}
