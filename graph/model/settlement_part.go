package model

import "github.com/fracti/api/money"

// SettlementPart is what a settlement of several currencies settles in one.
type SettlementPart struct {
	// Amount is what it settles, in its currency (negative: the other way).
	Amount money.Amount
	// Rate is the price of one unit of the settlement's currency in Amount's.
	Rate money.Decimal
	// RateSource and RateDate are nil for the settlement's own currency.
	RateSource, RateDate *string
	// Paid is its part of the settlement's amount, in the settlement's currency.
	Paid money.Amount
}

// Currency is the currency of the balances the part settles.
func (p *SettlementPart) Currency() money.Currency { return p.Amount.Currency() }
