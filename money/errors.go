// Package money holds exact money arithmetic for Fracti: decimal parsing,
// currency-aware amounts in integer minor units, and splits that always add
// up to the total. Nothing in this package uses floating point.
package money

import "errors"

// The sentinel texts are short fragments so that the wrapped messages built
// around them read as one sentence a front end can show as-is, while callers
// still branch on them with errors.Is.
var (
	// ErrSyntax reports text that is not a plain decimal number.
	ErrSyntax = errors.New("not a decimal number")
	// ErrUnknownCurrency reports a currency code we do not support.
	ErrUnknownCurrency = errors.New("unknown currency")
	// ErrTooManyDecimals reports more decimal places than the currency allows.
	ErrTooManyDecimals = errors.New("too many decimal places")
	// ErrNotPositive reports an amount that is zero or negative where a positive one is required.
	ErrNotPositive = errors.New("must be greater than zero")
	// ErrNegative reports a negative value where zero or more is required.
	ErrNegative = errors.New("must not be negative")
	// ErrTooLarge reports an amount above MaxMajorUnits.
	ErrTooLarge = errors.New("amount too large")
	// ErrCurrencyMismatch reports amounts of different currencies used together.
	ErrCurrencyMismatch = errors.New("currency mismatch")
	// ErrSplitSum reports exact split parts that do not add up to the total.
	ErrSplitSum = errors.New("splits do not add up to the amount")
	// ErrPercentSum reports percentages that do not add up to exactly 100.
	ErrPercentSum = errors.New("percentages must add up to exactly 100")
	// ErrBadWeight reports a negative or out-of-range weight, or weights that are all zero.
	ErrBadWeight = errors.New("invalid weight")
	// ErrNoParticipants reports a split with nobody to split between.
	ErrNoParticipants = errors.New("no participants")
)
