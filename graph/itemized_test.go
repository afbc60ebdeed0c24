package graph_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const itemizedFields = `id amount splitType version splits { userId amount percentage shares }
	items { description amount splitType shares { userId member { name } amount percentage shares } }
	adjustments { kind amount percentage appliedAmount }`

const createItemized = `mutation($in: CreateExpenseInput!) { createExpense(input: $in) { ` + itemizedFields + ` } }`

const updateItemized = `mutation($id: ID!, $in: UpdateExpenseInput!) { updateExpense(id: $id, input: $in) { ` + itemizedFields + ` } }`

type itemizedResult struct {
	ID, Amount, SplitType string
	Version               int
	Splits                []struct {
		UserID, Amount     string
		Percentage, Shares *string
	}
	Items []struct {
		Description, Amount, SplitType string
		Shares                         []struct {
			UserID             string
			Member             struct{ Name string }
			Amount             string
			Percentage, Shares *string
		}
	}
	Adjustments []struct {
		Kind               string
		Amount, Percentage *string
		AppliedAmount      string
	}
}

// shares is each person's split, "user amount".
func (r itemizedResult) shares() []string {
	var out []string
	for _, s := range r.Splits {
		out = append(out, s.UserID+" "+s.Amount)
	}
	return out
}

// lines is each line as "description amount TYPE: user amount[ weight], …".
func (r itemizedResult) lines() []string {
	var out []string
	for _, it := range r.Items {
		var parts []string
		for _, s := range it.Shares {
			p := s.UserID + " " + s.Amount
			if s.Percentage != nil {
				p += " " + *s.Percentage + "%"
			}
			if s.Shares != nil {
				p += " ×" + *s.Shares
			}
			parts = append(parts, p)
		}
		out = append(out, it.Description+" "+it.Amount+" "+it.SplitType+": "+strings.Join(parts, ", "))
	}
	return out
}

func (r itemizedResult) adjustments() []string {
	var out []string
	for _, a := range r.Adjustments {
		given := ""
		if a.Amount != nil {
			given = *a.Amount
		}
		if a.Percentage != nil {
			given = *a.Percentage + "%"
		}
		out = append(out, a.Kind+" "+given+" = "+a.AppliedAmount)
	}
	return out
}

// itemizedDinner is the docs/money.md example: pizza for Alice and Bob, wine by
// glasses for Bob (2) and Carol (1), a salad for Carol; tax 8.875%, a tip of
// 9.00, a 5.00 discount.
func itemizedDinner(group string) map[string]any {
	return map[string]any{
		"groupId": group, "amount": "72.59", "description": "Dinner",
		"items": []any{
			map[string]any{"description": "Pizza", "amount": "24.00", "splits": []any{map[string]any{"userId": "111"}, map[string]any{"userId": "222"}}},
			map[string]any{"description": "Wine", "amount": "30.00", "splitType": "SHARES",
				"splits": []any{map[string]any{"userId": "222", "shares": "2"}, map[string]any{"userId": "333", "shares": "1"}}},
			map[string]any{"description": "Salad", "amount": "9.00", "splitType": "EXACT", "splits": []any{map[string]any{"userId": "333", "amount": "9.00"}}},
		},
		"adjustments": []any{
			map[string]any{"kind": "TAX", "percentage": "8.875"},
			map[string]any{"kind": "TIP", "amount": "9.00"},
			map[string]any{"kind": "DISCOUNT", "amount": "5.00"},
		},
	}
}

func TestItemizedExpenseCreateAndReadBack(t *testing.T) {
	_, group, alice, bob, _ := trio(t)
	var out struct{ CreateExpense itemizedResult }
	alice.Must(&out, createItemized, "in", itemizedDinner(group))
	e := out.CreateExpense
	// Lines 12.00, 32.00 and 19.00 of 63.00; the total 72.59 shared by them:
	// 13.8267, 36.8711, 21.8922 → the leftover cent to the largest remainder.
	assert.Equal(t, "72.59", e.Amount)
	assert.Equal(t, "EXACT", e.SplitType)
	assert.Equal(t, []string{"111 13.83", "222 36.87", "333 21.89"}, e.shares())
	assert.Equal(t, []string{
		"Pizza 24.00 EQUAL: 111 12.00, 222 12.00",
		"Wine 30.00 SHARES: 222 20.00 ×2, 333 10.00 ×1",
		"Salad 9.00 EXACT: 333 9.00",
	}, e.lines())
	assert.Equal(t, []string{"TAX 8.875% = 5.59", "TIP 9.00 = 9.00", "DISCOUNT 5.00 = -5.00"}, e.adjustments())
	assert.Equal(t, "Bob", e.Items[1].Shares[0].Member.Name)

	// Read again, by another member: the same; the balances are the splits'.
	var read struct{ Expense itemizedResult }
	bob.Must(&read, `query($id: ID!) { expense(id: $id) { `+itemizedFields+` } }`, "id", e.ID)
	assert.Equal(t, e, read.Expense)
	var g struct {
		Group struct {
			Balances []struct {
				Member struct{ UserID string }
				Net    string
			}
		}
	}
	alice.Must(&g, `query($g: ID!) { group(id: $g) { balances { member { userId } net } } }`, "g", group)
	nets := map[string]string{}
	for _, b := range g.Group.Balances {
		nets[b.Member.UserID] = b.Net
	}
	assert.Equal(t, map[string]string{"111": "58.76", "222": "-36.87", "333": "-21.89"}, nets)

	// An expense that is not itemized has no items.
	var plain struct{ Expense itemizedResult }
	id := alice.Expense(group, "10.00", "111", "222")
	alice.Must(&plain, `query($id: ID!) { expense(id: $id) { `+itemizedFields+` } }`, "id", id)
	assert.Empty(t, plain.Expense.Items)
	assert.Empty(t, plain.Expense.Adjustments)
}

func TestItemizedExpenseUpdateAndHistory(t *testing.T) {
	_, group, alice, bob, _ := trio(t)
	var out struct{ CreateExpense itemizedResult }
	alice.Must(&out, createItemized, "in", itemizedDinner(group))
	id := out.CreateExpense.ID

	// New lines without an amount: the amount becomes their total (no
	// adjustments given: they stay, the tax on the new subtotal).
	var up struct{ UpdateExpense itemizedResult }
	bob.Must(&up, updateItemized, "id", id, "in", map[string]any{"expectedVersion": 1, "items": []any{
		map[string]any{"description": "Pizza", "amount": "24.00", "splits": []any{map[string]any{"userId": "111"}, map[string]any{"userId": "222"}}},
		map[string]any{"description": "Wine", "amount": "30.00", "splitType": "PERCENTAGE",
			"splits": []any{map[string]any{"userId": "222", "percentage": "50"}, map[string]any{"userId": "333", "percentage": "50"}}},
	}})
	e := up.UpdateExpense
	// Subtotal 54.00, tax 4.79 (4.7925), tip 9.00, discount −5.00: 62.79.
	assert.Equal(t, "62.79", e.Amount)
	assert.Equal(t, 2, e.Version)
	assert.Equal(t, []string{"TAX 8.875% = 4.79", "TIP 9.00 = 9.00", "DISCOUNT 5.00 = -5.00"}, e.adjustments())
	// 62.79 × 12/54, 27/54, 15/54 = 13.9533, 31.395, 17.4417.
	assert.Equal(t, []string{"111 13.95", "222 31.40", "333 17.44"}, e.shares())

	// Adjustments alone, with the amount they must come to.
	bob.Must(&up, updateItemized, "id", id, "in", map[string]any{"expectedVersion": 2, "amount": "59.40",
		"adjustments": []any{map[string]any{"kind": "SERVICE", "percentage": "10"}}})
	e = up.UpdateExpense
	assert.Equal(t, "59.40", e.Amount)
	assert.Equal(t, []string{"SERVICE 10% = 5.40"}, e.adjustments())
	assert.Equal(t, []string{"111 13.20", "222 29.70", "333 16.50"}, e.shares())

	// A description edit keeps everything.
	bob.Must(&up, updateItemized, "id", id, "in", map[string]any{"expectedVersion": 3, "description": "Dinner at Luigi's"})
	assert.Equal(t, e.shares(), up.UpdateExpense.shares())
	assert.Equal(t, e.lines(), up.UpdateExpense.lines())

	// The history shows what the lines and adjustments were and became.
	var h struct {
		Expense struct {
			History []struct {
				Version int
				Changes []struct {
					Field         string
					Before, After *string
				}
			}
		}
	}
	alice.Must(&h, `query($id: ID!) { expense(id: $id) { history { version changes { field before after } } } }`, "id", id)
	require.Len(t, h.Expense.History, 4)
	changed := func(version int) map[string][2]string {
		out := map[string][2]string{}
		for _, r := range h.Expense.History {
			if r.Version != version {
				continue
			}
			for _, c := range r.Changes {
				var b, a string
				if c.Before != nil {
					b = *c.Before
				}
				if c.After != nil {
					a = *c.After
				}
				out[c.Field] = [2]string{b, a}
			}
		}
		return out
	}
	v1 := changed(1)
	assert.Equal(t, "Pizza 24.00 (EQUAL): Alice 12.00, Bob 12.00 | Wine 30.00 (SHARES): Bob 20.00 (2 shares), Carol 10.00 (1 shares) | Salad 9.00 (EXACT): Carol 9.00", v1["items"][1])
	assert.Equal(t, "TAX 8.875% = 5.59; TIP 9.00 = 9.00; DISCOUNT 5.00 = -5.00", v1["adjustments"][1])
	v2 := changed(2)
	assert.Equal(t, v1["items"][1], v2["items"][0])
	assert.Equal(t, "Pizza 24.00 (EQUAL): Alice 12.00, Bob 12.00 | Wine 30.00 (PERCENTAGE): Bob 15.00 (50%), Carol 15.00 (50%)", v2["items"][1])
	assert.Equal(t, [2]string{"72.59", "62.79"}, v2["amount"])
	assert.Contains(t, v2, "adjustments", "the tax came to another amount")
	v3 := changed(3)
	assert.Equal(t, [2]string{"TAX 8.875% = 4.79; TIP 9.00 = 9.00; DISCOUNT 5.00 = -5.00", "SERVICE 10% = 5.40"}, v3["adjustments"])
	assert.NotContains(t, v3, "items")
	assert.Equal(t, []string{"description"}, keys(changed(4)))

	// Splits on an itemized expense are refused; items: [] stops itemizing
	// and keeps each person's total as EXACT splits.
	res := bob.Fails("BAD_USER_INPUT", updateItemized, "id", id, "in", map[string]any{"expectedVersion": 4,
		"splitType": "EQUAL", "splits": []any{map[string]any{"userId": "111"}}})
	assert.Equal(t, "input.splits", res.Field())
	res = bob.Fails("BAD_USER_INPUT", updateItemized, "id", id, "in", map[string]any{"expectedVersion": 4, "amount": "60.00"})
	assert.Equal(t, "input.amount", res.Field())
	assert.Contains(t, res.Errors[0].Message, "come to 59.40 but the amount is 60.00")
	bob.Must(&up, updateItemized, "id", id, "in", map[string]any{"expectedVersion": 4, "items": []any{}})
	assert.Empty(t, up.UpdateExpense.Items)
	assert.Empty(t, up.UpdateExpense.Adjustments)
	assert.Equal(t, "EXACT", up.UpdateExpense.SplitType)
	assert.Equal(t, e.shares(), up.UpdateExpense.shares())
	// Adjustments without items are refused; items make it itemized again.
	res = bob.Fails("BAD_USER_INPUT", updateItemized, "id", id, "in", map[string]any{"expectedVersion": 5,
		"adjustments": []any{map[string]any{"kind": "TIP", "amount": "1.00"}}})
	assert.Equal(t, "input.adjustments", res.Field())
	bob.Must(&up, updateItemized, "id", id, "in", map[string]any{"expectedVersion": 5, "amount": "59.40", "items": []any{
		map[string]any{"description": "Everything", "amount": "59.40", "splits": []any{map[string]any{"userId": "111"}, map[string]any{"userId": "222"}}},
	}})
	assert.Equal(t, []string{"111 29.70", "222 29.70"}, up.UpdateExpense.shares())
}

func keys(m map[string][2]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestItemizedExpenseValidation(t *testing.T) {
	_, group, alice, _, _ := trio(t)
	line := func(description, amount string, users ...string) map[string]any {
		var splits []any
		for _, u := range users {
			splits = append(splits, map[string]any{"userId": u})
		}
		return map[string]any{"description": description, "amount": amount, "splits": splits}
	}
	with := func(change func(in map[string]any)) map[string]any {
		in := map[string]any{"groupId": group, "amount": "30.00", "description": "Lunch",
			"items": []any{line("Soup", "10.00", "111"), line("Fish", "20.00", "222", "333")}}
		change(in)
		return in
	}
	many := make([]any, 101)
	for i := range many {
		many[i] = line(fmt.Sprintf("Line %d", i), "1.00", "111")
	}
	for _, tc := range []struct {
		name, field, message string
		change               func(in map[string]any)
	}{
		{"total differs from the amount", "input.amount", "the items (30.00) and adjustments come to 30.00 but the amount is 31.00 USD",
			func(in map[string]any) { in["amount"] = "31.00" }},
		{"items and splits", "input.splitType", "either items or splitType",
			func(in map[string]any) { in["splitType"] = "EQUAL" }},
		{"items and splits", "input.splits", "either items or splitType",
			func(in map[string]any) { in["splits"] = []any{map[string]any{"userId": "111"}} }},
		{"neither", "input.splitType", "is required unless items are given",
			func(in map[string]any) { delete(in, "items") }},
		{"adjustments without items", "input.adjustments", "give items too", func(in map[string]any) {
			delete(in, "items")
			in["splitType"], in["splits"] = "EQUAL", []any{map[string]any{"userId": "111"}}
			in["adjustments"] = []any{map[string]any{"kind": "TIP", "amount": "1.00"}}
		}},
		{"no lines", "input.items", "at least one line", func(in map[string]any) { in["items"] = []any{} }},
		{"too many lines", "input.items", "at most 100 lines", func(in map[string]any) { in["amount"], in["items"] = "101.00", many }},
		{"a long description", "input.items[1].description", "1 to 100 characters",
			func(in map[string]any) {
				in["items"].([]any)[1].(map[string]any)["description"] = strings.Repeat("é", 101)
			}},
		{"a blank description", "input.items[0].description", "must not be empty",
			func(in map[string]any) { in["items"].([]any)[0].(map[string]any)["description"] = "  " }},
		{"a line of zero", "input.items[0].amount", "greater than zero",
			func(in map[string]any) { in["items"].([]any)[0].(map[string]any)["amount"] = "0" }},
		{"too many decimals", "input.items[0].amount", "decimal places",
			func(in map[string]any) { in["items"].([]any)[0].(map[string]any)["amount"] = "10.001" }},
		{"a line's exact parts", "input.items[1].splits", "add up",
			func(in map[string]any) {
				in["items"].([]any)[1] = map[string]any{"description": "Fish", "amount": "20.00", "splitType": "EXACT",
					"splits": []any{map[string]any{"userId": "222", "amount": "15.00"}, map[string]any{"userId": "333", "amount": "4.00"}}}
			}},
		{"a line's percentages", "input.items[1].splits[0].percentage", "is required for PERCENTAGE",
			func(in map[string]any) { in["items"].([]any)[1].(map[string]any)["splitType"] = "PERCENTAGE" }},
		{"someone twice in a line", "input.items[1].splits[1].userId", "listed twice",
			func(in map[string]any) { in["items"].([]any)[1] = line("Fish", "20.00", "222", "222") }},
		{"not a member", "input.items[1].splits[0].userId", "not a member",
			func(in map[string]any) { in["items"].([]any)[1] = line("Fish", "20.00", "999", "333") }},
		{"amount and percentage", "input.adjustments[0]", "either amount or percentage",
			func(in map[string]any) {
				in["adjustments"] = []any{map[string]any{"kind": "TAX", "amount": "1.00", "percentage": "5"}}
			}},
		{"neither amount nor percentage", "input.adjustments[0]", "either amount or percentage",
			func(in map[string]any) { in["adjustments"] = []any{map[string]any{"kind": "TAX"}} }},
		{"a percentage above 100", "input.adjustments[0].percentage", "at most 100",
			func(in map[string]any) {
				in["adjustments"] = []any{map[string]any{"kind": "TIP", "percentage": "100.5"}}
			}},
		{"a percentage of too many decimals", "input.adjustments[0].percentage", "at most 10 decimal places",
			func(in map[string]any) {
				in["adjustments"] = []any{map[string]any{"kind": "TIP", "percentage": "1.00000000001"}}
			}},
		{"a negative amount", "input.adjustments[0].amount", "greater than zero",
			func(in map[string]any) {
				in["adjustments"] = []any{map[string]any{"kind": "DISCOUNT", "amount": "-1.00"}}
			}},
		{"a discount of everything", "input.adjustments", "greater than zero",
			func(in map[string]any) {
				in["amount"], in["adjustments"] = "0.01", []any{map[string]any{"kind": "DISCOUNT", "percentage": "100"}}
			}},
		{"too many adjustments", "input.adjustments", "at most 10 adjustments", func(in map[string]any) {
			var adjs []any
			for range 11 {
				adjs = append(adjs, map[string]any{"kind": "TIP", "amount": "1.00"})
			}
			in["adjustments"] = adjs
		}},
		{"converted", "input.convertTo", "its own currency", func(in map[string]any) { in["convertTo"], in["rate"] = "EUR", "0.9" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := alice.Fails("BAD_USER_INPUT", createItemized, "in", with(tc.change))
			assert.Equal(t, tc.field, res.Field())
			assert.Contains(t, res.Errors[0].Message, tc.message)
		})
	}

	// A recurring expense is not itemized.
	res := alice.Fails("BAD_USER_INPUT", `mutation($in: CreateRecurringExpenseInput!) { createRecurringExpense(input: $in) { id } }`,
		"in", map[string]any{"every": "MONTH", "startsOn": "2026-01-01", "template": with(func(map[string]any) {})})
	assert.Equal(t, "input.template.items", res.Field())

	// Nothing was written.
	var g struct {
		Group struct {
			Expenses struct{ Nodes []struct{ ID string } }
		}
	}
	alice.Must(&g, `query($g: ID!) { group(id: $g) { expenses(first: 10) { nodes { id } } } }`, "g", group)
	assert.Empty(t, g.Group.Expenses.Nodes)
}

// TestItemizedExpenseCurrencies: lines and adjustments in currencies of 0,
// 3 and 9 decimals.
func TestItemizedExpenseCurrencies(t *testing.T) {
	_, group, alice, _, _ := trio(t)
	for _, tc := range []struct {
		cur, amount, line1, line2, tip string
		shares                         []string
	}{
		// 1000 + 2000 + 10% (300): 3300 × 1000/3000 = 1100, × 2000/3000 = 2200.
		{"JPY", "3300", "1000", "2000", "10", []string{"111 1100", "222 2200"}},
		// 1.000 + 0.500 + 10% (0.150): 1.100, 0.550.
		{"KWD", "1.650", "1.000", "0.500", "10", []string{"111 1.100", "222 0.550"}},
		// 1 + 0.5 + 3% (0.045): 1.03, 0.515.
		{"TON", "1.545000000", "1", "0.5", "3", []string{"111 1.030000000", "222 0.515000000"}},
	} {
		var out struct{ CreateExpense itemizedResult }
		alice.Must(&out, createItemized, "in", map[string]any{"groupId": group, "currency": tc.cur, "amount": tc.amount, "description": "Bill",
			"items": []any{
				map[string]any{"description": "A", "amount": tc.line1, "splits": []any{map[string]any{"userId": "111"}}},
				map[string]any{"description": "B", "amount": tc.line2, "splits": []any{map[string]any{"userId": "222"}}},
			},
			"adjustments": []any{map[string]any{"kind": "SERVICE", "percentage": tc.tip}}})
		assert.Equal(t, tc.shares, out.CreateExpense.shares(), tc.cur)
	}
}

// TestItemizedExpenseExportImport: the Fracti JSON export (format version
// 2) carries the lines and adjustments, and importing it gives the same
// itemized expense, with the same splits and balances.
func TestItemizedExpenseExportImport(t *testing.T) {
	api, group, alice, _, _ := trio(t)
	var out struct{ CreateExpense itemizedResult }
	alice.Must(&out, createItemized, "in", itemizedDinner(group))
	want := out.CreateExpense

	w := alice.Get("/export/groups/" + group + ".json")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var doc struct {
		FormatVersion int
		Expenses      []struct {
			Items []struct {
				Description string
				Shares      []struct{ MemberID, Amount string }
			}
			Adjustments []struct{ Kind, Percentage, AppliedAmount string }
		}
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &doc))
	assert.Equal(t, 2, doc.FormatVersion)
	require.Len(t, doc.Expenses, 1)
	require.Len(t, doc.Expenses[0].Items, 3)
	assert.Equal(t, "Wine", doc.Expenses[0].Items[1].Description)
	assert.Equal(t, "8.875", doc.Expenses[0].Adjustments[0].Percentage)
	assert.Equal(t, "-5.00", doc.Expenses[0].Adjustments[2].AppliedAmount)

	dan := api.User("444", "Dan")
	var imp struct {
		ImportGroup struct {
			Group    struct{ ID string }
			Expenses int
			Problems []struct{ Message string }
		}
	}
	dan.Must(&imp, `mutation($file: Upload!) { importGroup(input: {format: FRACTI_JSON, file: $file, dryRun: false}) {
		group { id } expenses problems { message } } }`, "file", apitest.File{Name: "trip.json", Data: w.Body.Bytes()})
	require.Equal(t, 1, imp.ImportGroup.Expenses)
	require.Empty(t, imp.ImportGroup.Problems)
	var g struct {
		Group struct {
			Expenses struct{ Nodes []itemizedResult }
		}
	}
	dan.Must(&g, `query($g: ID!) { group(id: $g) { expenses(first: 10) { nodes { `+itemizedFields+` } } } }`, "g", imp.ImportGroup.Group.ID)
	require.Len(t, g.Group.Expenses.Nodes, 1)
	got := g.Group.Expenses.Nodes[0]
	// The members have new ids in the new group: compare by name and amount.
	named := func(r itemizedResult) []string {
		var out []string
		for _, it := range r.Items {
			for _, s := range it.Shares {
				out = append(out, it.Description+" "+s.Member.Name+" "+s.Amount)
			}
		}
		return out
	}
	assert.Equal(t, named(want), named(got))
	assert.Equal(t, want.adjustments(), got.adjustments())
	assert.Equal(t, want.Amount, got.Amount)
	var amounts []string
	for _, s := range got.Splits {
		amounts = append(amounts, s.Amount)
	}
	assert.Equal(t, []string{"13.83", "36.87", "21.89"}, amounts)

	// A wrong share in the file is refused at its path.
	bad := strings.Replace(w.Body.String(), `"appliedAmount":"5.59"`, `"appliedAmount":"5.60"`, 1)
	require.NotEqual(t, w.Body.String(), bad)
	res := dan.Fails("BAD_USER_INPUT", `mutation($file: Upload!) { importGroup(input: {format: FRACTI_JSON, file: $file, dryRun: true}) { expenses } }`,
		"file", apitest.File{Name: "trip.json", Data: []byte(bad)})
	assert.Contains(t, res.Errors[0].Message, "adjustments[0].appliedAmount")
}

// TestItemizedExpenseIdempotency: a retry with the same key returns the
// first expense; the same key with other lines (the same splits) is
// another request.
func TestItemizedExpenseIdempotency(t *testing.T) {
	_, group, alice, _, _ := trio(t)
	in := itemizedDinner(group)
	in["idempotencyKey"] = "dinner-1"
	var first, again struct{ CreateExpense itemizedResult }
	alice.Must(&first, createItemized, "in", in)
	alice.Must(&again, createItemized, "in", in)
	assert.Equal(t, first.CreateExpense.ID, again.CreateExpense.ID)
	// The same people and totals, but the pizza is called otherwise.
	items := in["items"].([]any)
	items[0].(map[string]any)["description"] = "Pizza margherita"
	alice.Fails("CONFLICT", createItemized, "in", in)
}
