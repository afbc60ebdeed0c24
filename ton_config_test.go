package main

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/fracti/api/tonapi"
	"github.com/stretchr/testify/require"
)

func TestConfigTON(t *testing.T) {
	for _, name := range []string{"TON_API_URL", "TON_API_KEY", "TON_VERIFY_INTERVAL", "TON_VERIFY_GIVE_UP"} {
		t.Setenv(name, "")
	}
	c, err := loadConfig()
	require.NoError(t, err)
	require.Equal(t, tonConfig{APIURL: tonapi.DefaultURL, Interval: 15 * time.Second, GiveUp: 30 * time.Minute}, c.TON)

	t.Setenv("TON_API_URL", "http://127.0.0.1:9999")
	t.Setenv("TON_API_KEY", "k")
	t.Setenv("TON_VERIFY_INTERVAL", "2s")
	t.Setenv("TON_VERIFY_GIVE_UP", "1h")
	c, err = loadConfig()
	require.NoError(t, err)
	require.Equal(t, tonConfig{APIURL: "http://127.0.0.1:9999", APIKey: "k", Interval: 2 * time.Second, GiveUp: time.Hour}, c.TON)

	for _, name := range []string{"TON_VERIFY_INTERVAL", "TON_VERIFY_GIVE_UP"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, "soon")
			_, err := loadConfig()
			require.ErrorContains(t, err, name)
		})
	}
}

func TestTonVerifyJobRunsWithoutTheAPI(t *testing.T) {
	gone := httptest.NewServer(nil)
	gone.Close() // the TON API is unreachable
	s := store.New(dynamotest.Client(t), dynamotest.Table(t), store.Options{CursorSecret: []byte("k")})
	job := tonVerifyJob(tonConfig{APIURL: gone.URL, Interval: time.Second, GiveUp: time.Minute}.verifier(s, slog.Default()), slog.Default())
	require.NoError(t, job(context.Background()), "nothing due: the API is not asked")
}
