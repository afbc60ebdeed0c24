package graph_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/fracti/api/money"
	"github.com/stretchr/testify/require"
)

// The spending side of TestRandomSequencesKeepMoneyAddingUp: expenses dated
// on random days and hours, in random categories, while the group's time
// zone changes; after every step each summary equals a recomputation from
// the expense items and Group.spending adds up to the live expenses; at the
// end rebuild-summaries finds nothing to change.

var zones = []string{"UTC", "Asia/Tokyo", "America/Los_Angeles", "Pacific/Kiritimati", "Pacific/Pago_Pago", "Europe/Berlin"}

// randomDayAndCategory dates an expense input on a random past day and hour
// (or leaves it to now) and gives it a random category (or none).
func (w *world) randomDayAndCategory(in map[string]any) {
	if w.rng.IntN(4) > 0 {
		at := time.Date(2025, 12, 28, 0, 0, 0, 0, time.UTC).Add(time.Duration(w.rng.IntN(10*24*60)) * time.Minute)
		in["spentAt"] = at.Format("2006-01-02T15:04:05.000Z")
	}
	if c := w.pick([]string{"", "food", "rent", "fun"}); c != "" {
		in["category"] = c
	}
}

// changeTimeZone has a member move the group to another zone.
func (w *world) changeTimeZone() string {
	by := w.pick(w.members())
	var g struct{ Group struct{ Version int } }
	w.users[by].Must(&g, `query($g: ID!) { group(id: $g) { version } }`, "g", w.group)
	zone := w.pick(zones)
	var out struct{ UpdateGroup struct{ TimeZone string } }
	w.users[by].Must(&out, `mutation($g: ID!, $in: UpdateGroupInput!) { updateGroup(id: $g, input: $in) { timeZone } }`,
		"g", w.group, "in", map[string]any{"expectedVersion": g.Group.Version, "timeZone": zone})
	require.Equal(w.t, zone, out.UpdateGroup.TimeZone)
	w.zone = zone
	return "the group moves to " + zone
}

// day reads an expense's spentAt and spentOn.
func (w *world) day(id string) (spentAt, spentOn string) {
	var out struct {
		Expense struct{ SpentAt, SpentOn string }
	}
	w.users[w.anyMember()].Must(&out, `query($id: ID!) { expense(id: $id) { spentAt spentOn } }`, "id", id)
	return out.Expense.SpentAt, out.Expense.SpentOn
}

// checkDay: an expense written with a new spentAt (wasAt "" for a new one)
// is on the day of spentAt in the group's zone; otherwise it keeps its day.
func (w *world) checkDay(id, wasAt, wasOn string) {
	at, on := w.day(id)
	if wasAt != "" && at == wasAt {
		require.Equal(w.t, wasOn, on, "%s keeps its day when its spentAt stays", id)
		return
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	require.NoError(w.t, err)
	loc, err := time.LoadLocation(w.zone)
	require.NoError(w.t, err)
	require.Equal(w.t, t.In(loc).Format(time.DateOnly), on, "%s at %s in %s", id, at, w.zone)
}

// checkSpending: the stored summaries are what the expense items say
// (store.SpendingDrift), and what Group.spending reports per currency adds
// up to the live expenses, in total and in count (two ranges of at most 366
// days: July 2025 to July 2027 holds every day the test writes), each
// bucket's categories, payments and shares adding up to its total.
func (w *world) checkSpending(t *testing.T) {
	drift, err := w.api.Store.SpendingDrift(t.Context(), w.group)
	require.NoError(t, err)
	require.Empty(t, drift)

	var out struct {
		Group struct {
			Expenses struct {
				Nodes []struct{ Amount, Currency string }
			}
			Before, After []struct {
				Currency, Total string
				Count           int
				ByCategory      []struct{ Amount string }
				ByMember        []struct{ Paid, Share string }
			}
		}
	}
	w.users[w.anyMember()].Must(&out, `query($g: ID!) { group(id: $g) {
		expenses(first: 100) { nodes { amount currency } }
		before: spending(from: "2025-07-01", to: "2026-06-30", by: MONTH) { ...bucket }
		after: spending(from: "2026-07-01", to: "2027-07-01", by: WEEK) { ...bucket } } }
		fragment bucket on SpendingBucket { currency total count byCategory { amount } byMember { paid share } }`, "g", w.group)
	want, got := map[string]money.Amount{}, map[string]money.Amount{}
	wantCount, gotCount := map[string]int{}, map[string]int{}
	add := func(m map[string]money.Amount, amount, code string) {
		a := amountOf(t, amount, code)
		if prev, ok := m[code]; ok {
			a = a.Add(prev)
		}
		m[code] = a
	}
	for _, e := range out.Group.Expenses.Nodes {
		add(want, e.Amount, e.Currency)
		wantCount[e.Currency]++
	}
	for _, b := range append(out.Group.Before, out.Group.After...) {
		add(got, b.Total, b.Currency)
		gotCount[b.Currency] += b.Count
		cats, paid, share := money.Zero(money.MustCurrency(b.Currency)), money.Zero(money.MustCurrency(b.Currency)), money.Zero(money.MustCurrency(b.Currency))
		for _, c := range b.ByCategory {
			cats = cats.Add(amountOf(t, c.Amount, b.Currency))
		}
		for _, m := range b.ByMember {
			paid, share = paid.Add(amountOf(t, m.Paid, b.Currency)), share.Add(amountOf(t, m.Share, b.Currency))
		}
		for what, sum := range map[string]money.Amount{"categories": cats, "paid": paid, "shares": share} {
			require.Equal(t, b.Total, sum.String(), "%s of a %s bucket add up to its total", what, b.Currency)
		}
	}
	require.Equal(t, fmt.Sprint(want), fmt.Sprint(got), "Group.spending adds up to the live expenses")
	require.Equal(t, wantCount, gotCount)
}

// checkRebuildChangesNothing: recomputing every summary from the items
// writes nothing, since every write kept them exact.
func (w *world) checkRebuildChangesNothing() {
	n, err := w.api.Store.RebuildSpending(w.t.Context(), w.group)
	require.NoError(w.t, err)
	require.Zero(w.t, n, "rebuild-summaries changes nothing")
}
