package graph_test

import (
	"fmt"
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

type balanceRow struct {
	ID, Currency, Paid, Owed, Sent, Received, Net string
	Member                                        struct{ UserID string }
}

type debtRow struct {
	ID, Amount, Currency string
	From, To             struct{ UserID string }
}

const balancesQuery = `query($g: ID!) { group(id: $g) {
	balances { id currency paid owed sent received net member { userId } }
	simplified: debts { id amount currency from { userId } to { userId } }
	pairwise: debts(simplify: false) { id amount currency from { userId } to { userId } }
} }`

type balancesResult struct {
	Group struct {
		Balances   []balanceRow
		Simplified []debtRow
		Pairwise   []debtRow
	}
}

func netsOf(rows []balanceRow) map[string]string {
	out := map[string]string{}
	for _, b := range rows {
		out[b.Currency+" "+b.Member.UserID] = b.Net
	}
	return out
}

func TestBalancesAndDebts(t *testing.T) {
	_, group, alice, bob, carol := trio(t)
	alice.Expense(group, "90.00", "111", "222", "333") // Bob and Carol owe Alice 30 each
	bob.Expense(group, "30.00", "333")                 // Carol owes Bob 30

	var out balancesResult
	alice.Must(&out, balancesQuery, "g", group)
	require.Equal(t, map[string]string{"USD 111": "60.00", "USD 222": "0.00", "USD 333": "-60.00"}, netsOf(out.Group.Balances))
	for _, b := range out.Group.Balances {
		require.Equal(t, group+":"+b.Member.UserID+":USD", b.ID)
	}
	// Simplified: Carol pays Alice, once. Pairwise: what the expenses say.
	require.Len(t, out.Group.Simplified, 1)
	require.Equal(t, debtRow{ID: group + ":333:111:USD", Amount: "60.00", Currency: "USD",
		From: struct{ UserID string }{"333"}, To: struct{ UserID string }{"111"}}, out.Group.Simplified[0])
	pairs := map[string]string{}
	for _, d := range out.Group.Pairwise {
		pairs[d.From.UserID+">"+d.To.UserID] = d.Amount
	}
	require.Equal(t, map[string]string{"222>111": "30.00", "333>111": "30.00", "333>222": "30.00"}, pairs)

	// Paying the simplified debt clears everything: Carol sends it, Alice confirms it.
	var st struct{ CreateSettlement struct{ ID string } }
	carol.Must(&st, `mutation($g: ID!) { createSettlement(input: {groupId: $g, toUserId: "111", amount: "60.00", status: SENT}) { id } }`, "g", group)
	alice.Must(nil, `mutation($id: ID!) { updateSettlement(id: $id, input: {status: COMPLETED}) { id } }`, "id", st.CreateSettlement.ID)
	alice.Must(&out, balancesQuery, "g", group)
	for _, b := range out.Group.Balances {
		require.Equal(t, "0.00", b.Net, b.Member.UserID)
	}
	require.Empty(t, out.Group.Simplified)
	pairs = map[string]string{}
	for _, d := range out.Group.Pairwise {
		pairs[d.From.UserID+">"+d.To.UserID] = d.Amount
	}
	// Pairwise debts stay as the expenses and settlements between each two
	// left them: a cycle now, which settles itself when paid round.
	require.Equal(t, map[string]string{"222>111": "30.00", "111>333": "30.00", "333>222": "30.00"}, pairs)
	_ = bob
}

func TestMemberBalancesAndSummary(t *testing.T) {
	api, group, alice, bob, _ := trio(t)
	other := bob.CreateGroup("Other")
	alice.Join(other)
	alice.Expense(group, "20.00", "111", "222") // Bob owes Alice 10 USD
	var e struct{ CreateExpense struct{ ID string } }
	bob.Must(&e, createExpense, "in", map[string]any{"groupId": other, "amount": "3", "currency": "TON", "description": "x",
		"splitType": "EQUAL", "splits": []any{map[string]any{"userId": "111"}, map[string]any{"userId": "222"}}})
	bob.Must(&e, createExpense, "in", map[string]any{"groupId": other, "amount": "4.00", "description": "y",
		"splitType": "EQUAL", "splits": []any{map[string]any{"userId": "111"}}})

	var m struct {
		Group struct {
			Member struct{ Balances []balanceRow }
		}
	}
	alice.Must(&m, `query($g: ID!) { group(id: $g) { member(userId: "222") { balances { currency net owed } } } }`, "g", group)
	require.Len(t, m.Group.Member.Balances, 1)
	require.Equal(t, "-10.00", m.Group.Member.Balances[0].Net)
	require.Equal(t, "10.00", m.Group.Member.Balances[0].Owed)

	type total struct{ ID, Currency, YouAreOwed, YouOwe, Net string }
	var s struct {
		Me struct {
			Summary struct {
				ID     string
				Totals []total
			}
		}
	}
	alice.Must(&s, `{ me { summary { id totals { id currency youAreOwed youOwe net } } } }`)
	require.Equal(t, "111", s.Me.Summary.ID)
	require.Equal(t, []total{
		{"111:TON", "TON", "0.000000000", "1.500000000", "-1.500000000"},
		{"111:USD", "USD", "10.00", "4.00", "6.00"},
	}, s.Me.Summary.Totals)
	_ = api
}

func TestSharesAndSeveralPayers(t *testing.T) {
	_, group, alice, bob, _ := trio(t)
	var out struct {
		CreateExpense struct {
			expenseResult
			Payer  struct{ UserID string }
			Payers []struct {
				ID, UserID, Amount string
				Member             struct{ Name string }
			}
			Splits []struct{ UserID, Amount, Shares string }
		}
	}
	// 2 nights against 3 nights; Alice and Bob paid 250 together, Bob more.
	bob.Must(&out, `mutation($in: CreateExpenseInput!) { createExpense(input: $in) {
		id amount payer { userId } payers { id userId amount member { name } } splits { userId amount shares } } }`,
		"in", map[string]any{"groupId": group, "amount": "250.00", "description": "Cabin", "splitType": "SHARES",
			"payers": []any{map[string]any{"userId": "111", "amount": "100.00"}, map[string]any{"userId": "222", "amount": "150.00"}},
			"splits": []any{map[string]any{"userId": "111", "shares": "2"}, map[string]any{"userId": "333", "shares": "3"}}})
	e := out.CreateExpense
	require.Equal(t, "222", e.Payer.UserID, "the one who paid most")
	require.Len(t, e.Payers, 2)
	require.Equal(t, e.ID+":111", e.Payers[0].ID)
	require.Equal(t, "Alice", e.Payers[0].Member.Name)
	require.Equal(t, []struct{ UserID, Amount, Shares string }{{"111", "100.00", "2"}, {"333", "150.00", "3"}}, e.Splits)

	var b balancesResult
	alice.Must(&b, balancesQuery, "g", group)
	require.Equal(t, map[string]string{"USD 111": "0.00", "USD 222": "150.00", "USD 333": "-150.00"}, netsOf(b.Group.Balances))

	// Both payers count it among the expenses they paid.
	for _, u := range []*apitest.User{alice, bob} {
		var me struct {
			Me struct {
				ExpensesPaid struct{ Nodes []struct{ ID string } }
			}
		}
		u.Must(&me, `{ me { expensesPaid { nodes { id } } } }`)
		require.Equal(t, []struct{ ID string }{{e.ID}}, me.Me.ExpensesPaid.Nodes)
	}

	// Ties go to the first listed.
	bob.Must(&out, `mutation($in: CreateExpenseInput!) { createExpense(input: $in) { id payer { userId } } }`,
		"in", map[string]any{"groupId": group, "amount": "10.00", "description": "Tie", "splitType": "EQUAL",
			"payers": []any{map[string]any{"userId": "333", "amount": "5.00"}, map[string]any{"userId": "111", "amount": "5.00"}},
			"splits": []any{map[string]any{"userId": "222"}}})
	require.Equal(t, "333", out.CreateExpense.Payer.UserID)
}

func TestPayersValidation(t *testing.T) {
	_, group, alice, _, _ := trio(t)
	splits := []any{map[string]any{"userId": "111"}}
	for _, tc := range []struct {
		name   string
		payers []any
		extra  map[string]any
		field  string
	}{
		{"not adding up", []any{map[string]any{"userId": "111", "amount": "5.00"}, map[string]any{"userId": "222", "amount": "4.00"}}, nil, "input.payers"},
		{"twice", []any{map[string]any{"userId": "111", "amount": "5.00"}, map[string]any{"userId": "111", "amount": "5.00"}}, nil, "input.payers[1].userId"},
		{"zero", []any{map[string]any{"userId": "111", "amount": "10.00"}, map[string]any{"userId": "222", "amount": "0"}}, nil, "input.payers[1].amount"},
		{"not a member", []any{map[string]any{"userId": "111", "amount": "5.00"}, map[string]any{"userId": "999", "amount": "5.00"}}, nil, "input.payers[1].userId"},
		{"with payerId too", []any{map[string]any{"userId": "111", "amount": "10.00"}}, map[string]any{"payerId": "111"}, "input.payerId"},
		{"shares missing", []any{map[string]any{"userId": "111", "amount": "10.00"}}, map[string]any{"splitType": "SHARES"}, "input.splits[0].shares"},
		{"shares all zero", []any{map[string]any{"userId": "111", "amount": "10.00"}}, map[string]any{"splitType": "SHARES",
			"splits": []any{map[string]any{"userId": "111", "shares": "0"}}}, "input.splits"},
		{"shares in an equal split", []any{map[string]any{"userId": "111", "amount": "10.00"}}, map[string]any{
			"splits": []any{map[string]any{"userId": "111", "shares": "1"}}}, "input.splits[0].shares"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := map[string]any{"groupId": group, "amount": "10.00", "description": "x", "splitType": "EQUAL", "splits": splits, "payers": tc.payers}
			for k, v := range tc.extra {
				in[k] = v
			}
			require.Equal(t, tc.field, alice.Fails("BAD_USER_INPUT", createExpense, "in", in).Field())
		})
	}
}

func TestParticipantLimit(t *testing.T) {
	api := apitest.New(t)
	users := make([]*apitest.User, 98)
	for i := range users {
		users[i] = api.User(fmt.Sprint(1000+i), fmt.Sprint("U", i))
	}
	group := users[0].CreateGroup("Stadium")
	for _, u := range users[1:] {
		u.Join(group)
	}
	everyone := func(n int) []any {
		s := make([]any, n)
		for i := range s {
			s[i] = map[string]any{"userId": fmt.Sprint(1000 + i)}
		}
		return s
	}
	// 50 participants work; so do 91, the most for which every change fits
	// one transaction (an edit to another currency and day: two balances,
	// two spending summaries and the day item moved, with the history).
	require.Equal(t, 91, store.MaxExpenseParticipants)
	var ids []string
	for _, n := range []int{50, 91} {
		var out struct {
			CreateExpense struct {
				ID     string
				Splits []struct{ Amount string }
			}
		}
		users[0].Must(&out, createExpense, "in", map[string]any{"groupId": group, "amount": "100.00", "description": "x", "splitType": "EQUAL", "splits": everyone(n)})
		require.Len(t, out.CreateExpense.Splits, n)
		ids = append(ids, out.CreateExpense.ID)
	}
	res := users[0].Fails("BAD_USER_INPUT", createExpense, "in", map[string]any{"groupId": group, "amount": "100.00", "description": "x", "splitType": "EQUAL", "splits": everyone(92)})
	require.Contains(t, res.Errors[0].Message, "91")
	require.NotContains(t, res.Errors[0].Message, "ransact")

	// Moving the first expense from users 0–49 to users 47–97 would remove 46
	// participant records and write 51: past one transaction's 100 items.
	others := everyone(98)[47:]
	res = users[1].Fails("BAD_USER_INPUT", updateExpense, "id", ids[0], "in", map[string]any{"expectedVersion": 1, "splits": others})
	require.Contains(t, res.Errors[0].Message, "at most 100")
	// Half as many changes fit.
	var out editedResult
	users[1].Must(&out, updateExpense, "id", ids[0], "in", map[string]any{"expectedVersion": 1, "splits": everyone(98)[25:75]})
	require.Equal(t, 2, out.UpdateExpense.Version)
	// The largest expense moves to another currency and another day: every
	// record, two balances and two summaries in one transaction.
	users[1].Must(&out, updateExpense, "id", ids[1], "in", map[string]any{"expectedVersion": 1, "currency": "EUR", "spentAt": "2024-01-01T12:00:00.000Z"})
	require.Equal(t, 2, out.UpdateExpense.Version)
}

func TestLeaveGroup(t *testing.T) {
	api, group, alice, bob, carol := trio(t)
	mallory := api.User("666", "Mallory")
	alice.Expense(group, "20.00", "111", "222")
	const leave = `mutation($g: ID!) { leaveGroup(groupId: $g) }`

	res := bob.Fails("CONFLICT", leave, "g", group)
	require.Contains(t, res.Errors[0].Message, "-10.00 USD")
	alice.Fails("CONFLICT", leave, "g", group)
	mallory.Fails("NOT_FOUND", leave, "g", group)

	var out struct{ LeaveGroup string }
	carol.Must(&out, leave, "g", group)
	require.Equal(t, group+":333", out.LeaveGroup)

	var g groupResult
	carol.Must(&g, groupQuery, "id", group)
	require.Nil(t, g.Group, "a former member sees the group no more")
	carol.Fails("NOT_FOUND", leave, "g", group)
	alice.Must(&g, groupQuery, "id", group)
	require.Equal(t, 2, g.Group.MemberCount)
	require.Len(t, g.Group.Members.Nodes, 2)

	// Bob settles up (Alice confirms receiving it) and leaves; Alice's expense still names him.
	var st struct{ CreateSettlement struct{ ID string } }
	alice.Must(&st, `mutation($g: ID!) { createSettlement(input: {groupId: $g, fromUserId: "222", amount: "10.00", status: COMPLETED}) { id } }`, "g", group)
	bob.Must(&out, leave, "g", group)
	var list struct {
		Group struct {
			Expenses struct {
				Nodes []struct {
					Splits []struct {
						Member struct {
							Name   string
							LeftAt *string
						}
					}
				}
			}
		}
	}
	alice.Must(&list, `query($g: ID!) { group(id: $g) { expenses { nodes { splits { member { name leftAt } } } } } }`, "g", group)
	require.Equal(t, "Bob", list.Group.Expenses.Nodes[0].Splits[1].Member.Name)
	require.NotNil(t, list.Group.Expenses.Nodes[0].Splits[1].Member.LeftAt)

	// And can come back.
	bob.Join(group)
	alice.Must(&g, groupQuery, "id", group)
	require.Equal(t, 2, g.Group.MemberCount)
}

func TestAnyPayerMayDelete(t *testing.T) {
	_, group, alice, bob, carol := trio(t)
	var out struct{ CreateExpense struct{ ID string } }
	alice.Must(&out, createExpense, "in", map[string]any{"groupId": group, "amount": "10.00", "description": "x", "splitType": "EQUAL",
		"payers": []any{map[string]any{"userId": "222", "amount": "4.00"}, map[string]any{"userId": "333", "amount": "6.00"}},
		"splits": []any{map[string]any{"userId": "111"}}})
	var b balancesResult
	carol.Must(&b, balancesQuery, "g", group)
	require.Equal(t, "-10.00", netsOf(b.Group.Balances)["USD 111"])
	bob.Must(nil, `mutation($id: ID!) { deleteExpense(id: $id) }`, "id", out.CreateExpense.ID)
	carol.Must(&b, balancesQuery, "g", group)
	require.Equal(t, "0.00", netsOf(b.Group.Balances)["USD 111"])
}
