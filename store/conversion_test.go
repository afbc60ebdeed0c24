package store_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
)

// converted is 54.00 USD recorded as 48.60 EUR at 0.9, split equally.
func converted(g store.Group, rate string) store.Expense {
	e := equalExpense(g, "1", "10.00", "1", "2")
	eur := money.MustCurrency("EUR")
	total := money.NewAmount(4860, eur)
	e.Amount = total
	parts, _ := money.SplitEqual(total, 2)
	for i := range e.Splits {
		e.Splits[i].Amount = parts[i]
	}
	e.Conversion = &store.Conversion{
		Original:     money.NewAmount(5400, money.MustCurrency("USD")),
		RecordedRate: store.RecordedRate{Rate: dec(rate), Source: "ECB", Date: "2026-11-24"},
	}
	return e
}

func TestConvertedExpenseKeepsItsConversion(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	e, err := f.CreateExpense(ctx, g.Title, converted(g, "0.9"), "key-1")
	require.NoError(t, err)
	got, err := f.getExpense(e.ID)
	require.NoError(t, err)
	require.Equal(t, e, got)
	require.NotNil(t, got.Conversion)
	assert.Equal(t, "54.00", got.Conversion.Original.String())
	assert.Equal(t, "USD", got.Conversion.Original.Currency().Code())
	assert.Equal(t, "0.9", got.Conversion.Rate.String())
	assert.Equal(t, "ECB", got.Conversion.Source)
	assert.Equal(t, "2026-11-24", got.Conversion.Date)
	assert.Equal(t, "48.60 EUR", got.Amount.String()+" "+got.Currency().Code())

	// A retry with the same key and the same conversion is the same expense;
	// at another rate it is another request.
	again, err := f.CreateExpense(ctx, g.Title, converted(g, "0.9"), "key-1")
	require.NoError(t, err)
	assert.Equal(t, e.ID, again.ID)
	_, err = f.CreateExpense(ctx, g.Title, converted(g, "0.91"), "key-1")
	require.ErrorIs(t, err, store.ErrConflict)

	// The revision history records the conversion, and its removal.
	plain := e
	plain.Conversion = nil
	_, err = f.UpdateExpense(ctx, e, plain, g.Title, "1")
	require.NoError(t, err)
	revs, err := f.ListRevisions(ctx, g.ID, e.ID)
	require.NoError(t, err)
	require.Len(t, revs, 2)
	changed := map[int]map[string][2]*string{}
	for _, rv := range revs {
		changed[rv.Version] = map[string][2]*string{}
		for _, c := range rv.Changes {
			changed[rv.Version][c.Field] = [2]*string{c.Before, c.After}
		}
	}
	require.Equal(t, "0.9", *changed[1][store.FieldRate][1])
	require.Equal(t, "54.00", *changed[1][store.FieldOriginalAmount][1])
	require.Equal(t, "USD", *changed[1][store.FieldOriginalCurrency][1])
	require.Equal(t, "ECB", *changed[1][store.FieldRateSource][1])
	require.Equal(t, "2026-11-24", *changed[1][store.FieldRateDate][1])
	require.Equal(t, "0.9", *changed[2][store.FieldRate][0])
	require.Nil(t, changed[2][store.FieldRate][1])
	require.NotContains(t, changed[2], store.FieldAmount, "the recorded amount did not change")

	// An expense that was not converted has none.
	p := f.expense(g, "1", "10.00", "1", "2")
	got, err = f.getExpense(p.ID)
	require.NoError(t, err)
	assert.Nil(t, got.Conversion)
}
