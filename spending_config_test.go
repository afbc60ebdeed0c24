package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfigSpendingMaxDays: SPENDING_MAX_DAYS is 366 by default, may be
// set, and must be a positive number of days.
func TestConfigSpendingMaxDays(t *testing.T) {
	t.Setenv("SPENDING_MAX_DAYS", "")
	c, err := loadConfig()
	require.NoError(t, err)
	require.Equal(t, 366, c.SpendingMaxDays)

	t.Setenv("SPENDING_MAX_DAYS", "731")
	c, err = loadConfig()
	require.NoError(t, err)
	require.Equal(t, 731, c.SpendingMaxDays)

	for _, bad := range []string{"0", "-1", "a year"} {
		t.Setenv("SPENDING_MAX_DAYS", bad)
		_, err = loadConfig()
		require.ErrorContains(t, err, "SPENDING_MAX_DAYS", bad)
	}
}
