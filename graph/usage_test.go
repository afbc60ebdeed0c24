package graph_test

import (
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/quota"
	"github.com/stretchr/testify/require"
)

// Counting is sampled: thirty queries add to the table three times (the
// day's first request here, then one in ten), and read nothing more.
func TestUsageCountingIsSampled(t *testing.T) {
	api := apitest.New(t, apitest.Quota(quota.Limits{ReadsPerDay: 1000, WritesPerDay: 100, Sample: 10}))
	carol := api.TelegramUser(333, "Carol", "", "carol")
	carol.Must(nil, `{ __typename }`) // her profile is recorded once
	api.Calls.Reset()
	for range 30 {
		carol.Must(nil, `{ __typename }`)
	}
	require.Equal(t, map[string]int{"UpdateItem": 3}, api.Calls.ByOperation())

	var out struct {
		Me struct {
			Usage struct {
				Day                   string
				Reads, Writes         int
				ReadLimit, WriteLimit *int
				ResetsAt              time.Time
			}
		}
	}
	carol.Must(&out, `{ me { usage { day reads writes readLimit writeLimit resetsAt } } }`)
	require.Equal(t, 32, out.Me.Usage.Reads, "every query, this one included, flushed or not")
	require.Zero(t, out.Me.Usage.Writes)
	require.Equal(t, 1000, *out.Me.Usage.ReadLimit)
	require.Equal(t, 100, *out.Me.Usage.WriteLimit)
	require.Equal(t, time.Now().UTC().Format(time.DateOnly), out.Me.Usage.Day)
	require.True(t, out.Me.Usage.ResetsAt.After(time.Now()))
}
