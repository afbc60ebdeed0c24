package model

import "github.com/fracti/api/money"

// Balance is one member's balance in one currency, from the group's book.
type Balance struct {
	GroupID  string
	UserID   string
	Currency money.Currency
	Paid     money.Amount
	Owed     money.Amount
	Sent     money.Amount
	Received money.Amount
	Net      money.Amount
}

// ID is the balance's id, "<groupId>:<userId>:<currency>". A method rather
// than a resolver: the executor computes it in line.
func (b *Balance) ID() string { return b.GroupID + ":" + b.UserID + ":" + b.Currency.Code() }

// Debt is a suggested or pairwise payment: From pays To.
type Debt struct {
	GroupID string
	FromID  string
	ToID    string
	Amount  money.Amount
	// Parts is set by debts(in:): the debt in each currency it settles.
	Parts []DebtPart
}

// ID is the debt's id, "<groupId>:<fromId>:<toId>:<currency>". A method
// rather than a resolver: the executor computes it in line.
func (d *Debt) ID() string {
	id := d.GroupID + ":" + d.FromID + ":" + d.ToID + ":" + d.Amount.Currency().Code()
	if d.Parts != nil {
		// A converted view is another object than the debt in that currency.
		id += ":in"
	}
	return id
}

// Currency is the currency of the debt.
func (d *Debt) Currency() money.Currency { return d.Amount.Currency() }

// UserSummary is where a user stands across their groups.
type UserSummary struct {
	ID     string
	Totals []CurrencyTotal
}

// CurrencyTotal is a user's total in one currency across their groups.
type CurrencyTotal struct {
	UserID     string
	Currency   money.Currency
	YouAreOwed money.Amount
	YouOwe     money.Amount
	Net        money.Amount
}
