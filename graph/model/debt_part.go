package model

import "github.com/fracti/api/money"

// DebtPart is the part of a converted debt (debts(in:)) in one currency.
type DebtPart struct {
	// Amount is what the part settles, in its own currency: negative when
	// it runs the other way than its debt (netted).
	Amount money.Amount
	// Rate is the price of one unit of Converted's currency in Amount's;
	// nil when Err is set.
	Rate *money.Decimal
	// RateSource and RateDate are nil when the currencies are the same.
	RateSource, RateDate *string
	// Converted is Amount expressed in the asked currency; nil when Err is set.
	Converted *money.Amount
	// Err is why the part could not be converted (RATE_UNAVAILABLE): its
	// rate and converted fields answer it, and nothing else fails.
	Err error
}

// Currency is the currency of the balance the part settles.
func (p *DebtPart) Currency() money.Currency { return p.Amount.Currency() }

// Negated is the part running the other way.
func (p DebtPart) Negated() DebtPart {
	p.Amount = p.Amount.Neg()
	if p.Converted != nil {
		c := p.Converted.Neg()
		p.Converted = &c
	}
	return p
}
