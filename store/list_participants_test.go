package store_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestListParticipants(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2", "3")
	e := f.expense(g, "3", "9.00", "1", "2") // the payer is not a beneficiary
	f.expense(g, "1", "4.00", "1", "2", "3")

	shares, err := f.ListParticipants(ctx, g.ID, e.ID) // access pattern 6
	require.NoError(t, err)
	require.Len(t, shares, 2)
	for i, u := range []string{"1", "2"} {
		require.Equal(t, u, shares[i].UserID)
		require.Equal(t, e.ID, shares[i].ExpenseID)
		require.Equal(t, "4.50", shares[i].Amount.String())
	}
}
