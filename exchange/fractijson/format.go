// Package fractijson is Fracti's own export format: one JSON document per
// group holding everything needed to rebuild it exactly. The exporter
// streams it in the order of Document's fields (the arrays page by page);
// the importer reads it into an exchange.Plan.
package fractijson

import "time"

// Format is the document's "format" field: what the file is.
const Format = "fracti.group"

// Version is the formatVersion this build writes. A reader accepts every
// version up to it. Version 2 added an expense's items and adjustments (an
// itemized bill); a version 1 file has none and reads as before.
const Version = 2

// Document is a whole export. Amounts are decimal strings with exactly
// their currency's decimals ("12.50", "1500", "0.500000000"); times are
// RFC 3339 in UTC with milliseconds; ids are Fracti's.
type Document struct {
	Format        string       `json:"format"`
	FormatVersion int          `json:"formatVersion"`
	ExportedAt    time.Time    `json:"exportedAt"`
	Group         Group        `json:"group"`
	Members       []Member     `json:"members"`
	Expenses      []Expense    `json:"expenses"`
	Settlements   []Settlement `json:"settlements"`
	Comments      []Comment    `json:"comments"`
	// Balances is the group's balances when it was exported, every member
	// and currency that is not zero: an import checks itself against it.
	Balances []Balance `json:"balances"`
}

// Group is the group's own settings.
type Group struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Currency  string    `json:"currency"`
	TimeZone  string    `json:"timeZone,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// Member is everyone who has been a member, placeholders and members who
// left included.
type Member struct {
	ID          string     `json:"id"` // Telegram user id, or a placeholder's id
	Name        string     `json:"name"`
	Username    string     `json:"username,omitempty"`
	Placeholder bool       `json:"placeholder,omitempty"`
	Wallet      string     `json:"wallet,omitempty"`
	JoinedAt    time.Time  `json:"joinedAt"`
	LeftAt      *time.Time `json:"leftAt,omitempty"`
	ClaimedBy   string     `json:"claimedBy,omitempty"`
}

// Expense is one expense that is not deleted.
type Expense struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	Category    string `json:"category,omitempty"`
	Amount      string `json:"amount"`
	Currency    string `json:"currency"`
	// SplitType is EQUAL, EXACT, PERCENTAGE or SHARES, as in the API.
	SplitType  string      `json:"splitType"`
	SpentAt    time.Time   `json:"spentAt"`
	CreatedAt  time.Time   `json:"createdAt"`
	CreatedBy  string      `json:"createdBy,omitempty"`
	Payers     []Payer     `json:"payers"`
	Splits     []Split     `json:"splits"`
	Conversion *Conversion `json:"conversion,omitempty"`
	SeriesID   string      `json:"seriesId,omitempty"`
	// Receipts are the files attached to it (an export lists them; an
	// import leaves them: their bytes are in the zip export, not here).
	Receipts []Receipt `json:"receipts,omitempty"`
	// Items and Adjustments are an itemized expense's lines and its tax,
	// tip, service and discounts (formatVersion 2); its splits are what
	// they come to.
	Items       []Item       `json:"items,omitempty"`
	Adjustments []Adjustment `json:"adjustments,omitempty"`
}

// Item is one line of an itemized expense: its amount divided among Shares
// by SplitType (EQUAL, EXACT, PERCENTAGE or SHARES).
type Item struct {
	Description string  `json:"description"`
	Amount      string  `json:"amount"`
	SplitType   string  `json:"splitType"`
	Shares      []Split `json:"shares"`
}

// Adjustment is a tax, tip, service charge or discount of an itemized
// expense: Kind TAX, TIP, SERVICE or DISCOUNT; Amount or Percentage as
// given; AppliedAmount what it came to (negative for a DISCOUNT).
type Adjustment struct {
	Kind          string `json:"kind"`
	Amount        string `json:"amount,omitempty"`
	Percentage    string `json:"percentage,omitempty"`
	AppliedAmount string `json:"appliedAmount"`
}

// Receipt is a file attached to an expense: where the zip export holds it
// (File) and where the server's storage does (Key).
type Receipt struct {
	ID          string    `json:"id"`
	Key         string    `json:"key"`
	File        string    `json:"file"`
	ContentType string    `json:"contentType"`
	Size        int64     `json:"size"`
	UploadedBy  string    `json:"uploadedBy"`
	UploadedAt  time.Time `json:"uploadedAt"`
}

// Payer is what one member paid of an expense.
type Payer struct {
	MemberID string `json:"memberId"`
	Amount   string `json:"amount"`
}

// Split is one member's share of an expense: Amount always; Percentage or
// Shares as the split type gave them.
type Split struct {
	MemberID   string `json:"memberId"`
	Amount     string `json:"amount"`
	Percentage string `json:"percentage,omitempty"`
	Shares     string `json:"shares,omitempty"`
}

// Conversion is an amount entered in another currency and its rate (one
// unit of OriginalCurrency in the expense's currency, or for a settlement
// in SettledCurrency).
type Conversion struct {
	OriginalAmount   string `json:"originalAmount"`
	OriginalCurrency string `json:"originalCurrency"`
	Rate             string `json:"rate"`
	RateSource       string `json:"rateSource,omitempty"`
	RateDate         string `json:"rateDate,omitempty"`
}

// Settlement is a payment between two members.
type Settlement struct {
	ID          string     `json:"id"`
	From        string     `json:"from"`
	To          string     `json:"to"`
	Amount      string     `json:"amount"`
	Currency    string     `json:"currency"`
	Status      string     `json:"status"` // PENDING, SENT, COMPLETED, FAILED
	TxHash      string     `json:"txHash,omitempty"`
	CreatedAt   time.Time  `json:"createdAt"`
	CompletedAt *time.Time `json:"completedAt,omitempty"`
	// Settles is set when it settled a balance in another currency: that
	// amount, and the rate of one unit of Currency in it.
	Settles *Settled `json:"settles,omitempty"`
	// Parts is set, instead of Settles, when it settled balances in several
	// currencies: each part's amount (negative: from the recipient to the
	// payer), and the rate of one unit of Currency in it ("1" in its own).
	Parts []Settled `json:"parts,omitempty"`
}

// Settled is what a settlement paid in one currency settled in another.
type Settled struct {
	Amount     string `json:"amount"`
	Currency   string `json:"currency"`
	Rate       string `json:"rate"`
	RateSource string `json:"rateSource,omitempty"`
	RateDate   string `json:"rateDate,omitempty"`
}

// Comment is a comment on an expense; a deleted one keeps its place with
// Deleted set and no body.
type Comment struct {
	ID        string     `json:"id"`
	ExpenseID string     `json:"expenseId"`
	AuthorID  string     `json:"authorId"`
	Body      string     `json:"body,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
	DeletedAt *time.Time `json:"deletedAt,omitempty"`
}

// Balance is one member's balance in one currency: positive when owed.
type Balance struct {
	MemberID string `json:"memberId"`
	Currency string `json:"currency"`
	Amount   string `json:"amount"`
}
