package store

import "github.com/fracti/api/money"

// GraphQL fields that are derived from an item alone, as methods without a
// context: gqlgen binds them (by name, or in gqlgen.yml), so the executor
// reads them in line. A resolver, or a method taking a context, would run
// in a goroutine of its own for every element of every list.

// MemberNodeID is a membership's GraphQL id, "<groupId>:<userId>": a user's
// memberships in two groups must not share one (clients key their caches
// by type and id).
func MemberNodeID(groupID, userID string) string { return groupID + ":" + userID }

// PartNodeID is the GraphQL id of a payer's or a beneficiary's part of an
// expense (a Payment, a Split, a Share): "<expenseId>:<userId>".
func PartNodeID(expenseID, userID string) string { return expenseID + ":" + userID }

// NodeID is the payment's GraphQL id (PartNodeID).
func (p *Payment) NodeID() string { return PartNodeID(p.ExpenseID, p.UserID) }

// NodeID is the split's GraphQL id (PartNodeID).
func (sp *Split) NodeID() string { return PartNodeID(sp.ExpenseID, sp.UserID) }

// NodeID is the membership's GraphQL id (MemberNodeID).
func (m *Member) NodeID() string { return MemberNodeID(m.GroupID, m.UserID) }

// UsernameOrNil is the member's Telegram username, nil when they have none.
func (m *Member) UsernameOrNil() *string { return text(m.Username) }

// WalletOrNil is the member's TON wallet address, nil when none is set.
func (m *Member) WalletOrNil() *string { return text(m.Wallet) }

// AvatarURLOrNil is the member's picture, nil when there is none.
func (m *Member) AvatarURLOrNil() *string { return text(m.AvatarURL) }

// CategoryOrNil is the expense's category, nil when it has none .
func (e *Expense) CategoryOrNil() *string { return text(e.Category) }

// TxHashOrNil is the settlement's TON transaction hash, nil until one is
// recorded .
func (st *Settlement) TxHashOrNil() *string { return text(st.TxHash) }

// OriginalAmount is the amount as entered before a conversion, nil when the
// expense was recorded as entered.
func (e *Expense) OriginalAmount() *money.Decimal {
	if e.Conversion == nil {
		return nil
	}
	d := e.Conversion.Original.Decimal()
	return &d
}

// OriginalCurrency is the currency the expense was entered in before a
// conversion, nil without one.
func (e *Expense) OriginalCurrency() *string {
	if e.Conversion == nil {
		return nil
	}
	code := e.Conversion.Original.Currency().Code()
	return &code
}

// Rate is the rate of the expense's conversion, nil without one.
func (e *Expense) Rate() *money.Decimal {
	if e.Conversion == nil {
		return nil
	}
	return &e.Conversion.Rate
}

// RateSource is where the conversion's rate came from, nil without one.
func (e *Expense) RateSource() *string {
	if e.Conversion == nil {
		return nil
	}
	return &e.Conversion.Source
}

// RateDate is the day of the conversion's rate, nil without one.
func (e *Expense) RateDate() *string {
	if e.Conversion == nil {
		return nil
	}
	return &e.Conversion.Date
}

// SettlesCurrency is the currency of the balance a settlement in another
// currency settles, nil when it settles its own.
func (st *Settlement) SettlesCurrency() *string {
	if st.Settles == nil {
		return nil
	}
	code := st.Settles.Amount.Currency().Code()
	return &code
}

// SettledAmount is what the settlement settles in that other currency, nil
// when it settles its own.
func (st *Settlement) SettledAmount() *money.Decimal {
	if st.Settles == nil {
		return nil
	}
	d := st.Settles.Amount.Decimal()
	return &d
}

// Rate is the rate between the two currencies, nil without a conversion.
func (st *Settlement) Rate() *money.Decimal {
	if st.Settles == nil {
		return nil
	}
	return &st.Settles.Rate
}

// RateSource is where that rate came from, nil without a conversion.
func (st *Settlement) RateSource() *string {
	if st.Settles == nil {
		return nil
	}
	return &st.Settles.Source
}

// RateDate is the day of that rate, nil without a conversion.
func (st *Settlement) RateDate() *string {
	if st.Settles == nil {
		return nil
	}
	return &st.Settles.Date
}
