package store_test

import (
	"fmt"
	"testing"

	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestCreateExpense(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2", "3", "4")
	e := f.expense(g, "1", "100.00", "1", "2", "3", "4")
	require.NotEmpty(t, e.ID)
	require.False(t, e.CreatedAt.IsZero())

	got, err := f.getExpense(e.ID)
	require.NoError(t, err)
	require.Equal(t, e, got)
	require.Equal(t, "25.00", got.Splits[1].Amount.String())

	// One participant record per beneficiary other than the payer.
	shares, err := f.ListParticipants(ctx, g.ID, e.ID)
	require.NoError(t, err)
	var who []string
	for _, sh := range shares {
		who = append(who, sh.UserID)
		require.Equal(t, "25.00", sh.Amount.String())
		require.Equal(t, "100.00", sh.TotalAmount.String())
		require.Equal(t, "1", sh.PayerID)
		require.Equal(t, "Roommates", sh.GroupTitle)
		require.Equal(t, e.CreatedAt, sh.CreatedAt)
	}
	require.Equal(t, []string{"2", "3", "4"}, who)
}

func TestCreateExpenseIsAllOrNothing(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	other := f.group("3")

	for name, e := range map[string]store.Expense{
		"beneficiary is not a member": equalExpense(g, "1", "10.00", "1", "2", "3"),
		"payer is not a member":       equalExpense(g, "3", "10.00", "1", "2"),
		"group does not exist":        equalExpense(store.Group{ID: "missing", Title: "x"}, "1", "10.00", "1"),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := f.CreateExpense(ctx, g.Title, e, "")
			require.ErrorIs(t, err, store.ErrNotFound)
		})
	}
	// Nothing was written for any of them: no expense, no participant record.
	page, err := f.ListExpenses(ctx, g.ID, store.PageArgs{First: 10})
	require.NoError(t, err)
	require.Empty(t, page.Items)
	for _, u := range []string{"1", "2", "3"} {
		owes, err := f.ListUserShares(ctx, u, store.PageArgs{First: 10})
		require.NoError(t, err)
		require.Empty(t, owes.Items, "user %s", u)
	}
	_ = other
}

func TestCreateExpenseParticipantLimit(t *testing.T) {
	f := newFixture(t)
	users := make([]string, store.MaxExpenseParticipants+1)
	for i := range users {
		users[i] = fmt.Sprint(1000 + i)
	}
	g := f.group(users...)

	// The payer outside the split plus the largest number of beneficiaries fits.
	e := f.expense(g, users[0], "1000.00", users[1:store.MaxExpenseParticipants]...)
	shares, err := f.ListParticipants(ctx, g.ID, e.ID)
	require.NoError(t, err)
	require.Len(t, shares, store.MaxExpenseParticipants-1)

	// One more user is refused before anything is sent.
	_, err = f.CreateExpense(ctx, g.Title, equalExpense(g, users[0], "1000.00", users[1:]...), "")
	require.ErrorIs(t, err, store.ErrTooManyItems)
}

func TestAmountsRoundTripExactly(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	for _, tc := range []struct{ code, amount string }{
		{"USD", "1000000000000000.00"},
		{"USD", "0.01"},
		{"JPY", "1500"},
		{"KWD", "12.345"},
		{"TON", "0.500000000"},
		{"TON", "1000000000000000.000000001"},
		{"TON", "123456789.987654321"},
	} {
		t.Run(tc.code+" "+tc.amount, func(t *testing.T) {
			cur := money.MustCurrency(tc.code)
			a, err := money.ParseAmount(tc.amount, cur)
			require.NoError(t, err)
			e, err := f.CreateExpense(ctx, g.Title, store.Expense{
				GroupID: g.ID, PayerID: "1", PayerName: "A", Amount: a, Description: "x", SplitType: store.SplitExact,
				Splits: []store.Split{{UserID: "2", UserName: "B", Amount: a}},
			}, "")
			require.NoError(t, err)
			got, err := f.getExpense(e.ID)
			require.NoError(t, err)
			require.Equal(t, tc.amount, got.Amount.String())
			require.Equal(t, tc.amount, got.Splits[0].Amount.String())
		})
	}
}
