package model

import "github.com/fracti/api/money"

// DebtPart is the part of a converted debt (debts(in:)) in one currency.
type DebtPart struct {
	// Amount is what the part settles, in its own currency.
	Amount money.Amount
	// Rate is the price of one unit of Converted's currency in Amount's.
	Rate money.Decimal
	// RateSource and RateDate are nil when the currencies are the same.
	RateSource, RateDate *string
	// Converted is Amount expressed in the asked currency.
	Converted money.Amount
}

// Currency is the currency of the balance the part settles.
func (p *DebtPart) Currency() money.Currency { return p.Amount.Currency() }
