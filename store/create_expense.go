package store

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/ledger"
	"github.com/fracti/api/money"
)

// MaxExpenseParticipants is the most distinct users (payers and
// beneficiaries together) one expense may involve, so that every change of
// it fits one transaction of DynamoDB's 100 items. The largest is an edit
// that moves it to another currency and another day: the ledger, two
// balances, the expense, one record per user other than the main payer, the
// revision, the activity event, two spending summaries (the old day's and
// the new one's) and its day item moved (a Delete and a Put).
const MaxExpenseParticipants = maxTransactItems - 9

// maxLaterRevisionParticipants is the most users an expense may involve for
// its first revision to wait for its first change, which then writes it:
// one item more than the largest edit above.
const maxLaterRevisionParticipants = MaxExpenseParticipants - 1

// CreateExpense writes the expense (version 1), its participant records,
// its effect on the group's balances and the group's activity event in one
// transaction (its first revision waits for its first change, see
// ListExpenseRevisions), on condition that the group exists and
// that every payer and beneficiary is a member. The store assigns the
// expense's id and creation time (and SpentAt, when it is not given).
// Payers may be left empty for a single payer named by PayerID; otherwise
// PayerID becomes the main payer.
//
// With an idempotency key, the recorder's key is claimed in the same
// transaction; a retry of the same expense with the same key returns the
// expense the first request created, and another expense with that key
// fails with ErrConflict.
func (s *Store) CreateExpense(ctx context.Context, groupTitle string, e Expense, idempotencyKey string) (Expense, error) {
	return s.createExpense(ctx, groupTitle, e, idempotencyKey, nil)
}

// createExpense is CreateExpense with extra items written in the same
// transaction (a recurring expense's occurrence marker and series update),
// after the expense's own and before the event.
func (s *Store) createExpense(ctx context.Context, groupTitle string, e Expense, idempotencyKey string, extra []types.TransactWriteItem) (Expense, error) {
	e.ID = s.newID()
	e.CreatedAt = s.stamp()
	e.Version = 1
	if e.SpentAt.IsZero() {
		e.SpentAt = e.CreatedAt
	}
	e.Splits = slices.Clone(e.Splits) // the caller's slices stay as they were
	e.Payers = slices.Clone(e.Payers)
	e.own()
	involved := e.InvolvedUsers()
	if len(involved) > MaxExpenseParticipants {
		return Expense{}, fmt.Errorf("%w: %d participants, the limit is %d", ErrTooManyItems, len(involved), MaxExpenseParticipants)
	}
	spentOn, err := spentOnFor(nil, &e)
	if err != nil {
		return Expense{}, err
	}
	e.SpentOn = spentOn
	delta, err := e.delta()
	if err != nil {
		return Expense{}, err
	}
	rev := createdRevision(&e)
	// The first revision is the expense itself until it changes: its first
	// change writes it (appendRevisions), which saves every expense never
	// edited an item. Only an expense too large for its first change to
	// carry one more item stores it now.
	e.firstRevisionLater = len(involved) <= maxLaterRevisionParticipants
	puts := []any{e.record()}
	if !e.firstRevisionLater {
		puts = append(puts, rev.record())
	}
	for _, p := range e.participantRecords(groupTitle) {
		puts = append(puts, p)
	}
	items := []types.TransactWriteItem{s.balancesUpdate(e.GroupID, delta)}
	for _, rec := range puts {
		put, err := s.putNew(rec, "expense")
		if err != nil {
			return Expense{}, err
		}
		items = append(items, put)
	}
	idem := -1
	if idempotencyKey != "" {
		put, err := s.idempotencyPut(e.CreatedBy, idempotencyKey, idempotencyRecord{
			Kind: "expense", ResourceID: e.ID, GroupID: e.GroupID, CreatedAt: formatTime(e.CreatedAt), Fingerprint: e.fingerprint(),
		})
		if err != nil {
			return Expense{}, err
		}
		items = append(items, put)
		idem = len(items) // its index in the transaction, after the ledger
	}
	items = append(items, s.spendingUpdates(e.GroupID, nil, &e)...)
	days, err := s.dayChanges(nil, &e)
	if err != nil {
		return Expense{}, err
	}
	items = append(items, days...)
	items = append(items, extra...)
	ev := expenseEvent(EventExpenseCreated, &e, e.CreatedBy, e.CreatedAt, rev.raw)
	err = s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
		l.changeBalances(involved, e.Amount.Currency(), s.maxCurrencies)
		return items, nil
	})
	switch {
	case idem >= 0 && condFailedAt(err, idem):
		return s.replayExpense(ctx, e, idempotencyKey)
	case condFailedAt(err, 0):
		return Expense{}, s.ledgerRefusal(err, 0, e.Amount.Currency(),
			notFoundf("group %s or one of its members involved in the expense", e.GroupID))
	case err != nil:
		return Expense{}, fmt.Errorf("create expense: %w", err)
	}
	return e, nil
}

// own readies an expense to be written: its payers (PayerID alone, paying it
// all, when none are listed), the main payer from them, the expense's id and
// group on its splits and payments, the current format.
func (e *Expense) own() {
	e.format = formatCurrent
	if len(e.Payers) == 0 {
		e.Payers = []Payment{{UserID: e.PayerID, UserName: e.PayerName, Amount: e.Amount}}
	}
	main := e.Payers[MainPayer(e.Payers)]
	e.PayerID, e.PayerName = main.UserID, main.UserName
	for i := range e.Splits {
		e.Splits[i].ExpenseID, e.Splits[i].GroupID = e.ID, e.GroupID
	}
	for i := range e.Payers {
		e.Payers[i].ExpenseID, e.Payers[i].GroupID = e.ID, e.GroupID
	}
}

// expenseEvent is the activity event of a change to an expense.
func expenseEvent(t EventType, e *Expense, actor string, at time.Time, changes []Change) Event {
	return Event{
		GroupID: e.GroupID, Type: t, ActorID: actor, At: at,
		Subject: Subject{Kind: SubjectExpense, ID: e.ID, CreatedAt: e.CreatedAt},
		Changes: changes,
	}
}

// InvolvedUsers lists every payer and beneficiary once, the main payer first.
func (e *Expense) InvolvedUsers() []string {
	users := []string{e.PayerID}
	seen := map[string]bool{e.PayerID: true}
	add := func(u string) {
		if !seen[u] {
			seen[u] = true
			users = append(users, u)
		}
	}
	for _, p := range e.Payers {
		add(p.UserID)
	}
	for _, sp := range e.Splits {
		add(sp.UserID)
	}
	return users
}

// delta is the expense's effect on the group's balances.
func (e *Expense) delta() (ledger.Delta, error) {
	payers := make([]ledger.Part, len(e.Payers))
	for i, p := range e.Payers {
		payers[i] = ledger.Part{UserID: p.UserID, Amount: p.Amount}
	}
	shares := make([]ledger.Part, len(e.Splits))
	for i, sp := range e.Splits {
		shares[i] = ledger.Part{UserID: sp.UserID, Amount: sp.Amount}
	}
	d, err := ledger.ExpenseDelta(e.Amount.Currency(), payers, shares)
	if err != nil {
		return ledger.Delta{}, fmt.Errorf("expense %s balances: %w", e.ID, err)
	}
	return d, nil
}

// replayExpense returns the expense an earlier request with the same key made.
func (s *Store) replayExpense(ctx context.Context, e Expense, key string) (Expense, error) {
	rec, created, err := s.claimedBy(ctx, e.CreatedBy, key, "expense", e.fingerprint())
	if err != nil {
		return Expense{}, err
	}
	found, err := s.GetExpenses(ctx, []ExpenseRef{{ID: rec.ResourceID, GroupID: rec.GroupID, CreatedAt: created}})
	if err != nil {
		return Expense{}, err
	}
	if found[0] == nil {
		return Expense{}, conflictf("this request was already made, and the expense it created has since been deleted")
	}
	return *found[0], nil
}

// fingerprint identifies what the expense says, apart from its id and time:
// every field the request set, each split's weight included.
func (e *Expense) fingerprint() string {
	parts := []string{e.GroupID, e.Amount.String(), e.Amount.Currency().Code(), e.Description, e.Category, string(e.SplitType),
		strconv.Itoa(len(e.Payers)), spentAtPart(e), conversionPart(e.Conversion)}
	for _, p := range e.Payers {
		parts = append(parts, p.UserID, p.Amount.String())
	}
	for _, sp := range e.Splits {
		parts = append(parts, sp.UserID, sp.Amount.String(), optionalDecimal(sp.Percentage), optionalDecimal(sp.Shares))
	}
	parts = append(parts, itemsParts(e)...)
	return fingerprint(parts...)
}

// spentAtPart is SpentAt in a fingerprint, "" when it was not given (the
// creation time, which differs between a request and its retry).
func spentAtPart(e *Expense) string {
	if e.SpentAt.Equal(e.CreatedAt) {
		return ""
	}
	return formatTime(e.SpentAt)
}

// optionalDecimal writes a decimal, and nil as "-" (which no decimal is).
func optionalDecimal(d *money.Decimal) string {
	if d == nil {
		return "-"
	}
	return d.String()
}
