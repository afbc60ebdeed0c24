package store

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/fracti/api/money"
)

// DefaultSpendingMaxDays is how many days one spending range may cover
// unless Options say otherwise: a year, a leap one included.
const DefaultSpendingMaxDays = 366

// SpendingMaxDays is how many days one spending range may cover.
func (s *Store) SpendingMaxDays() int { return s.spendingMaxDays }

// SpendingPeriod is what a spending bucket covers.
type SpendingPeriod string

// The periods: a day, an ISO week (from Monday), a calendar month.
const (
	PeriodDay   SpendingPeriod = "day"
	PeriodWeek  SpendingPeriod = "week"
	PeriodMonth SpendingPeriod = "month"
)

// PeriodStart is the first day of the period (DayLayout) that holds day.
func PeriodStart(day time.Time, p SpendingPeriod) time.Time {
	switch p {
	case PeriodWeek:
		back := (int(day.Weekday()) + 6) % 7 // Monday 0 … Sunday 6
		return day.AddDate(0, 0, -back)
	case PeriodMonth:
		return time.Date(day.Year(), day.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	return day
}

// SpendingBucket is the spending of one period in one currency.
type SpendingBucket struct {
	Start      string // DayLayout
	Currency   money.Currency
	Total      money.Amount
	Count      int
	ByCategory []CategoryAmount // by category, those without one last
	ByMember   []MemberSpending // by group, then user id
}

// CategoryAmount is what a bucket's expenses of one category add up to;
// Category "" is the expenses without one.
type CategoryAmount struct {
	Category string
	Amount   money.Amount
}

// MemberSpending is what one member paid in a bucket, and their share.
type MemberSpending struct {
	GroupID string
	UserID  string
	Paid    money.Amount
	Share   money.Amount
}

// BucketSpending adds summaries up per period and currency: ordered by
// start, then currency, without empty buckets or zero entries.
func BucketSpending(days []SpendingDay, p SpendingPeriod) []SpendingBucket {
	type key struct{ start, currency string }
	type acc struct {
		b        SpendingBucket
		cats     map[string]money.Amount
		paid     map[[2]string]money.Amount
		share    map[[2]string]money.Amount
		currency money.Currency
	}
	buckets := map[key]*acc{}
	for _, d := range days {
		if d.Count == 0 {
			continue
		}
		t, err := time.Parse(DayLayout, d.Day)
		if err != nil {
			continue // not a day: never written so
		}
		k := key{PeriodStart(t, p).Format(DayLayout), d.Currency.Code()}
		a := buckets[k]
		if a == nil {
			a = &acc{b: SpendingBucket{Start: k.start, Currency: d.Currency, Total: money.Zero(d.Currency)},
				cats: map[string]money.Amount{}, paid: map[[2]string]money.Amount{}, share: map[[2]string]money.Amount{}}
			buckets[k] = a
		}
		a.b.Total = a.b.Total.Add(d.Total)
		a.b.Count += int(d.Count)
		addTo(a.cats, d.ByCategory, func(c string) string { return c }, d.Currency)
		addTo(a.paid, d.Paid, func(u string) [2]string { return [2]string{d.GroupID, u} }, d.Currency)
		addTo(a.share, d.Share, func(u string) [2]string { return [2]string{d.GroupID, u} }, d.Currency)
	}
	out := make([]SpendingBucket, 0, len(buckets))
	for _, a := range buckets {
		if a.b.Count == 0 {
			continue
		}
		for c, amt := range a.cats {
			if !amt.IsZero() {
				a.b.ByCategory = append(a.b.ByCategory, CategoryAmount{Category: c, Amount: amt})
			}
		}
		slices.SortFunc(a.b.ByCategory, func(x, y CategoryAmount) int {
			return cmp.Or(cmp.Compare(boolInt(x.Category == ""), boolInt(y.Category == "")), strings.Compare(x.Category, y.Category))
		})
		members := map[[2]string]bool{}
		for m := range a.paid {
			members[m] = true
		}
		for m := range a.share {
			members[m] = true
		}
		for m := range members {
			paid, share := orZero(a.paid[m], a.b.Currency), orZero(a.share[m], a.b.Currency)
			if !paid.IsZero() || !share.IsZero() {
				a.b.ByMember = append(a.b.ByMember, MemberSpending{GroupID: m[0], UserID: m[1], Paid: paid, Share: share})
			}
		}
		slices.SortFunc(a.b.ByMember, func(x, y MemberSpending) int {
			return cmp.Or(strings.Compare(x.GroupID, y.GroupID), strings.Compare(x.UserID, y.UserID))
		})
		out = append(out, a.b)
	}
	slices.SortFunc(out, func(x, y SpendingBucket) int {
		return cmp.Or(strings.Compare(x.Start, y.Start), strings.Compare(x.Currency.Code(), y.Currency.Code()))
	})
	return out
}

// addTo adds every amount of from to into, under the key keyOf gives.
func addTo[K comparable](into map[K]money.Amount, from map[string]money.Amount, keyOf func(string) K, cur money.Currency) {
	for k, v := range from {
		kk := keyOf(k)
		into[kk] = orZero(into[kk], cur).Add(v)
	}
}

// orZero is a, or zero in cur when a is the zero Amount (a missing entry).
func orZero(a money.Amount, cur money.Currency) money.Amount {
	if a.Minor().BitLen() == 0 && a.Currency() != cur {
		return money.Zero(cur)
	}
	return a
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ViewerSpending is a user's own side of summaries: per day and currency,
// Total is their share and Count the expenses they have a share in; the
// group's categories and other members are left out.
func ViewerSpending(days []SpendingDay, userID string) []SpendingDay {
	var out []SpendingDay
	for _, d := range days {
		share, ok := d.Share[userID]
		if !ok || d.Shares[userID] == 0 {
			continue
		}
		out = append(out, SpendingDay{GroupID: d.GroupID, Day: d.Day, Currency: d.Currency, Total: share, Count: d.Shares[userID]})
	}
	return out
}
