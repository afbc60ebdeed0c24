package graph_test

import (
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/stretchr/testify/require"
)

const createExpense = `mutation($in: CreateExpenseInput!) { createExpense(input: $in) {
	id amount currency description category splitType createdAt
	group { id } payer { userId name }
	splits { id userId amount percentage member { id name } }
} }`

type expenseResult struct {
	ID, Amount, Currency, Description, SplitType, CreatedAt string
	Category                                                *string
	Group                                                   struct{ ID string }
	Payer                                                   struct{ UserID, Name string }
	Splits                                                  []struct {
		ID, UserID, Amount string
		Percentage         *string
		Member             struct{ ID, Name string }
	}
}

// trio is a group of three members: Alice created it.
func trio(t *testing.T) (api *apitest.API, group string, alice, bob, carol *apitest.User) {
	api = apitest.New(t)
	alice, bob, carol = api.User("111", "Alice"), api.User("222", "Bob"), api.User("333", "Carol")
	group = alice.CreateGroup("Trip")
	bob.Join(group)
	carol.Join(group)
	return
}

func splitsOf(r expenseResult) map[string]string {
	out := map[string]string{}
	for _, s := range r.Splits {
		out[s.UserID] = s.Amount
	}
	return out
}

func TestCreateExpenseSplitTypes(t *testing.T) {
	_, group, alice, _, _ := trio(t)
	for _, tc := range []struct {
		name   string
		input  map[string]any
		amount string
		want   map[string]string
	}{
		{"equal: leftover cent to the first listed", map[string]any{
			"amount": "100.00", "splitType": "EQUAL",
			"splits": []any{map[string]any{"userId": "111"}, map[string]any{"userId": "222"}, map[string]any{"userId": "333"}},
		}, "100.00", map[string]string{"111": "33.34", "222": "33.33", "333": "33.33"}},
		{"exact", map[string]any{
			"amount": "10.5", "splitType": "EXACT",
			"splits": []any{map[string]any{"userId": "222", "amount": "7.25"}, map[string]any{"userId": "333", "amount": "3.25"}},
		}, "10.50", map[string]string{"222": "7.25", "333": "3.25"}},
		{"percentage", map[string]any{
			"amount": "10.00", "splitType": "PERCENTAGE",
			"splits": []any{map[string]any{"userId": "111", "percentage": "33.33"}, map[string]any{"userId": "222", "percentage": "33.33"}, map[string]any{"userId": "333", "percentage": "33.34"}},
		}, "10.00", map[string]string{"111": "3.33", "222": "3.33", "333": "3.34"}},
		{"JPY has no decimals", map[string]any{
			"amount": "1000", "currency": "JPY", "splitType": "EQUAL",
			"splits": []any{map[string]any{"userId": "111"}, map[string]any{"userId": "222"}, map[string]any{"userId": "333"}},
		}, "1000", map[string]string{"111": "334", "222": "333", "333": "333"}},
		{"TON has nine", map[string]any{
			"amount": "1", "currency": "TON", "splitType": "EQUAL",
			"splits": []any{map[string]any{"userId": "111"}, map[string]any{"userId": "222"}, map[string]any{"userId": "333"}},
		}, "1.000000000", map[string]string{"111": "0.333333334", "222": "0.333333333", "333": "0.333333333"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := map[string]any{"groupId": group, "description": "Dinner", "category": "food"}
			for k, v := range tc.input {
				in[k] = v
			}
			var out struct{ CreateExpense expenseResult }
			alice.Must(&out, createExpense, "in", in)
			e := out.CreateExpense
			require.Equal(t, tc.amount, e.Amount)
			require.Equal(t, tc.want, splitsOf(e))
			require.Equal(t, "Alice", e.Payer.Name)
			require.Equal(t, group, e.Group.ID)
			require.Equal(t, "food", *e.Category)
			for _, s := range e.Splits {
				require.Equal(t, e.ID+":"+s.UserID, s.ID)
				require.Equal(t, group+":"+s.UserID, s.Member.ID)
			}
			// Read back the same.
			var again struct{ Expense expenseResult }
			alice.Must(&again, `query($id: ID!) { expense(id: $id) {
				id amount currency description category splitType createdAt group { id } payer { userId name }
				splits { id userId amount percentage member { id name } } } }`, "id", e.ID)
			require.Equal(t, e, again.Expense)
		})
	}
}

func TestCreateExpenseDefaults(t *testing.T) {
	_, group, alice, bob, _ := trio(t)
	var out struct{ CreateExpense expenseResult }
	// Bob records what Alice paid; the currency is the group's.
	bob.Must(&out, createExpense, "in", map[string]any{
		"groupId": group, "amount": "9", "description": "Taxi", "payerId": "111", "splitType": "EQUAL",
		"splits": []any{map[string]any{"userId": "222"}},
	})
	require.Equal(t, "USD", out.CreateExpense.Currency)
	require.Equal(t, "9.00", out.CreateExpense.Amount)
	require.Equal(t, "111", out.CreateExpense.Payer.UserID)
	require.Nil(t, out.CreateExpense.Category)
	_ = alice
}

func TestCreateExpenseValidation(t *testing.T) {
	_, group, alice, _, _ := trio(t)
	equal := []any{map[string]any{"userId": "111"}, map[string]any{"userId": "222"}}
	for _, tc := range []struct {
		name  string
		input map[string]any
		field string
	}{
		{"zero", map[string]any{"amount": "0"}, "input.amount"},
		{"negative", map[string]any{"amount": "-5.00"}, "input.amount"},
		{"too many decimals", map[string]any{"amount": "1.005"}, "input.amount"},
		{"too many decimals for JPY", map[string]any{"amount": "10.5", "currency": "JPY"}, "input.amount"},
		{"absurdly large", map[string]any{"amount": "1000000000000000.01"}, "input.amount"},
		{"unknown currency", map[string]any{"currency": "XYZ"}, "input.currency"},
		{"empty description", map[string]any{"description": " "}, "input.description"},
		{"long category", map[string]any{"category": longText(51)}, "input.category"},
		{"no splits", map[string]any{"splits": []any{}}, "input.splits"},
		{"someone twice", map[string]any{"splits": []any{map[string]any{"userId": "222"}, map[string]any{"userId": "222"}}}, "input.splits[1].userId"},
		{"not a member", map[string]any{"splits": []any{map[string]any{"userId": "222"}, map[string]any{"userId": "999"}}}, "input.splits[1].userId"},
		{"payer not a member", map[string]any{"payerId": "999"}, "input.payerId"},
		{"amount in an equal split", map[string]any{"splits": []any{map[string]any{"userId": "222", "amount": "1.00"}}}, "input.splits[0].amount"},
		{"exact without amount", map[string]any{"splitType": "EXACT", "splits": []any{map[string]any{"userId": "222"}}}, "input.splits[0].amount"},
		{"exact not adding up", map[string]any{"splitType": "EXACT", "splits": []any{
			map[string]any{"userId": "111", "amount": "5.00"}, map[string]any{"userId": "222", "amount": "4.99"}}}, "input.splits"},
		{"exact with too many decimals", map[string]any{"splitType": "EXACT", "splits": []any{
			map[string]any{"userId": "111", "amount": "5.005"}, map[string]any{"userId": "222", "amount": "4.995"}}}, "input.splits[0].amount"},
		{"exact negative part", map[string]any{"splitType": "EXACT", "splits": []any{
			map[string]any{"userId": "111", "amount": "11.00"}, map[string]any{"userId": "222", "amount": "-1.00"}}}, "input.splits[1].amount"},
		{"percentages not 100", map[string]any{"splitType": "PERCENTAGE", "splits": []any{
			map[string]any{"userId": "111", "percentage": "50"}, map[string]any{"userId": "222", "percentage": "49.99"}}}, "input.splits"},
		{"percentage missing", map[string]any{"splitType": "PERCENTAGE", "splits": []any{map[string]any{"userId": "111"}}}, "input.splits[0].percentage"},
		{"percentage over 100", map[string]any{"splitType": "PERCENTAGE", "splits": []any{
			map[string]any{"userId": "111", "percentage": "150"}, map[string]any{"userId": "222", "percentage": "-50"}}}, "input.splits[1].percentage"},
		{"not a decimal", map[string]any{"amount": "12,50"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := map[string]any{"groupId": group, "amount": "10.00", "description": "Dinner", "splitType": "EQUAL", "splits": equal}
			for k, v := range tc.input {
				in[k] = v
			}
			res := alice.Fails("BAD_USER_INPUT", createExpense, "in", in)
			if tc.field != "" {
				require.Equal(t, tc.field, res.Field(), res.Errors[0].Message)
			}
			require.NotContains(t, res.Errors[0].Message, "dynamo")
		})
	}
	// Nothing was recorded by any of them.
	var out struct {
		Group struct {
			Expenses struct{ Nodes []struct{ ID string } }
		}
	}
	alice.Must(&out, `query($g: ID!) { group(id: $g) { expenses { nodes { id } } } }`, "g", group)
	require.Empty(t, out.Group.Expenses.Nodes)
}

func TestCreateExpenseFloatAmountIsRefused(t *testing.T) {
	_, group, alice, _, _ := trio(t)
	res := alice.Do(`mutation($g: ID!) { createExpense(input: {groupId: $g, amount: 12.5, description: "x", splitType: EQUAL, splits: [{userId: "111"}]}) { id } }`, "g", group)
	require.NotEmpty(t, res.Errors)
	require.Contains(t, res.Errors[0].Message, `"12.50"`)
}

func TestCreateExpenseInAnotherGroup(t *testing.T) {
	api, group, _, _, _ := trio(t)
	mallory := api.User("666", "Mallory")
	mallory.Fails("NOT_FOUND", createExpense, "in", map[string]any{
		"groupId": group, "amount": "1.00", "description": "x", "splitType": "EQUAL", "splits": []any{map[string]any{"userId": "666"}},
	})
}

func TestDeleteExpense(t *testing.T) {
	api, group, alice, bob, carol := trio(t)
	mallory := api.User("666", "Mallory")
	id := alice.Expense(group, "30.00", "111", "222", "333")
	const del = `mutation($id: ID!) { deleteExpense(id: $id) }`

	mallory.Fails("NOT_FOUND", del, "id", id)
	bob.Fails("FORBIDDEN", del, "id", id)

	var out struct{ DeleteExpense string }
	alice.Must(&out, del, "id", id)
	require.Equal(t, id, out.DeleteExpense)

	// It is still there for "undo", marked deleted.
	var e struct {
		Expense *struct {
			ID        string
			DeletedAt *string
		}
	}
	carol.Must(&e, `query($id: ID!) { expense(id: $id) { id deletedAt } }`, "id", id)
	require.NotNil(t, e.Expense.DeletedAt)
	var owes struct {
		Me struct {
			Owes struct{ Nodes []struct{ Amount string } }
		}
	}
	bob.Must(&owes, `{ me { owes { nodes { amount } } } }`)
	require.Empty(t, owes.Me.Owes.Nodes, "the participant records went with it")

	alice.Fails("CONFLICT", del, "id", id)

	// Whoever recorded an expense for someone else may delete it too.
	var created struct{ CreateExpense struct{ ID string } }
	bob.Must(&created, createExpense, "in", map[string]any{
		"groupId": group, "amount": "3.00", "description": "x", "payerId": "333", "splitType": "EQUAL", "splits": []any{map[string]any{"userId": "222"}},
	})
	bob.Must(&out, del, "id", created.CreateExpense.ID)
}

func TestExpenseIsVisibleOnlyToMembers(t *testing.T) {
	api, group, alice, _, _ := trio(t)
	mallory := api.User("666", "Mallory")
	id := alice.Expense(group, "30.00", "111", "222")
	const q = `query($id: ID!) { expense(id: $id) { id } }`
	var e struct{ Expense *struct{ ID string } }
	mallory.Must(&e, q, "id", id)
	require.Nil(t, e.Expense)
	mallory.Must(&e, q, "id", "junk")
	require.Nil(t, e.Expense)
	alice.Must(&e, q, "id", id)
	require.Equal(t, id, e.Expense.ID)
}

func TestCreateExpenseIdempotencyKey(t *testing.T) {
	_, group, alice, _, _ := trio(t)
	in := map[string]any{
		"groupId": group, "amount": "12.00", "description": "Pizza", "splitType": "EQUAL",
		"splits": []any{map[string]any{"userId": "111"}, map[string]any{"userId": "222"}}, "idempotencyKey": "9b2f6c1e-retry",
	}
	var first, retry struct{ CreateExpense expenseResult }
	alice.Must(&first, createExpense, "in", in)
	alice.Must(&retry, createExpense, "in", in)
	require.Equal(t, first, retry)

	in["amount"] = "13.00"
	alice.Fails("CONFLICT", createExpense, "in", in)
	in["idempotencyKey"] = "has space"
	require.Equal(t, "input.idempotencyKey", alice.Fails("BAD_USER_INPUT", createExpense, "in", in).Field())

	var list struct {
		Group struct {
			Expenses struct{ Nodes []struct{ ID string } }
		}
	}
	alice.Must(&list, `query($g: ID!) { group(id: $g) { expenses { nodes { id } } } }`, "g", group)
	require.Len(t, list.Group.Expenses.Nodes, 1)
}
