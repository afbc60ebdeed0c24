package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestConfigRecurring(t *testing.T) {
	t.Setenv("RECURRING_INTERVAL", "")
	t.Setenv("RECURRING_CATCH_UP", "")
	c, err := loadConfig()
	require.NoError(t, err)
	require.Equal(t, recurringConfig{Interval: time.Minute, CatchUp: 31}, c.Recurring)

	t.Setenv("RECURRING_INTERVAL", "250ms")
	t.Setenv("RECURRING_CATCH_UP", "3")
	c, err = loadConfig()
	require.NoError(t, err)
	require.Equal(t, recurringConfig{Interval: 250 * time.Millisecond, CatchUp: 3}, c.Recurring)

	for name, env := range map[string][2]string{
		"interval not a duration": {"soon", "3"},
		"interval zero":           {"0s", "3"},
		"catch-up zero":           {"1m", "0"},
		"catch-up not a number":   {"1m", "all"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("RECURRING_INTERVAL", env[0])
			t.Setenv("RECURRING_CATCH_UP", env[1])
			_, err := loadConfig()
			require.ErrorContains(t, err, "RECURRING_")
		})
	}
}
