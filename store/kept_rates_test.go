package store_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKeptRates(t *testing.T) {
	f := newFixture(t)
	_, found, err := f.KeptRates(ctx, "2026-11-25", "ECB")
	require.NoError(t, err)
	assert.False(t, found)
	q := quotes("ECB", "2026-11-24", map[string]string{"USD": "1.1225"})
	_, err = f.KeepRates(ctx, "2026-11-25", q)
	require.NoError(t, err)
	got, found, err := f.KeptRates(ctx, "2026-11-25", "ECB")
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, q, got)
	_, found, err = f.KeptRates(ctx, "2026-11-25", "CoinGecko")
	require.NoError(t, err)
	assert.False(t, found, "kept per provider")
	_, found, err = f.KeptRates(ctx, "2026-11-26", "ECB")
	require.NoError(t, err)
	assert.False(t, found, "kept per day")
}
