package store

import (
	"fmt"
	"strings"
	"time"
)

// RevisionAction is what a revision of an expense did.
type RevisionAction string

// The revision actions.
const (
	RevisionCreated  RevisionAction = "created"
	RevisionUpdated  RevisionAction = "updated"
	RevisionDeleted  RevisionAction = "deleted"
	RevisionRestored RevisionAction = "restored"
)

// Revision is one version of an expense: who made it, when, and what it
// changed. Revisions are written in the same transaction as the change and
// never changed; the newest has the expense's current version.
type Revision struct {
	ExpenseID string
	GroupID   string
	Version   int
	Action    RevisionAction
	EditorID  string
	At        time.Time
	Changes   []Change
	// raw is Changes as built, with personal values inline (personal.go).
	raw []Change
}

// revisionRecord is the GROUP#<groupId> / REV#<expenseId>#<version> item.
type revisionRecord struct {
	itemKey
	ExpenseID     string         `dynamodbav:"expenseId"`
	GroupID       string         `dynamodbav:"groupId"`
	Version       int            `dynamodbav:"version"`
	Action        string         `dynamodbav:"action"`
	EditorID      string         `dynamodbav:"editorId"`
	At            string         `dynamodbav:"at"`
	Changes       []changeRecord `dynamodbav:"changes"`
	FormatVersion int            `dynamodbav:"formatVersion"`
	// Slots hold the changes' personal values (personal.go); revisions
	// written before them hold names in their strings.
	Slots map[string]slotRecord `dynamodbav:"slots,omitempty"`
}

func (rv *Revision) record() revisionRecord {
	changes := rv.raw
	if changes == nil {
		changes = rv.Changes
	}
	recs, slots := splitRefs(changes, false)
	return revisionRecord{
		itemKey:   itemKey{PK: groupPK(rv.GroupID), SK: revisionSK(rv.ExpenseID, rv.Version)},
		ExpenseID: rv.ExpenseID, GroupID: rv.GroupID, Version: rv.Version, Action: string(rv.Action),
		EditorID: rv.EditorID, At: formatTime(rv.At), Changes: recs, FormatVersion: formatCurrent, Slots: slots,
	}
}

func (r *revisionRecord) revision() (Revision, error) {
	at, err := parseTime(r.At)
	if err != nil {
		return Revision{}, fmt.Errorf("revision %s at: %w", r.SK, err)
	}
	return Revision{
		ExpenseID: r.ExpenseID, GroupID: r.GroupID, Version: r.Version, Action: RevisionAction(r.Action),
		EditorID: r.EditorID, At: at, Changes: renderChanges(r.Changes, r.Slots),
	}, nil
}

// revisionOf is the revision that takes an expense from before to after (the
// new version), made by editor at at; before is nil for its creation.
func revisionOf(action RevisionAction, before, after *Expense, editor string, at time.Time) Revision {
	raw := expenseChanges(before, after)
	return Revision{
		ExpenseID: after.ID, GroupID: after.GroupID, Version: after.Version, Action: action,
		EditorID: editor, At: at, Changes: renderChanges(changeRecords(raw), nil), raw: raw,
	}
}

// createdRevision is the first revision of an expense, made by whoever
// recorded it (its payer on items from before that was kept).
func createdRevision(e *Expense) Revision {
	v1 := *e
	v1.Version = 1
	editor := e.CreatedBy
	if editor == "" {
		editor = e.PayerID
	}
	return revisionOf(RevisionCreated, nil, &v1, editor, e.CreatedAt)
}

// The fields of an expense a revision records, in the order changes list them.
const (
	FieldAmount      = "amount"
	FieldCurrency    = "currency"
	FieldDescription = "description"
	FieldCategory    = "category"
	FieldSpentAt     = "spentAt"
	FieldPayers      = "payers"
	FieldSplitType   = "splitType"
	FieldSplits      = "splits"
)

// ExpenseDisplay is how a revision shows each field of an expense: amounts
// with their currency's decimals, the split type as its GraphQL name, payers
// and splits one member at a time ("Ann: 12.50; Ben: 7.50", with the
// percentage or weight given). A field without a value (no category) is
// absent. Replaying every revision's changes in order yields exactly this.
func ExpenseDisplay(e *Expense) map[string]string {
	d := expenseDisplay(e)
	for f, v := range d {
		d[f] = *renderValue(&v, nil)
	}
	return d
}

// expenseDisplay is ExpenseDisplay with each member's name inline as a
// reference (personRef), as stored changes keep it apart.
func expenseDisplay(e *Expense) map[string]string {
	d := map[string]string{
		FieldAmount:      e.Amount.String(),
		FieldCurrency:    e.Amount.Currency().Code(),
		FieldDescription: e.Description,
		FieldSpentAt:     formatTime(e.SpentAt),
		FieldSplitType:   strings.ToUpper(string(e.SplitType)),
	}
	if e.Category != "" {
		d[FieldCategory] = e.Category
	}
	payers := make([]string, len(e.Payers))
	for i, p := range e.Payers {
		payers[i] = personRef(p.UserID, p.UserName) + ": " + p.Amount.String()
	}
	d[FieldPayers] = strings.Join(payers, "; ")
	splits := make([]string, len(e.Splits))
	for i, sp := range e.Splits {
		splits[i] = personRef(sp.UserID, sp.UserName) + ": " + sp.Amount.String()
		switch {
		case sp.Percentage != nil:
			splits[i] += " (" + sp.Percentage.String() + "%)"
		case sp.Shares != nil:
			splits[i] += " (" + sp.Shares.String() + " shares)"
		}
	}
	d[FieldSplits] = strings.Join(splits, "; ")
	addItemsDisplay(d, e)
	addConversionDisplay(d, e.Conversion)
	if v, ok := receiptsDisplay(e.Receipts); ok {
		d[FieldReceipts] = v
	}
	return d
}

var expenseFields = append(append([]string{FieldAmount, FieldCurrency, FieldDescription, FieldCategory, FieldSpentAt, FieldPayers, FieldSplitType, FieldSplits, FieldItems, FieldAdjustments}, conversionFields...), FieldReceipts)

// ExpenseChanges lists the fields whose display differs between two states
// of an expense; with before nil (a creation), every field after has.
func ExpenseChanges(before, after *Expense) []Change {
	return renderChanges(changeRecords(expenseChanges(before, after)), nil)
}

// expenseChanges is ExpenseChanges with names inline as references.
func expenseChanges(before, after *Expense) []Change {
	var was map[string]string
	if before != nil {
		was = expenseDisplay(before)
	}
	return diffDisplays(was, expenseDisplay(after), expenseFields)
}

// diffDisplays lists, in the order of fields, the fields whose display
// differs between was and now; a field absent from one is nil there.
func diffDisplays(was, now map[string]string, fields []string) []Change {
	var out []Change
	for _, f := range fields {
		b, hadB := was[f]
		a, hasA := now[f]
		if hadB == hasA && b == a {
			continue
		}
		out = append(out, Change{Field: f, Before: optional(b, hadB), After: optional(a, hasA)})
	}
	return out
}

func optional(s string, ok bool) *string {
	if !ok {
		return nil
	}
	return &s
}
