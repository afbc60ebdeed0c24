package store

import (
	"fmt"
	"hash/fnv"
	"math/big"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/fracti/api/money"
)

// RecurrenceUnit is the unit a recurring expense repeats in.
type RecurrenceUnit string

// The recurrence units, stored in lower case.
const (
	EveryDay   RecurrenceUnit = "day"
	EveryWeek  RecurrenceUnit = "week"
	EveryMonth RecurrenceUnit = "month"
	EveryYear  RecurrenceUnit = "year"
)

// MaxSeriesParticipants is the most users a recurring expense may involve:
// as many as an expense (an occurrence's transaction holds its marker and
// the series instead of an idempotency record and a second summary).
const MaxSeriesParticipants = MaxExpenseParticipants

// Series is a recurring expense: a template expense that the scheduler
// records as an ordinary expense (an occurrence) on every day it falls due.
type Series struct {
	ID      string
	GroupID string
	// Template is the expense every occurrence copies: Amount, Description,
	// Category, SplitType, Splits and Payers (names as when last written).
	Template Expense
	Every    RecurrenceUnit
	Interval int // every Interval units; at least 1
	// StartsOn is the day of the first occurrence; every later one is
	// computed from it (On), never from the one before.
	StartsOn time.Time
	EndsOn   *time.Time // no occurrence after this day; nil: none
	Count    int        // at most this many occurrences; 0: no limit
	// Done is how many occurrences have passed, created or skipped (while
	// paused): the next is occurrence number Done (from 0), on NextOn.
	Done int
	// Created is how many occurrences have been created: what Count limits.
	Created   int
	NextOn    time.Time
	Paused    bool
	CreatedBy string
	CreatedAt time.Time
	// Zone is the group's time zone when the series was last written (""
	// for UTC): where its days begin, which the scheduler reads from the due
	// index before it reads anything else.
	Zone string
	// Version is 1 when the series is created and grows by one with every
	// change a member makes (the scheduler's advances do not count, so that
	// they never make a member's edit fail).
	Version int
}

// On is the day of occurrence n (from 0): StartsOn plus n intervals, a month
// or year later clamped to the last day of a shorter month (31 January
// monthly: 28 or 29 February, then 31 March; 29 February yearly: 28
// February in other years).
func (s *Series) On(n int) time.Time {
	start := s.StartsOn
	step := n * max(s.Interval, 1)
	switch s.Every {
	case EveryWeek:
		return start.AddDate(0, 0, 7*step)
	case EveryMonth:
		return addMonthsClamped(start, step)
	case EveryYear:
		return addMonthsClamped(start, 12*step)
	default:
		return start.AddDate(0, 0, step)
	}
}

// addMonthsClamped is day d moved by months, on the same day of the month or
// on the month's last day when it is shorter.
func addMonthsClamped(d time.Time, months int) time.Time {
	first := time.Date(d.Year(), d.Month()+time.Month(months), 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	return time.Date(first.Year(), first.Month(), min(d.Day(), last), 0, 0, 0, 0, time.UTC)
}

// Finished reports whether the series has no occurrence left: Count
// created or NextOn past EndsOn.
func (s *Series) Finished() bool {
	return (s.Count > 0 && s.Created >= s.Count) || (s.EndsOn != nil && s.NextOn.After(*s.EndsOn))
}

// Active reports whether the scheduler creates the series' occurrences.
func (s *Series) Active() bool { return !s.Paused && !s.Finished() }

// advanced is the series after its occurrence number Done was created.
func (s Series) advanced() Series {
	s.Created++
	return s.skipped()
}

// skipped is the series after its occurrence number Done was skipped.
func (s Series) skipped() Series {
	s.Done++
	s.NextOn = s.On(s.Done)
	return s
}

// ParseDay reads a day written as DayLayout ("2006-01-02", UTC calendar
// days) as UTC midnight.
func ParseDay(v string) (time.Time, error) { return time.Parse(DayLayout, v) }

// FormatDay writes a day as "2006-01-02".
func FormatDay(d time.Time) string { return d.UTC().Format(DayLayout) }

// Today is the UTC day of t, at midnight.
func Today(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// occurrenceHour is when an occurrence's money counts as spent: noon of its
// day in the group's time zone, so that its day (SpentOn) is the
// occurrence's own day in the group's spending.
const occurrenceHour = 12

// occurrenceExpense is the expense of the series' occurrence on day in a
// group whose time zone is zone, with the members' current names (members:
// who stands for each user of the template, see availableMembers), and ok
// false when nobody is left to pay or to share. Members who left are
// dropped (see dropDeparted). Everything an occurrence is made of is set
// here, in one place.
func occurrenceExpense(s *Series, day time.Time, zone string, members map[string]*Member) (Expense, bool, error) {
	loc, err := LoadZone(zone)
	if err != nil {
		return Expense{}, false, err
	}
	t := s.Template
	e := Expense{
		GroupID: s.GroupID, Amount: t.Amount, Description: t.Description, Category: t.Category,
		SplitType: t.SplitType, CreatedBy: s.CreatedBy, SeriesID: s.ID, TimeZone: zone,
		SpentAt: time.Date(day.Year(), day.Month(), day.Day(), occurrenceHour, 0, 0, 0, loc).UTC(),
	}
	payers, splitType, splits, ok, err := dropDeparted(&t, members)
	if err != nil || !ok {
		return Expense{}, ok, err
	}
	e.Payers, e.SplitType, e.Splits = payers, splitType, splits
	return e, true, nil
}

// dropDeparted applies the rule for members who left: they are dropped from
// the occurrence. A claimed placeholder is not dropped but replaced by the
// member who claimed it (merged with them, weights added, when they are in
// the template too). Departed payers'
// part is re-divided among the remaining payers in proportion to what each
// pays in the template; departed beneficiaries' part among the remaining
// beneficiaries by their weights: EQUAL stays equal, SHARES keeps the
// shares, EXACT re-divides in proportion to the exact amounts, PERCENTAGE
// becomes SHARES with the percentages as weights (the remaining percentages
// no longer add up to 100). Leftover minor units go out as every split does
// (largest remainder). ok is false when no payer or no beneficiary is left.
func dropDeparted(t *Expense, members map[string]*Member) (payers []Payment, splitType SplitType, splits []Split, ok bool, err error) {
	total := t.Amount
	var kept []Payment
	var weights []money.Decimal
	at := map[string]int{} // where each user is in kept
	for _, p := range t.Payers {
		m := members[p.UserID]
		if m == nil {
			continue
		}
		if i, twice := at[m.UserID]; twice { // a claimed placeholder's claimant, already a payer
			if weights[i], err = addDecimals(weights[i], p.Amount.Decimal()); err != nil {
				return nil, "", nil, false, err
			}
			continue
		}
		at[m.UserID] = len(kept)
		p.UserID, p.UserName = m.UserID, m.Name
		kept, weights = append(kept, p), append(weights, p.Amount.Decimal())
	}
	if len(kept) == 0 {
		return nil, "", nil, false, nil
	}
	if len(kept) < len(t.Payers) {
		amounts, err := money.SplitWeighted(total, weights)
		if err != nil {
			return nil, "", nil, false, fmt.Errorf("re-divide payers: %w", err)
		}
		for i := range kept {
			kept[i].Amount = amounts[i]
		}
	}
	splitType = t.SplitType
	var ben []Split
	weights = nil
	clear(at)
	for _, sp := range t.Splits {
		m := members[sp.UserID]
		if m == nil {
			continue
		}
		var w money.Decimal
		switch t.SplitType {
		case SplitShares:
			w = *sp.Shares
		case SplitPercentage:
			w = *sp.Percentage
		default:
			w = sp.Amount.Decimal()
		}
		if i, twice := at[m.UserID]; twice { // a claimed placeholder's claimant, already a beneficiary
			if weights[i], err = addDecimals(weights[i], w); err != nil {
				return nil, "", nil, false, err
			}
			continue
		}
		at[m.UserID] = len(ben)
		sp.UserID, sp.UserName = m.UserID, m.Name
		ben, weights = append(ben, sp), append(weights, w)
	}
	if len(ben) == 0 {
		return nil, "", nil, false, nil
	}
	if len(ben) < len(t.Splits) {
		var amounts []money.Amount
		if t.SplitType == SplitEqual {
			amounts, err = money.SplitEqual(total, len(ben))
		} else {
			amounts, err = money.SplitWeighted(total, weights)
		}
		if err != nil {
			return nil, "", nil, false, fmt.Errorf("re-divide splits: %w", err)
		}
		for i := range ben {
			ben[i].Amount = amounts[i]
			switch t.SplitType {
			case SplitPercentage:
				ben[i].Shares, ben[i].Percentage = &weights[i], nil
			case SplitShares:
				ben[i].Shares = &weights[i]
			}
		}
		if t.SplitType == SplitPercentage {
			splitType = SplitShares
		}
	}
	return kept, splitType, ben, true, nil
}

// dueShards is how many GSI1 partitions (DUE#0 … DUE#3) the active series
// are spread over, so that no one index partition takes every series.
const dueShards = 4

// dueShard is the shard a series is listed in, fixed by its id.
func dueShard(seriesID string) int {
	h := fnv.New32a()
	h.Write([]byte(seriesID))
	return int(h.Sum32() % dueShards)
}

// seriesRecord is the GROUP#<groupId> / SERIES#<seriesId> item.
type seriesRecord struct {
	itemKey
	ID        string         `dynamodbav:"id"`
	GroupID   string         `dynamodbav:"groupId"`
	Template  templateRecord `dynamodbav:"template"`
	Every     string         `dynamodbav:"every"`
	Interval  int            `dynamodbav:"interval"`
	StartsOn  string         `dynamodbav:"startsOn"`
	EndsOn    string         `dynamodbav:"endsOn,omitempty"`
	Count     int            `dynamodbav:"count,omitempty"`
	Done      int            `dynamodbav:"done"`
	Created   int            `dynamodbav:"created"`
	NextOn    string         `dynamodbav:"nextOn"`
	Paused    bool           `dynamodbav:"paused"`
	CreatedBy string         `dynamodbav:"createdBy"`
	CreatedAt string         `dynamodbav:"createdAt"`
	Version   int            `dynamodbav:"version"`
	Zone      string         `dynamodbav:"timeZone,omitempty"`
}

// templateRecord is a series' template expense as stored.
type templateRecord struct {
	Amount      attributevalue.Number `dynamodbav:"amount"`
	Currency    string                `dynamodbav:"currency"`
	Description string                `dynamodbav:"description"`
	Category    string                `dynamodbav:"category,omitempty"`
	SplitType   string                `dynamodbav:"splitType"`
	Splits      []splitRecord         `dynamodbav:"splits"`
	Payers      []paymentRecord       `dynamodbav:"payers"`
}

// Attributes of a series that conditions and the scheduler name.
const (
	attrNextOn     = "nextOn"
	attrPaused     = "paused"
	attrSeriesZone = "timeZone"
)

func (s *Series) record() seriesRecord {
	// The template is stored in the shape of an expense's own attributes.
	ex := s.Template
	ex.ID, ex.GroupID, ex.CreatedAt = s.ID, s.GroupID, s.CreatedAt
	er := ex.record()
	r := seriesRecord{
		itemKey: itemKey{
			PK: groupPK(s.GroupID), SK: seriesSK(s.ID),
			GSI2PK: seriesGSI2PK(s.ID), GSI2SK: s.GroupID,
		},
		ID: s.ID, GroupID: s.GroupID,
		Template: templateRecord{
			Amount: er.Amount, Currency: er.Currency, Description: er.Description, Category: er.Category,
			SplitType: er.SplitType, Splits: er.Splits, Payers: er.Payers,
		},
		Every: string(s.Every), Interval: s.Interval, StartsOn: FormatDay(s.StartsOn), Count: s.Count,
		Done: s.Done, Created: s.Created, NextOn: FormatDay(s.NextOn), Paused: s.Paused,
		CreatedBy: s.CreatedBy, CreatedAt: formatTime(s.CreatedAt), Version: s.Version, Zone: s.Zone,
	}
	if s.EndsOn != nil {
		r.EndsOn = FormatDay(*s.EndsOn)
	}
	if s.Active() {
		r.GSI1PK, r.GSI1SK = dueGSI1PK(dueShard(s.ID)), dueGSI1SK(r.NextOn, s.GroupID, s.ID)
	}
	return r
}

func (r *seriesRecord) series() (Series, error) {
	t := r.Template
	ex := expenseRecord{
		ID: r.ID, GroupID: r.GroupID, Amount: t.Amount, Currency: t.Currency, Description: t.Description,
		Category: t.Category, SplitType: t.SplitType, Splits: t.Splits, Payers: t.Payers, CreatedAt: r.CreatedAt,
	}
	if len(t.Payers) > 0 {
		ex.PayerID, ex.PayerName = t.Payers[0].UserID, t.Payers[0].UserName
	}
	tmpl, err := ex.expense()
	if err != nil {
		return Series{}, fmt.Errorf("recurring expense %s template: %w", r.ID, err)
	}
	s := Series{
		ID: r.ID, GroupID: r.GroupID, Template: tmpl, Every: RecurrenceUnit(r.Every), Interval: r.Interval,
		Count: r.Count, Done: r.Done, Created: r.Created, Paused: r.Paused, CreatedBy: r.CreatedBy, Version: r.Version, Zone: r.Zone,
		CreatedAt: tmpl.CreatedAt,
	}
	for _, d := range []struct {
		v   string
		dst *time.Time
	}{{r.StartsOn, &s.StartsOn}, {r.NextOn, &s.NextOn}} {
		if *d.dst, err = ParseDay(d.v); err != nil {
			return Series{}, fmt.Errorf("recurring expense %s: %w", r.ID, err)
		}
	}
	if r.EndsOn != "" {
		end, err := ParseDay(r.EndsOn)
		if err != nil {
			return Series{}, fmt.Errorf("recurring expense %s endsOn: %w", r.ID, err)
		}
		s.EndsOn = &end
	}
	return s, nil
}

// occurrenceRecord is the GROUP#<groupId> / RECUR#<seriesId>#<day> marker.
type occurrenceRecord struct {
	itemKey
	SeriesID  string `dynamodbav:"seriesId"`
	Day       string `dynamodbav:"day"`
	ExpenseID string `dynamodbav:"expenseId,omitempty"`
}

// seriesChanges are the changes between two versions of a series, as an
// activity event shows them.
func seriesChanges(before, after *Series) []Change {
	var out []Change
	add := func(field, b, a string) {
		if b == a {
			return
		}
		out = append(out, Change{Field: field, Before: optionalString(b), After: optionalString(a)})
	}
	day := func(d *time.Time) string {
		if d == nil {
			return ""
		}
		return FormatDay(*d)
	}
	count := func(n int) string {
		if n == 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	var bt, bStart, bEvery, bInterval, bEnds, bCount, bPaused string
	if before != nil {
		bt, bStart, bEvery = templateFingerprint(before.Template), day(&before.StartsOn), string(before.Every)
		bInterval, bEnds, bCount = strconv.Itoa(before.Interval), day(before.EndsOn), count(before.Count)
		bPaused = strconv.FormatBool(before.Paused)
	}
	if after == nil {
		return out
	}
	if bt != templateFingerprint(after.Template) {
		if before != nil {
			add("amount", before.Template.Amount.String()+" "+before.Template.Currency().Code(), after.Template.Amount.String()+" "+after.Template.Currency().Code())
			add("description", before.Template.Description, after.Template.Description)
			// Who pays and who shares, and how: an edit of them alone is a
			// change too (a member moving out of the rent).
			out = append(out, diffDisplays(ExpenseDisplay(&before.Template), ExpenseDisplay(&after.Template),
				[]string{FieldCategory, FieldPayers, FieldSplitType, FieldSplits})...)
		} else {
			add("amount", "", after.Template.Amount.String()+" "+after.Template.Currency().Code())
			add("description", "", after.Template.Description)
		}
	}
	add("every", bEvery, string(after.Every))
	add("interval", bInterval, strconv.Itoa(after.Interval))
	add("startsOn", bStart, day(&after.StartsOn))
	add("endsOn", bEnds, day(after.EndsOn))
	add("count", bCount, count(after.Count))
	if before != nil {
		add("paused", bPaused, strconv.FormatBool(after.Paused))
	}
	return out
}

// optionalString is nil for "".
func optionalString(v string) *string {
	if v == "" {
		return nil
	}
	return &v
}

// seriesEvent is the activity event of a change to a recurring expense.
func seriesEvent(t EventType, s *Series, actor string, at time.Time, changes []Change) Event {
	return Event{
		GroupID: s.GroupID, Type: t, ActorID: actor, At: at,
		Subject: Subject{Kind: SubjectRecurring, ID: s.ID},
		Changes: changes,
	}
}

// templateFingerprint identifies what a template says.
func templateFingerprint(e Expense) string {
	e.GroupID, e.SpentAt = "", e.CreatedAt
	return e.fingerprint()
}

// addDecimals is a + b, exactly, at the larger of their scales.
func addDecimals(a, b money.Decimal) (money.Decimal, error) {
	x, _ := new(big.Rat).SetString(a.String())
	y, _ := new(big.Rat).SetString(b.String())
	sum, err := money.ParseDecimal(x.Add(x, y).FloatString(int(max(a.Scale(), b.Scale()))))
	if err != nil {
		return money.Decimal{}, fmt.Errorf("add %s and %s: %w", a, b, err)
	}
	return sum, nil
}
