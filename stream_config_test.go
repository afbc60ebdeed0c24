package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestConfigStream: no broker and a 10 s lease timeout by default; both may
// be set, and a bad broker URL or timeout stops the server.
func TestConfigStream(t *testing.T) {
	t.Setenv("LIVE_BROKER", "")
	t.Setenv("LEASE_TIMEOUT", "")
	c, err := loadConfig()
	require.NoError(t, err)
	require.Equal(t, streamConfig{LeaseTimeout: 10 * time.Second}, c.Stream)

	t.Setenv("LIVE_BROKER", "redis://10.0.0.5:6379/0")
	t.Setenv("LEASE_TIMEOUT", "30s")
	c, err = loadConfig()
	require.NoError(t, err)
	require.Equal(t, streamConfig{Broker: "redis://10.0.0.5:6379/0", LeaseTimeout: 30 * time.Second}, c.Stream)

	for _, bad := range []string{"soon", "500ms", "-1s"} {
		t.Setenv("LEASE_TIMEOUT", bad)
		_, err := loadConfig()
		require.ErrorContains(t, err, "LEASE_TIMEOUT", bad)
	}
	t.Setenv("LEASE_TIMEOUT", "")
	t.Setenv("LIVE_BROKER", "http://not-redis")
	_, err = loadConfig()
	require.ErrorContains(t, err, "LIVE_BROKER")
}
