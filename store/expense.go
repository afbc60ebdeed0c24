package store

import (
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/fracti/api/money"
)

// SplitType is how an expense is divided among its beneficiaries.
type SplitType string

// The split types, stored in lower case as the data model has them.
const (
	SplitEqual      SplitType = "equal"
	SplitExact      SplitType = "exact"
	SplitPercentage SplitType = "percentage"
	SplitShares     SplitType = "shares"
)

// Expense is money one or more members paid for some of the group's members.
type Expense struct {
	ID          string
	GroupID     string
	PayerID     string // the main payer: who paid most (ties: the first listed)
	PayerName   string
	Payers      []Payment // everyone who paid; their amounts add up to Amount
	Amount      money.Amount
	Description string
	Category    string
	SplitType   SplitType
	Splits      []Split
	CreatedAt   time.Time
	CreatedBy   string // the user who recorded it (may differ from the payer)
	// SpentAt is when the money was spent: CreatedAt unless the members say
	// otherwise. Lists stay in creation order.
	SpentAt time.Time
	// SpentOn is the expense's day (DayLayout): the day of SpentAt in the
	// group's time zone when it was written, stored, and what its spending
	// summary counts it under (see spending.go). The store sets it.
	SpentOn string
	// TimeZone is the group's time zone (an IANA name, "" for UTC) that the
	// writer read: CreateExpense, and an edit that changes SpentAt, compute
	// SpentOn in it. It is not stored.
	TimeZone string
	// Version is 1 when the expense is created and grows by one with every
	// update, deletion and restoration; an update must name the version it
	// read.
	Version int
	// DeletedAt is set while the expense is deleted: it is out of every list
	// and every balance, and may be restored until DeletedAt + RestoreWindow.
	DeletedAt *time.Time
	DeletedBy string
	// Conversion is set when the expense was entered in another currency.
	Conversion *Conversion
	// SeriesID is the recurring expense it is an occurrence of; "" for
	// an expense recorded by hand.
	SeriesID string
	// Receipts are the pictures and PDFs attached to it, oldest first.
	Receipts []Receipt
	// Items and Adjustments are set on an itemized expense (itemized.go):
	// the lines and the tax, tip, service and discounts its splits were
	// computed from. Its SplitType is then exact.
	Items       []Item
	Adjustments []Adjustment
	// format is the formatVersion of the item it was read from.
	format int
	// firstRevisionLater says that its first revision is not stored yet:
	// while it is at version 1 the revision is the expense itself, and its
	// first change writes it (appendRevisions).
	firstRevisionLater bool
}

// Currency is the currency of the expense's amount.
func (e *Expense) Currency() money.Currency { return e.Amount.Currency() }

// Ref is what locates the expense's item without an index lookup.
func (e *Expense) Ref() ExpenseRef {
	return ExpenseRef{ID: e.ID, GroupID: e.GroupID, CreatedAt: e.CreatedAt}
}

// Split is one beneficiary's part of an expense.
type Split struct {
	ExpenseID  string
	GroupID    string
	UserID     string
	UserName   string
	Amount     money.Amount
	Percentage *money.Decimal // set for percentage splits
	Shares     *money.Decimal // set for shares splits
}

// Payment is what one member paid of an expense.
type Payment struct {
	ExpenseID string
	GroupID   string
	UserID    string
	UserName  string
	Amount    money.Amount
}

// MainPayer is the index of the payer who paid most, the first listed on a tie.
func MainPayer(payers []Payment) int {
	best := 0
	for i, p := range payers {
		if p.Amount.Cmp(payers[best].Amount) > 0 {
			best = i
		}
	}
	return best
}

// paidBy is what each user paid of the expense.
func (e *Expense) paidBy() map[string]money.Amount {
	paid := make(map[string]money.Amount, len(e.Payers))
	for _, p := range e.Payers {
		paid[p.UserID] = p.Amount
	}
	return paid
}

// ExpenseRef locates an expense. With GroupID and CreatedAt known the item is
// read directly by its key; with only ID, through GSI2.
type ExpenseRef struct {
	ID        string
	GroupID   string
	CreatedAt time.Time
}

// expenseRecord is the GROUP#<groupId> / TX#<createdAt>#<id> item.
type expenseRecord struct {
	itemKey
	ID          string                `dynamodbav:"id"`
	GroupID     string                `dynamodbav:"groupId"`
	PayerID     string                `dynamodbav:"payerId"`
	PayerName   string                `dynamodbav:"payerName"`
	Amount      attributevalue.Number `dynamodbav:"amount"`
	Currency    string                `dynamodbav:"currency"`
	Description string                `dynamodbav:"description"`
	SplitType   string                `dynamodbav:"splitType"`
	Splits      []splitRecord         `dynamodbav:"splits"`
	Payers      []paymentRecord       `dynamodbav:"payers,omitempty"`
	Category    string                `dynamodbav:"category,omitempty"`
	CreatedAt   string                `dynamodbav:"createdAt"`
	CreatedBy   string                `dynamodbav:"createdBy,omitempty"`
	SpentAt     string                `dynamodbav:"spentAt,omitempty"`
	// SpentOn is absent on items written before days were stored: their day
	// is the UTC day of spentAt.
	SpentOn string `dynamodbav:"spentOn,omitempty"`
	// Version is absent on items written before versions (read as 1).
	Version       int    `dynamodbav:"version,omitempty"`
	DeletedAt     string `dynamodbav:"deletedAt,omitempty"`
	DeletedBy     string `dynamodbav:"deletedBy,omitempty"`
	TTL           int64  `dynamodbav:"ttl,omitempty"`
	FormatVersion int    `dynamodbav:"formatVersion,omitempty"`
	conversionRecord
	SeriesID string          `dynamodbav:"seriesId,omitempty"`
	Receipts []receiptRecord `dynamodbav:"receipts,omitempty"`
	// Items and Adjustments are an itemized expense's lines (itemized.go).
	Items       []itemRecord       `dynamodbav:"it,omitempty"`
	Adjustments []adjustmentRecord `dynamodbav:"aj,omitempty"`
	// RevisionLater is set on an expense created without its first
	// revision, which its first change writes (Expense.firstRevisionLater).
	RevisionLater bool `dynamodbav:"revLater,omitempty"`
}

type splitRecord struct {
	UserID     string                 `dynamodbav:"userId"`
	UserName   string                 `dynamodbav:"userName"`
	Amount     attributevalue.Number  `dynamodbav:"amount"`
	Percentage *attributevalue.Number `dynamodbav:"percentage,omitempty"`
	Shares     *attributevalue.Number `dynamodbav:"shares,omitempty"`
}

type paymentRecord struct {
	UserID   string                `dynamodbav:"userId"`
	UserName string                `dynamodbav:"userName"`
	Amount   attributevalue.Number `dynamodbav:"amount"`
}

func (e *Expense) record() expenseRecord {
	ts := formatTime(e.CreatedAt)
	splits := make([]splitRecord, len(e.Splits))
	for i, sp := range e.Splits {
		splits[i] = splitRecord{
			UserID: sp.UserID, UserName: sp.UserName, Amount: amountNumber(sp.Amount),
			Percentage: optionalDecimalNumber(sp.Percentage), Shares: optionalDecimalNumber(sp.Shares),
		}
	}
	payers := make([]paymentRecord, len(e.Payers))
	for i, p := range e.Payers {
		payers[i] = paymentRecord{UserID: p.UserID, UserName: p.UserName, Amount: amountNumber(p.Amount)}
	}
	r := expenseRecord{
		itemKey: itemKey{
			PK: groupPK(e.GroupID), SK: expenseSK(ts, e.ID),
			GSI2PK: expenseGSI2PK(e.ID), GSI2SK: e.GroupID,
			GSI3PK: userKey(e.PayerID), GSI3SK: expenseSK(ts, e.ID),
		},
		ID: e.ID, GroupID: e.GroupID, PayerID: e.PayerID, PayerName: e.PayerName,
		Amount: amountNumber(e.Amount), Currency: e.Amount.Currency().Code(),
		Description: e.Description, SplitType: string(e.SplitType), Splits: splits, Payers: payers,
		Category: e.Category, CreatedAt: ts, CreatedBy: e.CreatedBy,
		Version: e.Version, FormatVersion: formatCurrent, SpentOn: e.SpentOn, conversionRecord: conversionRecordOf(e.Conversion),
		SeriesID: e.SeriesID, Receipts: receiptRecords(e.Receipts),
		Items: itemRecords(e.Items), Adjustments: adjustmentRecords(e.Adjustments), RevisionLater: e.firstRevisionLater && e.Version == 1,
	}
	if !e.SpentAt.IsZero() && !e.SpentAt.Equal(e.CreatedAt) {
		r.SpentAt = formatTime(e.SpentAt)
	}
	if e.SeriesID != "" {
		// An occurrence is listed under its recurring expense.
		r.GSI1PK, r.GSI1SK = seriesGSI1PK(e.SeriesID), occurrenceGSI1SK(formatTime(e.SpentAt), e.ID)
	}
	if e.DeletedAt != nil {
		// The tombstone: out of the group's list (TX#) and the payer's (GSI3).
		r.SK, r.GSI3PK, r.GSI3SK = deletedExpenseSK(ts, e.ID), "", ""
		r.GSI1PK, r.GSI1SK = "", "" // and out of its series' occurrences
		r.DeletedAt, r.DeletedBy = formatTime(*e.DeletedAt), e.DeletedBy
		r.TTL = e.DeletedAt.Add(RestoreWindow).Unix()
		if len(e.Receipts) > 0 {
			// Listed for the purge job, which deletes the receipts'
			// objects before the tombstone; TTL waits a little longer.
			purgeAfter := e.DeletedAt.Add(RestoreWindow)
			r.GSI1PK, r.GSI1SK = receiptsPurgeGSI1PK, receiptsPurgeGSI1SK(formatTime(purgeAfter), e.GroupID, e.ID)
			r.TTL = purgeAfter.Add(ReceiptPurgeGrace).Unix()
		}
	}
	return r
}

func (r *expenseRecord) expense() (Expense, error) {
	amount, err := readAmount(r.Amount, r.Currency)
	if err != nil {
		return Expense{}, fmt.Errorf("expense %s: %w", r.ID, err)
	}
	created, err := parseTime(r.CreatedAt)
	if err != nil {
		return Expense{}, fmt.Errorf("expense %s createdAt: %w", r.ID, err)
	}
	splits := make([]Split, len(r.Splits))
	for i, sr := range r.Splits {
		a, err := readAmount(sr.Amount, r.Currency)
		if err != nil {
			return Expense{}, fmt.Errorf("expense %s split %d: %w", r.ID, i, err)
		}
		pct, err := readOptionalDecimal(sr.Percentage)
		if err != nil {
			return Expense{}, fmt.Errorf("expense %s split %d: %w", r.ID, i, err)
		}
		shares, err := readOptionalDecimal(sr.Shares)
		if err != nil {
			return Expense{}, fmt.Errorf("expense %s split %d: %w", r.ID, i, err)
		}
		splits[i] = Split{
			ExpenseID: r.ID, GroupID: r.GroupID, UserID: sr.UserID, UserName: sr.UserName,
			Amount: a, Percentage: pct, Shares: shares,
		}
	}
	// Items written before several payers existed name only payerId: that
	// payer paid it all.
	payers := []Payment{{ExpenseID: r.ID, GroupID: r.GroupID, UserID: r.PayerID, UserName: r.PayerName, Amount: amount}}
	if len(r.Payers) > 0 {
		payers = make([]Payment, len(r.Payers))
		for i, pr := range r.Payers {
			a, err := readAmount(pr.Amount, r.Currency)
			if err != nil {
				return Expense{}, fmt.Errorf("expense %s payer %d: %w", r.ID, i, err)
			}
			payers[i] = Payment{ExpenseID: r.ID, GroupID: r.GroupID, UserID: pr.UserID, UserName: pr.UserName, Amount: a}
		}
	}
	e := Expense{
		ID: r.ID, GroupID: r.GroupID, PayerID: r.PayerID, PayerName: r.PayerName, Payers: payers,
		Amount: amount, Description: r.Description, Category: r.Category,
		SplitType: SplitType(r.SplitType), Splits: splits, CreatedAt: created, CreatedBy: r.CreatedBy,
		SpentAt: created, SpentOn: r.SpentOn, Version: max(r.Version, 1), DeletedBy: r.DeletedBy, format: max(r.FormatVersion, 1),
		firstRevisionLater: r.RevisionLater,
		SeriesID:           r.SeriesID,
	}
	if r.SpentAt != "" {
		if e.SpentAt, err = parseTime(r.SpentAt); err != nil {
			return Expense{}, fmt.Errorf("expense %s spentAt: %w", r.ID, err)
		}
	}
	if e.Conversion, err = r.conversion(); err != nil {
		return Expense{}, fmt.Errorf("expense %s: %w", r.ID, err)
	}
	e.SpentOn = e.spentOn()
	if e.Items, err = readItems(r.Items, amount.Currency(), len(splits)); err != nil {
		return Expense{}, fmt.Errorf("expense %s: %w", r.ID, err)
	}
	if e.Adjustments, err = readAdjustments(r.Adjustments, amount.Currency()); err != nil {
		return Expense{}, fmt.Errorf("expense %s: %w", r.ID, err)
	}
	if e.Receipts, err = receiptsOf(r.GroupID, r.ID, r.Receipts); err != nil {
		return Expense{}, err
	}
	if r.DeletedAt != "" {
		deleted, err := parseTime(r.DeletedAt)
		if err != nil {
			return Expense{}, fmt.Errorf("expense %s deletedAt: %w", r.ID, err)
		}
		e.DeletedAt = &deleted
	}
	return e, nil
}

// RestoreWindow is how long a deleted expense may be restored; after it, the
// tombstone expires (TTL) and reads treat it as gone.
const RestoreWindow = 30 * 24 * time.Hour

// Restorable reports whether a deleted expense may still be restored at now.
func (e *Expense) Restorable(now time.Time) bool {
	return e.DeletedAt != nil && now.Before(e.DeletedAt.Add(RestoreWindow))
}

// Share is an expense participant record: one beneficiary's side of an
// expense someone else paid ("Bob owes 25 on exp1").
type Share struct {
	ExpenseID   string
	GroupID     string
	GroupTitle  string
	UserID      string
	UserName    string
	Amount      money.Amount
	TotalAmount money.Amount
	PayerID     string
	PayerName   string
	Description string
	CreatedAt   time.Time
}

// Currency is the currency of the share's amounts.
func (sh *Share) Currency() money.Currency { return sh.Amount.Currency() }

// ExpenseRef locates the expense the share belongs to.
func (sh *Share) ExpenseRef() ExpenseRef {
	return ExpenseRef{ID: sh.ExpenseID, GroupID: sh.GroupID, CreatedAt: sh.CreatedAt}
}

// participantRecord is the GROUP#<groupId> / PART#<expenseId>#<userId> item.
type participantRecord struct {
	itemKey
	ExpenseID   string                `dynamodbav:"expenseId"`
	GroupID     string                `dynamodbav:"groupId"`
	GroupTitle  string                `dynamodbav:"groupTitle"`
	UserID      string                `dynamodbav:"userId"`
	UserName    string                `dynamodbav:"userName"`
	Amount      attributevalue.Number `dynamodbav:"amount"`
	Paid        attributevalue.Number `dynamodbav:"paid,omitempty"`
	Currency    string                `dynamodbav:"currency"`
	PayerID     string                `dynamodbav:"payerId"`
	PayerName   string                `dynamodbav:"payerName"`
	Description string                `dynamodbav:"description"`
	TotalAmount attributevalue.Number `dynamodbav:"totalAmount"`
	CreatedAt   string                `dynamodbav:"createdAt"`
	// FormatVersion is absent on records written before it (format 1).
	FormatVersion int `dynamodbav:"formatVersion,omitempty"`
}

// participantRecords are the records of every user the expense involves
// except its main payer: beneficiaries, listed under GSI1 (OWES#) while
// their share exceeds what they paid, and the other payers, listed under
// GSI3 (TX#) so that the expense counts as theirs too. With one payer this is
// exactly one record per beneficiary other than the payer.
func (e *Expense) participantRecords(groupTitle string) []participantRecord {
	ts := formatTime(e.CreatedAt)
	cur := e.Amount.Currency()
	paid := e.paidBy()
	splits := make(map[string]Split, len(e.Splits))
	for _, sp := range e.Splits {
		splits[sp.UserID] = sp
	}
	names := make(map[string]string, len(e.Payers))
	for _, p := range e.Payers {
		names[p.UserID] = p.UserName
	}
	var out []participantRecord
	for _, u := range e.InvolvedUsers() {
		if u == e.PayerID {
			continue
		}
		share, p := money.Zero(cur), money.Zero(cur)
		sp, isBeneficiary := splits[u]
		if isBeneficiary {
			share, names[u] = sp.Amount, sp.UserName
		}
		if a, isPayer := paid[u]; isPayer {
			p = a
		}
		rec := participantRecord{
			itemKey:   itemKey{PK: groupPK(e.GroupID), SK: participantSK(e.ID, u)},
			ExpenseID: e.ID, GroupID: e.GroupID, GroupTitle: groupTitle, UserID: u, UserName: names[u],
			Amount: amountNumber(share), Currency: cur.Code(),
			PayerID: e.PayerID, PayerName: e.PayerName, Description: e.Description,
			TotalAmount: amountNumber(e.Amount), CreatedAt: ts, FormatVersion: formatCurrent,
		}
		if share.Cmp(p) > 0 {
			rec.GSI1PK, rec.GSI1SK = userKey(u), owesGSI1SK(ts, e.ID)
		}
		if p.Sign() > 0 {
			rec.Paid, rec.GSI3PK, rec.GSI3SK = amountNumber(p), userKey(u), expenseSK(ts, e.ID)
		}
		out = append(out, rec)
	}
	return out
}

func (r *participantRecord) share() (Share, error) {
	amount, err := readAmount(r.Amount, r.Currency)
	if err != nil {
		return Share{}, fmt.Errorf("share %s: %w", r.SK, err)
	}
	total, err := readAmount(r.TotalAmount, r.Currency)
	if err != nil {
		return Share{}, fmt.Errorf("share %s: %w", r.SK, err)
	}
	created, err := parseTime(r.CreatedAt)
	if err != nil {
		return Share{}, fmt.Errorf("share %s createdAt: %w", r.SK, err)
	}
	return Share{
		ExpenseID: r.ExpenseID, GroupID: r.GroupID, GroupTitle: r.GroupTitle,
		UserID: r.UserID, UserName: r.UserName, Amount: amount, TotalAmount: total,
		PayerID: r.PayerID, PayerName: r.PayerName, Description: r.Description, CreatedAt: created,
	}, nil
}
