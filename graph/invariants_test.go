package graph_test

import (
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/money"
	"github.com/stretchr/testify/require"
)

// What the invariants are checked against: everything the API says about a
// group, read back through GraphQL as a client would.

type partRow struct{ UserID, Amount string }

type expenseRow struct {
	ID, Amount, Currency string
	Payer                struct{ UserID string }
	Payers               []struct {
		UserID, Amount string
	}
	Splits []partRow
}

type settlementRow struct {
	ID, Amount, Currency, Status string
	From, To                     struct{ UserID string }
}

type groupState struct {
	Expenses    []expenseRow
	Settlements []settlementRow
	Balances    []balanceRow
	Simplified  []debtRow
	Pairwise    []debtRow
}

// readGroup reads every expense, settlement, balance and debt of a group.
func readGroup(t *testing.T, u *apitest.User, groupID string) groupState {
	t.Helper()
	var st groupState
	var after any
	for {
		var out struct {
			Group struct {
				Expenses struct {
					Nodes    []expenseRow
					PageInfo pageInfo
				}
			}
		}
		u.Must(&out, `query($g: ID!, $after: String) { group(id: $g) { expenses(first: 100, after: $after) {
			nodes { id amount currency payer { userId } payers { userId amount } splits { userId amount } }
			pageInfo { hasNextPage endCursor } } } }`, "g", groupID, "after", after)
		st.Expenses = append(st.Expenses, out.Group.Expenses.Nodes...)
		if !out.Group.Expenses.PageInfo.HasNextPage {
			break
		}
		after = *out.Group.Expenses.PageInfo.EndCursor
	}
	after = nil
	for {
		var out struct {
			Group struct {
				Settlements struct {
					Nodes    []settlementRow
					PageInfo pageInfo
				}
			}
		}
		u.Must(&out, `query($g: ID!, $after: String) { group(id: $g) { settlements(first: 100, after: $after) {
			nodes { id amount currency status from { userId } to { userId } }
			pageInfo { hasNextPage endCursor } } } }`, "g", groupID, "after", after)
		st.Settlements = append(st.Settlements, out.Group.Settlements.Nodes...)
		if !out.Group.Settlements.PageInfo.HasNextPage {
			break
		}
		after = *out.Group.Settlements.PageInfo.EndCursor
	}
	var b balancesResult
	u.Must(&b, balancesQuery, "g", groupID)
	st.Balances, st.Simplified, st.Pairwise = b.Group.Balances, b.Group.Simplified, b.Group.Pairwise
	return st
}

func amountOf(t *testing.T, s, code string) money.Amount {
	t.Helper()
	a, err := money.ParseAmount(s, money.MustCurrency(code))
	require.NoError(t, err, "%s %s", s, code)
	return a
}

// tally is a recomputation kept by the test itself, independent of the server.
type tally map[string]map[string]*[4]money.Amount // currency → user → paid, owed, sent, received

func (tl tally) add(t *testing.T, code, user string, field int, a money.Amount) {
	if tl[code] == nil {
		tl[code] = map[string]*[4]money.Amount{}
	}
	if tl[code][user] == nil {
		z := money.Zero(money.MustCurrency(code))
		tl[code][user] = &[4]money.Amount{z, z, z, z}
	}
	tl[code][user][field] = tl[code][user][field].Add(a)
}

// checkInvariants checks that, in every currency, the kept balances equal a
// full recomputation from the expenses and completed settlements, that the
// nets add up to zero, that every split and every set of payers adds up to
// its expense, and that paying every listed debt (simplified or pairwise)
// leaves every net at exactly zero.
func checkInvariants(t *testing.T, st groupState) {
	t.Helper()
	want := tally{}
	for _, e := range st.Expenses {
		total := amountOf(t, e.Amount, e.Currency)
		d := map[string]money.Amount{}
		sum := money.Zero(total.Currency())
		for _, s := range e.Splits {
			a := amountOf(t, s.Amount, e.Currency)
			sum = sum.Add(a)
			d[s.UserID] = orZero(d[s.UserID], total).Sub(a)
		}
		require.Zero(t, sum.Cmp(total), "splits of expense %s add up to %s, not %s", e.ID, sum, total)
		sum = money.Zero(total.Currency())
		for _, p := range e.Payers {
			a := amountOf(t, p.Amount, e.Currency)
			sum = sum.Add(a)
			d[p.UserID] = orZero(d[p.UserID], total).Add(a)
		}
		require.Zero(t, sum.Cmp(total), "payers of expense %s add up to %s, not %s", e.ID, sum, total)
		for u, v := range d {
			if v.Sign() > 0 {
				want.add(t, e.Currency, u, 0, v)
			} else if v.Sign() < 0 {
				want.add(t, e.Currency, u, 1, v.Neg())
			}
		}
	}
	for _, s := range st.Settlements {
		if s.Status == "COMPLETED" {
			a := amountOf(t, s.Amount, s.Currency)
			want.add(t, s.Currency, s.From.UserID, 2, a)
			want.add(t, s.Currency, s.To.UserID, 3, a)
		}
	}

	nets := map[string]map[string]money.Amount{}
	seen := map[string]bool{}
	for _, b := range st.Balances {
		got := [4]money.Amount{amountOf(t, b.Paid, b.Currency), amountOf(t, b.Owed, b.Currency), amountOf(t, b.Sent, b.Currency), amountOf(t, b.Received, b.Currency)}
		exp := want[b.Currency][b.Member.UserID]
		for i, name := range []string{"paid", "owed", "sent", "received"} {
			w := money.Zero(got[i].Currency())
			if exp != nil {
				w = exp[i]
			}
			require.Zero(t, got[i].Cmp(w), "%s %s of %s: kept %s, recomputed %s", b.Currency, name, b.Member.UserID, got[i], w)
		}
		net := amountOf(t, b.Net, b.Currency)
		require.Zero(t, net.Cmp(got[0].Sub(got[1]).Add(got[2]).Sub(got[3])), "net of %s", b.Member.UserID)
		if nets[b.Currency] == nil {
			nets[b.Currency] = map[string]money.Amount{}
		}
		nets[b.Currency][b.Member.UserID] = net
		seen[b.Currency+" "+b.Member.UserID] = true
	}
	for code, users := range want {
		for u, v := range users {
			if !v[0].Sub(v[1]).Add(v[2]).Sub(v[3]).IsZero() {
				require.True(t, seen[code+" "+u], "%s balance of %s is missing", code, u)
			}
		}
	}
	for code, ns := range nets {
		sum := money.Zero(money.MustCurrency(code))
		for _, n := range ns {
			sum = sum.Add(n)
		}
		require.True(t, sum.IsZero(), "%s nets add up to %s", code, sum)
	}

	for name, debts := range map[string][]debtRow{"simplified": st.Simplified, "pairwise": st.Pairwise} {
		after := map[string]map[string]money.Amount{}
		for code, ns := range nets {
			after[code] = map[string]money.Amount{}
			for u, n := range ns {
				after[code][u] = n
			}
		}
		for _, d := range debts {
			a := amountOf(t, d.Amount, d.Currency)
			require.Positive(t, a.Sign(), "%s debt %s", name, d.ID)
			require.NotEqual(t, d.From.UserID, d.To.UserID)
			cur := after[d.Currency]
			cur[d.From.UserID] = orZero(cur[d.From.UserID], a).Add(a)
			cur[d.To.UserID] = orZero(cur[d.To.UserID], a).Sub(a)
		}
		for code, ns := range after {
			for u, n := range ns {
				require.True(t, n.IsZero(), "after paying every %s debt, %s %s is %s", name, code, u, n)
			}
		}
	}
	for code, ns := range nets {
		nonZero := 0
		for _, n := range ns {
			if !n.IsZero() {
				nonZero++
			}
		}
		count := 0
		for _, d := range st.Simplified {
			if d.Currency == code {
				count++
			}
		}
		require.LessOrEqual(t, count, max(nonZero-1, 0), "%s: simplified debts are at most one fewer than the members with a balance", code)
	}
}

func orZero(a, like money.Amount) money.Amount {
	if a.Currency().IsZero() {
		return money.Zero(like.Currency())
	}
	return a
}
