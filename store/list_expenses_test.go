package store_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestListExpensesNewestFirst(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	other := f.group("1")
	var want []string
	for i := range 7 {
		e := f.expense(g, "1", fmt.Sprintf("%d.00", i+1), "1", "2")
		want = append([]string{e.ID}, want...)
	}
	f.expense(other, "1", "5.00", "1")

	for _, n := range []int{1, 2, 3, 7, 100} {
		t.Run(fmt.Sprint("pages of ", n), func(t *testing.T) {
			got := all(t, n, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListExpenses(ctx, g.ID, a) }) // access pattern 4
			ids := make([]string, len(got))
			for i, e := range got {
				ids[i] = e.ID
			}
			require.Equal(t, want, ids)
		})
	}
}

func TestListExpensesEveryCursorContinuesAfterItsItem(t *testing.T) {
	f := newFixture(t)
	g := f.group("1")
	for i := range 5 {
		f.expense(g, "1", fmt.Sprintf("%d.00", i+1), "1")
	}
	full, err := f.ListExpenses(ctx, g.ID, store.PageArgs{First: 5})
	require.NoError(t, err)
	require.False(t, full.HasNext, "exactly 5 items: nothing follows")
	for i, c := range full.Cursors {
		p, err := f.ListExpenses(ctx, g.ID, store.PageArgs{First: 10, After: c.String()})
		require.NoError(t, err)
		require.Equal(t, full.Items[i+1:], p.Items)
	}
	// The same request gives the same cursors.
	again, err := f.ListExpenses(ctx, g.ID, store.PageArgs{First: 5})
	require.NoError(t, err)
	for i := range full.Cursors {
		require.Equal(t, full.Cursors[i].String(), again.Cursors[i].String())
	}
}

func TestListExpensesRejectsBadCursors(t *testing.T) {
	f := newFixture(t)
	g := f.group("1")
	other := f.group("1")
	f.expense(g, "1", "1.00", "1")
	f.expense(g, "1", "2.00", "1")
	p, err := f.ListExpenses(ctx, g.ID, store.PageArgs{First: 1})
	require.NoError(t, err)
	c := p.Cursors[0].String()
	body, mac, _ := strings.Cut(c, ".")

	for name, bad := range map[string]string{
		"garbage":             "not-a-cursor",
		"altered body":        strings.ToUpper(body[:4]) + body[4:] + "." + mac,
		"altered signature":   body + "." + strings.Repeat("A", len(mac)),
		"missing signature":   body,
		"other list's cursor": "",
	} {
		t.Run(name, func(t *testing.T) {
			group := g.ID
			if bad == "" {
				bad, group = c, other.ID
			}
			_, err := f.ListExpenses(ctx, group, store.PageArgs{First: 1, After: bad})
			require.ErrorIs(t, err, store.ErrBadCursor)
		})
	}

	// A store with another secret does not accept this store's cursors.
	s2 := store.New(dynamotestClient(t), f.Table(), store.Options{CursorSecret: []byte("other")})
	_, err = s2.ListExpenses(ctx, g.ID, store.PageArgs{First: 1, After: c})
	require.ErrorIs(t, err, store.ErrBadCursor)
}
