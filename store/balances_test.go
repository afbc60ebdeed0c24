package store_test

import (
	"fmt"
	"testing"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/ledger"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// nets is a group's nets in USD as strings, zero ones left out.
func (f fixture) nets(groupID string) map[string]string {
	f.t.Helper()
	gb, err := f.GetBalances(ctx, []string{groupID})
	require.NoError(f.t, err)
	out := map[string]string{}
	for u, n := range gb[0].Book(usd).Nets() {
		if !n.IsZero() {
			out[u] = n.String()
		}
	}
	return out
}

func TestExpensesKeepBalances(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2", "3")
	e := f.expense(g, "1", "30.00", "1", "2", "3")
	require.Equal(t, map[string]string{"1": "20.00", "2": "-10.00", "3": "-10.00"}, f.nets(g.ID))

	gb, err := f.GetBalances(ctx, []string{g.ID})
	require.NoError(t, err)
	b := gb[0].Book(usd)
	require.Equal(t, "20.00", b.Users["1"].Paid.String())
	require.Equal(t, "10.00", b.Users["2"].Owed.String())
	require.Equal(t, []string{"1", "2", "3"}, gb[0].MemberIDs)
	require.Len(t, ledger.Pairwise(b), 2, "each beneficiary owes the payer")

	_, err = f.DeleteExpense(ctx, e, "1")
	require.NoError(t, err)
	require.Empty(t, f.nets(g.ID), "deleting takes its effect off again")
}

func TestSeveralPayers(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2", "3")
	e := equalExpense(g, "1", "90.00", "1", "2", "3") // 30 each
	e.Payers = []store.Payment{
		{UserID: "2", UserName: "User 2", Amount: amount("30.00")},
		{UserID: "3", UserName: "User 3", Amount: amount("60.00")},
	}
	created, err := f.CreateExpense(ctx, g.Title, e, "")
	require.NoError(t, err)
	require.Equal(t, "3", created.PayerID, "the main payer paid most")
	require.Equal(t, map[string]string{"1": "-30.00", "3": "30.00"}, f.nets(g.ID))

	// Every payer sees it among the expenses they paid; only 1 owes on it.
	for _, u := range []string{"2", "3"} {
		p, err := f.ListUserExpenses(ctx, u, store.PageArgs{First: 5})
		require.NoError(t, err)
		require.Len(t, p.Items, 1, "user %s", u)
		require.Equal(t, created.ID, p.Items[0].ID)
		require.Len(t, p.Items[0].Payers, 2)
	}
	for u, n := range map[string]int{"1": 1, "2": 0, "3": 0} {
		p, err := f.ListUserShares(ctx, u, store.PageArgs{First: 5})
		require.NoError(t, err)
		require.Len(t, p.Items, n, "user %s", u)
	}
	act, err := f.ListUserActivity(ctx, "2", store.PageArgs{First: 5})
	require.NoError(t, err)
	require.Len(t, act.Items, 1)
	require.Equal(t, created.ID, act.Items[0].Expense.ID)

	_, err = f.DeleteExpense(ctx, created, "1")
	require.NoError(t, err)
	require.Empty(t, f.nets(g.ID))
	p, err := f.ListUserExpenses(ctx, "2", store.PageArgs{First: 5})
	require.NoError(t, err)
	require.Empty(t, p.Items)
}

func TestSettlementsMoveMoneyWhenCompleted(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	f.expense(g, "1", "20.00", "1", "2") // 2 owes 1 ten
	pending := f.settle(g, "2", "1", "10.00", store.SettlementPending)
	require.Equal(t, map[string]string{"1": "10.00", "2": "-10.00"}, f.nets(g.ID), "pending moves nothing")

	failed := store.SettlementFailed
	_, err := f.UpdateSettlement(ctx, f.settle(g, "2", "1", "10.00", store.SettlementPending), store.SettlementChange{Status: &failed}, "1")
	require.NoError(t, err)
	require.Equal(t, map[string]string{"1": "10.00", "2": "-10.00"}, f.nets(g.ID), "failed moves nothing")

	completed := store.SettlementCompleted
	_, err = f.UpdateSettlement(ctx, pending, store.SettlementChange{Status: &completed}, "1")
	require.NoError(t, err)
	require.Empty(t, f.nets(g.ID), "completed settles it")
	_, err = f.UpdateSettlement(ctx, pending, store.SettlementChange{Status: &completed}, "1")
	require.ErrorIs(t, err, store.ErrConflict, "money moves once")
	require.Empty(t, f.nets(g.ID))

	f.settle(g, "1", "2", "4.00", store.SettlementCompleted) // created completed
	require.Equal(t, map[string]string{"1": "4.00", "2": "-4.00"}, f.nets(g.ID))
	gb, err := f.GetBalances(ctx, []string{g.ID})
	require.NoError(t, err)
	require.Equal(t, "4.00", gb[0].Book(usd).Users["1"].Sent.String())
	require.Equal(t, "10.00", gb[0].Book(usd).Users["1"].Received.String())
}

func TestBalancesPerCurrency(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	f.expense(g, "1", "10.00", "1", "2")
	ton := money.MustCurrency("TON")
	a, _ := money.ParseAmount("1.5", ton)
	e := store.Expense{GroupID: g.ID, PayerID: "2", PayerName: "B", Amount: a, Description: "x", SplitType: store.SplitExact,
		Splits: []store.Split{{UserID: "1", UserName: "A", Amount: a}}}
	_, err := f.CreateExpense(ctx, g.Title, e, "")
	require.NoError(t, err)
	gb, err := f.GetBalances(ctx, []string{g.ID})
	require.NoError(t, err)
	require.Len(t, gb[0].Books, 2)
	require.Equal(t, "-1.500000000", gb[0].Book(ton).Nets()["1"].String())
	require.Equal(t, "5.00", gb[0].Book(usd).Nets()["1"].String())
}

func TestGetBalancesOfManyGroupsInTwoCalls(t *testing.T) {
	calls := &dynamotest.Counter{}
	f := newFixture(t, calls.Option())
	var ids []string
	for i := range 5 {
		g := f.group("1", "2")
		f.expense(g, "1", fmt.Sprintf("%d.00", 2*(i+1)), "1", "2") // pays half for 2
		ids = append(ids, g.ID)
	}
	calls.Reset()
	gbs, err := f.GetBalances(ctx, append(ids, "missing"))
	require.NoError(t, err)
	require.Equal(t, map[string]int{"BatchGetItem": 2}, calls.ByOperation())
	require.Nil(t, gbs[5])
	for i, gb := range gbs[:5] {
		require.Equal(t, fmt.Sprintf("%d.00", i+1), gb.Book(usd).Users["1"].Paid.String())
	}
}

func TestRecomputeMatchesKeptBalances(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2", "3")
	f.expense(g, "1", "30.00", "1", "2", "3")
	gone := f.expense(g, "2", "7.00", "1", "2")
	f.expense(g, "3", "10.00", "2", "3")
	f.settle(g, "2", "1", "5.00", store.SettlementCompleted)
	f.settle(g, "3", "1", "5.00", store.SettlementPending)
	_, err := f.DeleteExpense(ctx, gone, "1")
	require.NoError(t, err)

	re, err := f.RecomputeBalances(ctx, g.ID)
	require.NoError(t, err)
	require.Empty(t, re.Problems)
	kept, err := f.GetBalances(ctx, []string{g.ID})
	require.NoError(t, err)
	require.Empty(t, kept[0].Book(usd).Diff(re.Books[usd]))
	require.True(t, kept[0].Book(usd).Equal(re.Books[usd]))
}

// TestBooksReadForScreensDecodePairsOnUse: the balances a screen reads (a
// group's head, GetBalances) leave each book's pairs to its first use, and
// then hold what the books hold: the same as the consistent read a change
// makes, which decodes them at once.
func TestBooksReadForScreensDecodePairsOnUse(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2", "3")
	f.expense(g, "1", "30.00", "1", "2", "3")
	f.expense(g, "2", "12.00", "1", "3")

	head, err := f.GetGroupHead(ctx, g.ID)
	require.NoError(t, err)
	gbs, err := f.GetBalances(ctx, []string{g.ID})
	require.NoError(t, err)
	want := []string{"2 pays 1 4.00", "3 pays 1 10.00", "3 pays 2 6.00"}
	for _, b := range []*ledger.Book{head.Balances.Book(usd), gbs[0].Book(usd)} {
		require.Empty(t, b.Pairs, "not decoded until used")
		require.NoError(t, b.LoadPairs())
		var got []string
		for _, tr := range ledger.Pairwise(b) {
			got = append(got, tr.From+" pays "+tr.To+" "+tr.Amount.String())
		}
		require.Equal(t, want, got)
	}
}
