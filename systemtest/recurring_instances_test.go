package systemtest

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/scrape"
	"github.com/fracti/api/internal/testkit/servertest"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// TestRecurringAcrossTwoServerProcesses is the proof: two server
// processes on one table run a daily series that started 10 days ago, one
// occurrence per series per run on each, so that both race for every day.
// One is killed (SIGKILL, no shutdown) as soon as the first occurrences
// appear, while the runs are still going; the other finishes, a restarted
// one runs on: exactly 11 occurrences, one per day, and the balances hold
// each once.
func TestRecurringAcrossTwoServerProcesses(t *testing.T) {
	ctx := context.Background()
	table := servertest.LocalTable(t)
	s := store.New(dynamotest.Client(t), table, store.Options{CursorSecret: []byte("shared-by-every-instance")})
	usd := money.MustCurrency("USD")
	g, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "Flat", Currency: usd, Creator: store.NewMember{UserID: "7001", Name: "Ann"}})
	require.NoError(t, err)
	_, _, err = s.JoinGroup(ctx, g.ID, store.NewMember{UserID: "7002", Name: "Ben"})
	require.NoError(t, err)
	half := money.NewAmount(500, usd)
	sr, err := s.CreateSeries(ctx, store.Series{
		GroupID: g.ID, Every: store.EveryDay, Interval: 1, CreatedBy: "7001",
		StartsOn: store.Today(time.Now()).AddDate(0, 0, -10),
		Template: store.Expense{
			GroupID: g.ID, Amount: money.NewAmount(1000, usd), Description: "Daily cleaning", SplitType: store.SplitEqual, CreatedBy: "7001",
			Payers: []store.Payment{{UserID: "7001", UserName: "Ann", Amount: money.NewAmount(1000, usd)}},
			Splits: []store.Split{{UserID: "7001", UserName: "Ann", Amount: half}, {UserID: "7002", UserName: "Ben", Amount: half}},
		},
	})
	require.NoError(t, err)
	occurrences := func() []store.Expense {
		p, err := s.ListOccurrences(ctx, sr.ID, store.PageArgs{First: 100})
		require.NoError(t, err)
		return p.Items
	}

	bin := servertest.BuildServer(t)
	env := []string{"RECURRING_INTERVAL=40ms", "RECURRING_CATCH_UP=1"}
	a, b := servertest.StartInstance(t, bin, table, env...), servertest.StartInstance(t, bin, table, env...)
	require.Eventually(t, func() bool { return len(occurrences()) >= 2 }, 30*time.Second, 5*time.Millisecond)
	require.NoError(t, syscall.Kill(a.PID, syscall.SIGKILL))
	require.Less(t, len(occurrences()), 11, "killed in the middle of the catch-up")

	require.Eventually(t, func() bool { return len(occurrences()) >= 11 }, 30*time.Second, 20*time.Millisecond, "B did not finish")
	// A restarted instance and B go on running: still nothing twice. Their
	// own counters say when each has run a few more times.
	c := servertest.StartInstance(t, bin, table, env...)
	runs := func(inst servertest.Instance) float64 {
		return scrape.Get(t, strings.TrimSuffix(inst.URL, "/graphql")+"/metrics").Sum("fracti_jobs_runs_total", scrape.Labels{"job": "recurring", "outcome": "ok"})
	}
	from := runs(b)
	require.Eventually(t, func() bool { return runs(c) >= 3 && runs(b) >= from+3 }, 30*time.Second, 20*time.Millisecond)

	es := occurrences()
	require.Len(t, es, 11)
	days := map[string]bool{}
	for _, e := range es {
		days[store.FormatDay(e.SpentAt)] = true
	}
	require.Len(t, days, 11, "one occurrence per day")
	for n := range 11 {
		require.True(t, days[store.FormatDay(sr.On(n))], "day %d", n)
	}
	cur, err := s.CurrentSeries(ctx, g.ID, sr.ID)
	require.NoError(t, err)
	require.Equal(t, 11, cur.Done)
	bal, err := s.GetBalances(ctx, []string{g.ID})
	require.NoError(t, err)
	require.Equal(t, "-55.00", bal[0].Books[0].Users["7002"].Net().String())
	require.Equal(t, "55.00", bal[0].Books[0].Users["7001"].Net().String())
}
