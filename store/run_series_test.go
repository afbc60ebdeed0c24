package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/testclock"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// seriesNow is the day the recurring tests run on (noon UTC).
var seriesNow = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// seriesFixture is a store whose clock tests move by hand, with a group.
type seriesFixture struct {
	fixture
	clock *testclock.Clock
	db    *dynamodb.Client
	table string
}

func newSeriesFixture(t *testing.T, optFns ...func(*dynamodb.Options)) seriesFixture {
	t.Helper()
	c := testclock.At(seriesNow)
	db, table := dynamotest.Client(t, optFns...), dynamotest.Table(t)
	s := store.New(db, table, store.Options{CursorSecret: []byte("k"), Now: c.Now})
	return seriesFixture{fixture: fixture{Store: s, t: t}, clock: c, db: db, table: table}
}

// instance is another server's store over the same table, on the same clock.
func (f seriesFixture) instance(optFns ...func(*dynamodb.Options)) *store.Store {
	return store.New(dynamotest.Client(f.t, optFns...), f.table, store.Options{CursorSecret: []byte("k"), Now: f.clock.Now})
}

func day(s string) time.Time {
	d, err := store.ParseDay(s)
	if err != nil {
		panic(err)
	}
	return d
}

// series creates a recurring expense of template from startsOn.
func (f seriesFixture) series(template store.Expense, every store.RecurrenceUnit, startsOn string, edit func(*store.Series)) store.Series {
	f.t.Helper()
	sr := store.Series{GroupID: template.GroupID, Template: template, Every: every, Interval: 1, StartsOn: day(startsOn), CreatedBy: template.CreatedBy}
	if edit != nil {
		edit(&sr)
	}
	created, err := f.CreateSeries(ctx, sr)
	require.NoError(f.t, err)
	return created
}

// occurrences lists a series' expenses, oldest first, by the day they were spent.
func (f seriesFixture) occurrences(seriesID string) ([]string, []store.Expense) {
	f.t.Helper()
	es := all(f.t, 7, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListOccurrences(ctx, seriesID, a) })
	days := make([]string, len(es))
	for i := range es {
		days[len(es)-1-i] = store.FormatDay(es[i].SpentAt)
	}
	return days, es
}

func TestSeriesDays(t *testing.T) {
	for _, tc := range []struct {
		name     string
		every    store.RecurrenceUnit
		interval int
		start    string
		want     []string
	}{
		{"daily", store.EveryDay, 1, "2026-02-27", []string{"2026-02-27", "2026-02-28", "2026-03-01", "2026-03-02"}},
		{"every 3 days", store.EveryDay, 3, "2026-01-30", []string{"2026-01-30", "2026-02-02", "2026-02-05", "2026-02-08"}},
		{"fortnightly", store.EveryWeek, 2, "2026-12-24", []string{"2026-12-24", "2027-01-07", "2027-01-21", "2027-02-04"}},
		{"month ends clamp, then return", store.EveryMonth, 1, "2026-01-31", []string{"2026-01-31", "2026-02-28", "2026-03-31", "2026-04-30"}},
		{"leap February", store.EveryMonth, 1, "2028-01-31", []string{"2028-01-31", "2028-02-29", "2028-03-31", "2028-04-30"}},
		{"every 2 months from the 30th", store.EveryMonth, 2, "2025-12-30", []string{"2025-12-30", "2026-02-28", "2026-04-30", "2026-06-30"}},
		{"29 February yearly", store.EveryYear, 1, "2028-02-29", []string{"2028-02-29", "2029-02-28", "2030-02-28", "2031-02-28"}},
		{"29 February every 4 years", store.EveryYear, 4, "2028-02-29", []string{"2028-02-29", "2032-02-29", "2036-02-29", "2040-02-29"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := store.Series{Every: tc.every, Interval: tc.interval, StartsOn: day(tc.start)}
			var got []string
			for n := range len(tc.want) {
				got = append(got, store.FormatDay(s.On(n)))
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestRunRecurringCatchesUpBoundedAndOnce(t *testing.T) {
	f := newSeriesFixture(t)
	g := f.group("1", "2")
	sr := f.series(equalExpense(g, "1", "10.00", "1", "2"), store.EveryDay, "2026-02-08", nil) // 31 days before 2026-03-11

	run, err := f.RunRecurring(ctx, 20)
	require.NoError(t, err)
	require.Equal(t, store.RecurringRun{Due: 1, Created: 20}, run)
	days, es := f.occurrences(sr.ID)
	require.Len(t, days, 20)
	require.Equal(t, "2026-02-08", days[0])
	require.Equal(t, "2026-02-27", days[19])
	for _, e := range es {
		require.Equal(t, sr.ID, e.SeriesID)
		require.Equal(t, 12, e.SpentAt.Hour(), "dated at noon of its own day (the group is in UTC)")
		require.Equal(t, "5.00", e.Splits[1].Amount.String())
	}

	run, err = f.RunRecurring(ctx, 20)
	require.NoError(t, err)
	require.Equal(t, store.RecurringRun{Due: 1, Created: 11}, run, "the rest up to today, 2026-03-10")
	// A retry the same day finds nothing due: the series is next due tomorrow.
	run, err = f.RunRecurring(ctx, 20)
	require.NoError(t, err)
	require.Equal(t, store.RecurringRun{}, run)
	days, _ = f.occurrences(sr.ID)
	require.Len(t, days, 31)
	require.Equal(t, "2026-03-10", days[30])

	f.clock.Add(24 * time.Hour)
	run, err = f.RunRecurring(ctx, 20)
	require.NoError(t, err)
	require.Equal(t, 1, run.Created)

	// The balances hold every occurrence exactly once: 32 × 5.00.
	got, err := f.CurrentSeries(ctx, g.ID, sr.ID)
	require.NoError(t, err)
	require.Equal(t, 32, got.Done)
	require.Equal(t, 32, got.Created)
	require.Equal(t, "2026-03-12", store.FormatDay(got.NextOn))
	require.Equal(t, 1, got.Version, "the scheduler's advances are no member's change")
	bal, err := f.GetBalances(ctx, []string{g.ID})
	require.NoError(t, err)
	require.Equal(t, "-160.00", bal[0].Books[0].Users["2"].Net().String())
}

// raceOnce runs race just before the first TransactWriteItems the client
// sends, once: another instance completes its run between this instance's
// reads and its write.
func raceOnce(race func()) func(*dynamodb.Options) {
	var once sync.Once
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Initialize.Add(middleware.InitializeMiddlewareFunc("Race",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					if _, ok := in.Parameters.(*dynamodb.TransactWriteItemsInput); ok {
						once.Do(race)
					}
					return next.HandleInitialize(ctx, in)
				}), middleware.Before)
		})
	}
}

func TestRunRecurringUnderARaceCreatesEachOccurrenceOnce(t *testing.T) {
	f := newSeriesFixture(t)
	g := f.group("1", "2")
	sr := f.series(equalExpense(g, "1", "10.00", "1", "2"), store.EveryDay, "2026-03-01", nil)

	// Instance A reads the series due on 1 March; before its transaction
	// goes out, instance B creates all ten occurrences.
	b := f.instance()
	var bRun store.RecurringRun
	a := f.instance(raceOnce(func() {
		var err error
		bRun, err = b.RunRecurring(ctx, 31)
		require.NoError(t, err)
	}))
	aRun, err := a.RunRecurring(ctx, 31)
	require.NoError(t, err)
	require.Equal(t, 10, bRun.Created)
	require.Equal(t, 0, aRun.Created, "A's conditions failed: nothing written twice")

	// And both at once, day after day, on two more instances.
	for range 3 {
		f.clock.Add(24 * time.Hour)
		var wg sync.WaitGroup
		for _, s := range []*store.Store{f.instance(), f.instance()} {
			wg.Go(func() {
				_, err := s.RunRecurring(ctx, 31)
				require.NoError(t, err)
			})
		}
		wg.Wait()
	}
	days, _ := f.occurrences(sr.ID)
	require.Len(t, days, 13)
	seen := map[string]bool{}
	for _, d := range days {
		require.False(t, seen[d], "two occurrences on %s", d)
		seen[d] = true
	}
	bal, err := f.GetBalances(ctx, []string{g.ID})
	require.NoError(t, err)
	require.Equal(t, "-65.00", bal[0].Books[0].Users["2"].Net().String())
}

func TestRunRecurringEnds(t *testing.T) {
	f := newSeriesFixture(t)
	g := f.group("1", "2")
	tmpl := equalExpense(g, "1", "10.00", "1", "2")
	byCount := f.series(tmpl, store.EveryWeek, "2026-01-01", func(s *store.Series) { s.Count = 3 })
	byDay := f.series(tmpl, store.EveryMonth, "2025-10-31", func(s *store.Series) { end := day("2026-02-27"); s.EndsOn = &end })

	_, err := f.RunRecurring(ctx, 31)
	require.NoError(t, err)
	days, _ := f.occurrences(byCount.ID)
	require.Equal(t, []string{"2026-01-01", "2026-01-08", "2026-01-15"}, days)
	days, _ = f.occurrences(byDay.ID)
	require.Equal(t, []string{"2025-10-31", "2025-11-30", "2025-12-31", "2026-01-31"}, days, "28 February is after endsOn")

	// Finished series leave the due index: a later run finds nothing.
	f.clock.Add(400 * 24 * time.Hour)
	run, err := f.RunRecurring(ctx, 31)
	require.NoError(t, err)
	require.Equal(t, store.RecurringRun{}, run)
}

func TestRunRecurringDropsMembersWhoLeft(t *testing.T) {
	f := newSeriesFixture(t)
	g := f.group("1", "2", "3", "4")
	pct := func(v string) *money.Decimal { d, _ := money.ParseDecimal(v); return &d }
	tmpl := store.Expense{
		GroupID: g.ID, Amount: amount("100.00"), Description: "Rent", SplitType: store.SplitPercentage, CreatedBy: "1",
		Payers: []store.Payment{{UserID: "1", Amount: amount("60.00")}, {UserID: "2", Amount: amount("30.00")}, {UserID: "3", Amount: amount("10.00")}},
		Splits: []store.Split{
			{UserID: "1", Amount: amount("50.00"), Percentage: pct("50")},
			{UserID: "2", Amount: amount("30.00"), Percentage: pct("30")},
			{UserID: "4", Amount: amount("20.00"), Percentage: pct("20")},
		},
	}
	sr := f.series(tmpl, store.EveryMonth, "2026-03-10", nil)
	// 3 (a payer) and 4 (a beneficiary) leave before the first occurrence.
	for _, u := range []string{"3", "4"} {
		_, err := f.LeaveGroup(ctx, g.ID, u, "")
		require.NoError(t, err)
	}
	run, err := f.RunRecurring(ctx, 31)
	require.NoError(t, err)
	require.Equal(t, 1, run.Created)
	_, es := f.occurrences(sr.ID)
	e := es[0]
	// Payers 60:30 share 100; the split becomes SHARES 50:30 of 100.
	require.Len(t, e.Payers, 2)
	require.Equal(t, "66.67", e.Payers[0].Amount.String())
	require.Equal(t, "33.33", e.Payers[1].Amount.String())
	require.Equal(t, store.SplitShares, e.SplitType)
	require.Len(t, e.Splits, 2)
	require.Equal(t, "62.50", e.Splits[0].Amount.String())
	require.Equal(t, "37.50", e.Splits[1].Amount.String())
	require.Equal(t, "50", e.Splits[0].Shares.String())
	require.Nil(t, e.Splits[0].Percentage)
}

func TestRunRecurringPausesWhenNobodyIsLeft(t *testing.T) {
	f := newSeriesFixture(t)
	g := f.group("1", "2")
	sr := f.series(equalExpense(g, "1", "10.00", "2"), store.EveryDay, "2026-03-10", nil)
	_, err := f.LeaveGroup(ctx, g.ID, "2", "")
	require.NoError(t, err)

	run, err := f.RunRecurring(ctx, 31)
	require.NoError(t, err)
	require.Equal(t, store.RecurringRun{Due: 1, Paused: 1}, run)
	got, err := f.CurrentSeries(ctx, g.ID, sr.ID)
	require.NoError(t, err)
	require.True(t, got.Paused)
	require.Equal(t, 2, got.Version)
	evs, err := f.ListEvents(ctx, g.ID, store.PageArgs{First: 1})
	require.NoError(t, err)
	ev := evs.Items[0]
	require.Equal(t, store.EventRecurringPaused, ev.Type)
	require.Equal(t, store.Subject{Kind: store.SubjectRecurring, ID: sr.ID}, ev.Subject)
	require.Equal(t, "reason", ev.Changes[len(ev.Changes)-1].Field)

	// Paused, it is out of the due index.
	f.clock.Add(24 * time.Hour)
	run, err = f.RunRecurring(ctx, 31)
	require.NoError(t, err)
	require.Equal(t, store.RecurringRun{}, run)
	days, _ := f.occurrences(sr.ID)
	require.Empty(t, days)
}

func TestSeriesChanges(t *testing.T) {
	f := newSeriesFixture(t)
	g := f.group("1", "2")
	sr := f.series(equalExpense(g, "1", "10.00", "1", "2"), store.EveryDay, "2026-03-09", nil)
	_, err := f.RunRecurring(ctx, 31)
	require.NoError(t, err)

	// An update changes future occurrences only, at the version read.
	next := equalExpense(g, "2", "30.00", "1", "2")
	_, err = f.UpdateSeries(ctx, g.ID, sr.ID, 7, store.SeriesEdit{Template: &next}, "2")
	var vc *store.VersionConflict
	require.ErrorAs(t, err, &vc)
	require.Equal(t, 1, vc.Current)
	updated, err := f.UpdateSeries(ctx, g.ID, sr.ID, 1, store.SeriesEdit{Template: &next}, "2")
	require.NoError(t, err)
	require.Equal(t, 2, updated.Version)
	require.Equal(t, "2026-03-11", store.FormatDay(updated.NextOn))

	// Paused for three days, resumed: the days in between are skipped.
	paused, err := f.PauseSeries(ctx, g.ID, sr.ID, "1")
	require.NoError(t, err)
	require.True(t, paused.Paused)
	f.clock.Add(3 * 24 * time.Hour)
	run, err := f.RunRecurring(ctx, 31)
	require.NoError(t, err)
	require.Zero(t, run.Due)
	resumed, err := f.ResumeSeries(ctx, g.ID, sr.ID, "1")
	require.NoError(t, err)
	require.Equal(t, "2026-03-13", store.FormatDay(resumed.NextOn))
	_, err = f.RunRecurring(ctx, 31)
	require.NoError(t, err)
	days, es := f.occurrences(sr.ID)
	require.Equal(t, []string{"2026-03-09", "2026-03-10", "2026-03-13"}, days)
	require.Equal(t, "30.00", es[0].Amount.String(), "the occurrence after the update")
	require.Equal(t, "10.00", es[1].Amount.String(), "those before stay")

	// Deleted: past occurrences stay, no more follow.
	_, err = f.DeleteSeries(ctx, g.ID, sr.ID, "1")
	require.NoError(t, err)
	gone, err := f.GetSeries(ctx, sr.ID)
	require.NoError(t, err)
	require.Nil(t, gone)
	f.clock.Add(24 * time.Hour)
	run, err = f.RunRecurring(ctx, 31)
	require.NoError(t, err)
	require.Zero(t, run.Due)
	days, _ = f.occurrences(sr.ID)
	require.Len(t, days, 3)

	var types []store.EventType
	evs, err := f.ListEvents(ctx, g.ID, store.PageArgs{First: 100})
	require.NoError(t, err)
	for _, ev := range evs.Items {
		if ev.Subject.Kind == store.SubjectRecurring {
			types = append(types, ev.Type)
		}
	}
	require.Equal(t, []store.EventType{store.EventRecurringDeleted, store.EventRecurringResumed, store.EventRecurringPaused,
		store.EventRecurringUpdated, store.EventRecurringCreated}, types)
}

func TestRunRecurringPutsTheClaimantInAClaimedPlaceholdersPlace(t *testing.T) {
	f := newSeriesFixture(t)
	g := f.group("1", "2")
	ph, err := f.AddPlaceholder(ctx, g.ID, "Carol", "1")
	require.NoError(t, err)
	shares := func(v string) *money.Decimal { d, _ := money.ParseDecimal(v); return &d }
	tmpl := store.Expense{
		GroupID: g.ID, Amount: amount("60.00"), Description: "Cleaner", SplitType: store.SplitShares, CreatedBy: "1",
		Payers: []store.Payment{{UserID: "1", Amount: amount("60.00")}},
		Splits: []store.Split{
			{UserID: "1", Amount: amount("20.00"), Shares: shares("1")},
			{UserID: "2", Amount: amount("20.00"), Shares: shares("1")},
			{UserID: ph.UserID, Amount: amount("20.00"), Shares: shares("1")},
		},
	}
	sr := f.series(tmpl, store.EveryDay, "2026-03-10", nil)
	// Bob claims the placeholder: from now on he stands in its place, and
	// as he shares already, his weight is both of theirs.
	bob, err := f.getMember(g.ID, "2")
	require.NoError(t, err)
	_, err = f.ClaimPlaceholder(ctx, g.ID, ph.UserID, bob)
	require.NoError(t, err)

	_, err = f.RunRecurring(ctx, 31)
	require.NoError(t, err)
	_, es := f.occurrences(sr.ID)
	require.Len(t, es, 1)
	e := es[0]
	require.Len(t, e.Splits, 2)
	require.Equal(t, "2", e.Splits[1].UserID)
	require.Equal(t, "40.00", e.Splits[1].Amount.String())
	require.Equal(t, "2", e.Splits[1].Shares.String())
	require.Equal(t, "20.00", e.Splits[0].Amount.String())
}

// Finding the due series is one Query per shard of the due index, never a
// Scan, however many series the table holds that are not due.
func TestRunRecurringFindsDueSeriesByIndexQuery(t *testing.T) {
	var calls dynamotest.Counter
	f := newSeriesFixture(t, calls.Option())
	g := f.group("1", "2")
	tmpl := equalExpense(g, "1", "10.00", "1", "2")
	for range 5 {
		f.series(tmpl, store.EveryMonth, "2026-04-01", nil) // not due yet
	}
	calls.Reset()
	run, err := f.RunRecurring(ctx, 31)
	require.NoError(t, err)
	require.Equal(t, store.RecurringRun{}, run)
	require.Equal(t, map[string]int{"Query": 4}, calls.ByOperation())

	due := f.series(tmpl, store.EveryDay, "2026-03-10", nil)
	calls.Reset()
	run, err = f.RunRecurring(ctx, 31)
	require.NoError(t, err)
	require.Equal(t, 1, run.Created)
	ops := calls.ByOperation()
	require.Zero(t, ops["Scan"])
	require.Equal(t, 4, ops["Query"])
	require.Equal(t, 1, ops["TransactWriteItems"], "one transaction per occurrence")
	days, _ := f.occurrences(due.ID)
	require.Equal(t, []string{"2026-03-10"}, days)
}

func TestExtendingAFinishedSeriesGoesOnFromToday(t *testing.T) {
	f := newSeriesFixture(t)
	g := f.group("1", "2")
	sr := f.series(equalExpense(g, "1", "10.00", "1", "2"), store.EveryDay, "2026-03-01", func(s *store.Series) { s.Count = 2 })
	_, err := f.RunRecurring(ctx, 31)
	require.NoError(t, err)
	more := 5
	extended, err := f.UpdateSeries(ctx, g.ID, sr.ID, 1, store.SeriesEdit{Count: &more}, "1")
	require.NoError(t, err)
	require.Equal(t, "2026-03-10", store.FormatDay(extended.NextOn), "3 to 9 March are skipped")
	require.Equal(t, 9, extended.Done)
	require.Equal(t, 2, extended.Created)
	f.clock.Add(5 * 24 * time.Hour)
	_, err = f.RunRecurring(ctx, 31)
	require.NoError(t, err)
	days, _ := f.occurrences(sr.ID)
	require.Equal(t, []string{"2026-03-01", "2026-03-02", "2026-03-10", "2026-03-11", "2026-03-12"}, days, "count counts occurrences created, not days skipped")
}

// An occurrence is spent at noon of its day in the group's time zone, so
// its day (SpentOn), and the spending summary it counts in, is its own.
func TestOccurrencesAreOnTheirDayInTheGroupsZone(t *testing.T) {
	f := newSeriesFixture(t) // 2026-03-10 12:00 UTC
	for _, tc := range []struct {
		zone string
		days []string // newest first
	}{
		{"Pacific/Kiritimati", []string{"2026-03-11", "2026-03-10", "2026-03-09"}}, // already 02:00 on the 11th
		{"Pacific/Pago_Pago", []string{"2026-03-10", "2026-03-09"}},                // 01:00 on the 10th
		{"Europe/Berlin", []string{"2026-03-10", "2026-03-09"}},
	} {
		g, _, err := f.CreateGroup(ctx, store.NewGroup{Title: "Flat", Currency: usd, Creator: user("1"), TimeZone: tc.zone})
		require.NoError(t, err)
		sr := f.series(equalExpense(g, "1", "10.00", "1"), store.EveryDay, "2026-03-09", func(sr *store.Series) { sr.Zone = tc.zone })
		_, err = f.RunRecurring(ctx, 31)
		require.NoError(t, err)
		_, es := f.occurrences(sr.ID)
		got := make([]string, len(es))
		for i := range es {
			got[i] = es[i].SpentOn
		}
		require.Equal(t, tc.days, got, tc.zone)
		loc, err := store.LoadZone(tc.zone)
		require.NoError(t, err)
		require.Equal(t, 12, es[1].SpentAt.In(loc).Hour(), tc.zone)
	}
}

// An occurrence falls due when its day begins where the group lives, not at
// midnight UTC: a day earlier east of UTC, later west of it. Until then the
// scheduler reads nothing of the series but the due index.
func TestOccurrencesFallDueWhenTheirDayBeginsInTheGroupsZone(t *testing.T) {
	for _, tc := range []struct {
		zone string
		at   string // the store clock, UTC
		due  bool   // whether 2026-05-02 has begun in the zone
	}{
		{"Pacific/Kiritimati", "2026-05-01T09:59:00Z", false},  // UTC+14: 23:59 on the 1st
		{"Pacific/Kiritimati", "2026-05-01T10:00:00Z", true},   // 00:00 on the 2nd
		{"America/Los_Angeles", "2026-05-02T06:59:00Z", false}, // UTC-7 in May: 23:59 on the 1st
		{"America/Los_Angeles", "2026-05-02T07:00:00Z", true},
		{"", "2026-05-01T23:59:00Z", false},
		{"", "2026-05-02T00:00:00Z", true},
	} {
		t.Run(tc.zone+" "+tc.at, func(t *testing.T) {
			var calls dynamotest.Counter
			f := newSeriesFixture(t, calls.Option())
			at, err := time.Parse(time.RFC3339, tc.at)
			require.NoError(t, err)
			f.clock.Add(at.Add(-48 * time.Hour).Sub(f.clock.Now()))
			g, _, err := f.CreateGroup(ctx, store.NewGroup{Title: "Flat", Currency: usd, Creator: user("1"), TimeZone: tc.zone})
			require.NoError(t, err)
			sr := f.series(equalExpense(g, "1", "10.00", "1"), store.EveryMonth, "2026-05-02", func(sr *store.Series) { sr.Zone = tc.zone })
			f.clock.Add(48 * time.Hour)

			calls.Reset()
			run, err := f.RunRecurring(ctx, 31)
			require.NoError(t, err)
			ops := calls.ByOperation()
			days, es := f.occurrences(sr.ID)
			if !tc.due {
				require.Equal(t, store.RecurringRun{}, run)
				require.Empty(t, days)
				require.Equal(t, map[string]int{"Query": 4}, ops, "only the due index is read")
				return
			}
			require.Equal(t, store.RecurringRun{Due: 1, Created: 1}, run)
			require.Len(t, days, 1)
			require.Equal(t, "2026-05-02", es[0].SpentOn)
		})
	}
}

// An update that changes only who shares (a flatmate moving out), with the
// same amount and description, is a change: written, versioned, an event,
// and the next occurrence follows it.
func TestSeriesUpdateOfTheSplitsAloneIsAChange(t *testing.T) {
	f := newSeriesFixture(t)
	g := f.group("1", "2", "3")
	sr := f.series(equalExpense(g, "1", "90.00", "1", "2", "3"), store.EveryDay, "2026-03-11", nil)
	next := equalExpense(g, "1", "90.00", "1", "2")
	next.Category = "rent"
	updated, err := f.UpdateSeries(ctx, g.ID, sr.ID, 1, store.SeriesEdit{Template: &next}, "2")
	require.NoError(t, err)
	require.Equal(t, 2, updated.Version)

	evs, err := f.ListEvents(ctx, g.ID, store.PageArgs{First: 1})
	require.NoError(t, err)
	require.Equal(t, store.EventRecurringUpdated, evs.Items[0].Type)
	var fields []string
	for _, c := range evs.Items[0].Changes {
		fields = append(fields, c.Field)
	}
	require.Equal(t, []string{store.FieldCategory, store.FieldSplits}, fields)

	f.clock.Add(24 * time.Hour)
	_, err = f.RunRecurring(ctx, 31)
	require.NoError(t, err)
	_, es := f.occurrences(sr.ID)
	require.Len(t, es, 1)
	require.Len(t, es[0].Splits, 2, "the third flatmate is out of the next occurrence")
	require.Equal(t, "45.00", es[0].Splits[1].Amount.String())
}
