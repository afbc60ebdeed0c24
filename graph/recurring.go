package graph

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/store"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// seriesIDPattern is a RecurringExpense's id: store.SeriesPrefix and 32 hex digits.
var seriesIDPattern = regexp.MustCompile(`^` + store.SeriesPrefix + `[0-9a-f]{32}$`)

// Bounds of a recurring expense's schedule.
const (
	maxInterval        = 999
	maxOccurrenceCount = 10000
	// maxCatchUpDays is how far in the past a recurring expense may start
	// (its occurrences since are caught up); maxStartAheadDays how far ahead.
	maxCatchUpDays    = 366
	maxStartAheadDays = 3660
)

// visibleSeries is the recurring expense with this id if the viewer is a
// member of its group, else nil, exactly as for an id that does not exist.
func (r *Resolver) visibleSeries(ctx context.Context, id string) (*store.Series, error) {
	if !seriesIDPattern.MatchString(id) {
		return nil, nil
	}
	sr, err := r.Store.GetSeries(ctx, id)
	if err != nil || sr == nil {
		return nil, err
	}
	if ok, err := isMember(ctx, sr.GroupID); err != nil || !ok {
		return nil, err
	}
	return sr, nil
}

// recurringTemplate checks a recurring expense's template exactly as
// createExpense checks its input, in the group the viewer must belong to,
// with every field named under input.template.
func recurringTemplate(ctx context.Context, in model.CreateExpenseInput) (*store.Group, store.Expense, error) {
	g, err := visibleGroup(ctx, in.GroupID)
	if err != nil || g == nil {
		return nil, store.Expense{}, orNotFound(err, "group")
	}
	switch {
	case in.SpentAt != nil:
		return nil, store.Expense{}, badInput("input.template.spentAt", "each occurrence is dated on its own day: leave spentAt out")
	case in.IdempotencyKey != nil:
		return nil, store.Expense{}, badInput("input.template.idempotencyKey", "each occurrence has its own identity: leave idempotencyKey out")
	case in.Items != nil || in.Adjustments != nil:
		return nil, store.Expense{}, badInput("input.template.items", "a recurring expense is not itemized: give splitType and splits")
	case in.ConvertTo != nil || in.Rate != nil:
		// A rate is a fact of one day: a series records its occurrences in
		// the currency it is entered in (convert an occurrence by editing it).
		return nil, store.Expense{}, badInput("input.template.convertTo", "a recurring expense is recorded in its own currency: leave convertTo and rate out")
	}
	e, err := newExpense(ctx, g, in)
	if err != nil {
		return nil, store.Expense{}, underTemplate(err)
	}
	if len(e.InvolvedUsers()) > store.MaxSeriesParticipants {
		return nil, store.Expense{}, badInput("input.template.splits", "a recurring expense can involve at most %d members, payers included", store.MaxSeriesParticipants)
	}
	return g, e, nil
}

// underTemplate moves a createExpense input error's field (input.amount)
// under the template (input.template.amount).
func underTemplate(err error) error {
	var ge *gqlerror.Error
	if !errors.As(err, &ge) {
		return err
	}
	field, ok := ge.Extensions["field"].(string)
	if !ok || !strings.HasPrefix(field, "input.") {
		return err
	}
	moved := "input.template." + strings.TrimPrefix(field, "input.")
	ge.Extensions["field"] = moved
	ge.Message = strings.Replace(ge.Message, field, moved, 1)
	return ge
}

// recurringSchedule checks a new recurring expense's schedule against today.
func recurringSchedule(in model.CreateRecurringExpenseInput, now time.Time) (store.Series, error) {
	interval := 1
	if in.Interval != nil {
		interval = *in.Interval
	}
	today := store.Today(now)
	startsOn, err := day("input.startsOn", in.StartsOn)
	if err != nil {
		return store.Series{}, err
	}
	switch {
	case interval < 1 || interval > maxInterval:
		return store.Series{}, badInput("input.interval", "must be between 1 and %d", maxInterval)
	case startsOn.Before(today.AddDate(0, 0, -maxCatchUpDays)):
		return store.Series{}, badInput("input.startsOn", "may be at most %d days ago", maxCatchUpDays)
	case startsOn.After(today.AddDate(0, 0, maxStartAheadDays)):
		return store.Series{}, badInput("input.startsOn", "may be at most %d days ahead", maxStartAheadDays)
	}
	sr := store.Series{Every: in.Every, Interval: interval, StartsOn: startsOn}
	if err := seriesEnd(&sr, in.EndsOn, in.Count, false); err != nil {
		return store.Series{}, err
	}
	return sr, nil
}

// day reads a Date input (checked by the scalar) as UTC midnight.
func day(field, v string) (time.Time, error) {
	d, err := store.ParseDay(v)
	if err != nil {
		return time.Time{}, badInput(field, "is not a day written YYYY-MM-DD")
	}
	return d, nil
}

// seriesEnd checks and sets endsOn and count (0 allowed only when zeroOK:
// an update removing the limit).
func seriesEnd(sr *store.Series, endsOn *string, count *int, zeroOK bool) error {
	if endsOn != nil {
		end, err := day("input.endsOn", *endsOn)
		if err != nil {
			return err
		}
		if end.Before(sr.StartsOn) {
			return badInput("input.endsOn", "must be on or after startsOn (%s)", store.FormatDay(sr.StartsOn))
		}
		sr.EndsOn = &end
	}
	if count != nil {
		if (*count < 1 && !(zeroOK && *count == 0)) || *count > maxOccurrenceCount {
			return badInput("input.count", "must be between 1 and %d", maxOccurrenceCount)
		}
		sr.Count = *count
	}
	return nil
}

// seriesEdit checks an updateRecurringExpense input against the series.
func seriesEdit(ctx context.Context, sr *store.Series, in model.UpdateRecurringExpenseInput) (store.SeriesEdit, error) {
	edit := store.SeriesEdit{Count: in.Count, NoEnd: in.NoEnd != nil && *in.NoEnd}
	if in.Template != nil {
		if in.Template.GroupID != sr.GroupID {
			return edit, badInput("input.template.groupId", "must be the recurring expense's group")
		}
		_, t, err := recurringTemplate(ctx, *in.Template)
		if err != nil {
			return edit, err
		}
		edit.Template = &t
	}
	if edit.NoEnd && in.EndsOn != nil {
		return edit, badInput("input.noEnd", "give either endsOn or noEnd, not both")
	}
	check := *sr
	if err := seriesEnd(&check, in.EndsOn, in.Count, true); err != nil {
		return edit, err
	}
	edit.EndsOn = check.EndsOn
	if in.EndsOn == nil {
		edit.EndsOn = nil
	}
	return edit, nil
}

// changeSeries applies a pause, resume or deletion to the recurring expense
// with this id, if the viewer may see it.
func (r *Resolver) changeSeries(ctx context.Context, id string, change func(ctx context.Context, groupID, seriesID, actor string) (store.Series, error)) (*store.Series, error) {
	sr, err := r.visibleSeries(ctx, id)
	if err != nil || sr == nil {
		return nil, orNotFound(err, "recurring expense")
	}
	changed, err := change(ctx, sr.GroupID, sr.ID, viewerID(ctx))
	if err != nil {
		return nil, err
	}
	loaders.Wrote(ctx, sr.GroupID)
	return &changed, nil
}
