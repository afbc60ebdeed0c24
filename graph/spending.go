package graph

import (
	"context"
	"sync"
	"time"

	"github.com/fracti/api/loaders"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
)

// spendingRange checks a spending query's arguments: from not after to, at
// most the store's SpendingMaxDays days, a known currency ("" for all).
func spendingRange(s *store.Store, from, to string, currency *string, by *store.SpendingPeriod) (cur string, period store.SpendingPeriod, err error) {
	start, _ := time.Parse(time.DateOnly, from) // Dates are valid days by now
	end, _ := time.Parse(time.DateOnly, to)
	if end.Before(start) {
		return "", "", badInput("to", "the range ends (%s) before it starts (%s)", to, from)
	}
	if days := int(end.Sub(start).Hours()/24) + 1; days > s.SpendingMaxDays() {
		return "", "", badInput("to", "the range covers %d days; SPENDING_MAX_DAYS allows at most %d", days, s.SpendingMaxDays())
	}
	if currency != nil {
		c, err := money.LookupCurrency(*currency)
		if err != nil {
			return "", "", moneyError("currency", err)
		}
		cur = c.Code()
	}
	period = store.PeriodDay
	if by != nil {
		period = *by
	}
	return cur, period, nil
}

// timeZoneName checks an IANA time zone name; "UTC" is stored as "" (the
// default), so that groups in UTC all look the same.
func timeZoneName(field, name string) (string, error) {
	if _, err := store.LoadZone(name); err != nil || name == "" {
		return "", badInput(field, "%q is not an IANA time zone name such as \"Europe/Berlin\" or \"UTC\"", name)
	}
	if name == "UTC" {
		return "", nil
	}
	return name, nil
}

// spendingOfGroups reads the summaries of several groups at once, one Query
// per group, all in parallel.
func spendingOfGroups(ctx context.Context, s *store.Store, groupIDs []string, from, to, currency string) ([]store.SpendingDay, error) {
	results := make([][]store.SpendingDay, len(groupIDs))
	errs := make([]error, len(groupIDs))
	var wg sync.WaitGroup
	for i, id := range groupIDs {
		wg.Go(func() { results[i], errs[i] = s.ListSpending(ctx, id, from, to, currency) })
	}
	wg.Wait()
	var all []store.SpendingDay
	for i := range groupIDs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		all = append(all, results[i]...)
	}
	return all, nil
}

// groupIDsOf lists the ids of the groups the user is a member of.
func groupIDsOf(ctx context.Context, userID string) ([]string, error) {
	memberships, err := loaders.UserGroups(ctx, userID)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(memberships))
	for i, m := range memberships {
		ids[i] = m.GroupID
	}
	return ids, nil
}
