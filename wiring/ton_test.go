package wiring

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/fracti/api/config"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestTonVerifyJobRunsWithoutTheAPI(t *testing.T) {
	gone := httptest.NewServer(nil)
	gone.Close() // the TON API is unreachable
	s := store.New(dynamotest.Client(t), dynamotest.Table(t), store.Options{CursorSecret: []byte("k")})
	job := tonVerifyJob(TONVerifier(config.TON{APIURL: gone.URL, Interval: time.Second, GiveUp: time.Minute}, s, slog.Default()), slog.Default())
	require.NoError(t, job(context.Background()), "nothing due: the API is not asked")
}
