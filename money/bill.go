package money

import (
	"errors"
	"fmt"
	"math/big"
)

// An itemized bill is lines, each already divided among some of the bill's
// people by one of the split functions, and adjustments (tax, tip, service,
// discounts) that apply to the whole bill. SplitBill works out what each
// person owes of the total: their lines, plus the adjustments in proportion
// to their lines.

// ErrBillTotal reports adjustments that take a bill to zero or below.
var ErrBillTotal = errors.New("the bill's total must be greater than zero")

// BillLine is one line of a bill as its split divided it: Parts[k] is the
// part of People[k] (an index into the bill's people), and the parts add up
// exactly to Amount, which is positive.
type BillLine struct {
	Amount Amount
	People []int
	Parts  []Amount
}

// BillAdjustment is a tax, tip, service charge or discount on a whole bill:
// a fixed positive Amount, or Percent of the lines' subtotal (above 0, at
// most 100). A Discount is taken off; everything else is added.
type BillAdjustment struct {
	Amount   *Amount
	Percent  *Decimal
	Discount bool
}

// BillSplit is what SplitBill works out.
type BillSplit struct {
	// Subtotal is the lines' sum.
	Subtotal Amount
	// Adjustments is what each adjustment came to, in order: positive when
	// added, negative for a discount.
	Adjustments []Amount
	// Total is Subtotal plus every adjustment.
	Total Amount
	// Lines is each person's lines: the sum of their parts.
	Lines []Amount
	// Shares is each person's share of Total; the shares add up exactly to it.
	Shares []Amount
}

// SplitBill divides a bill among people people (indexed 0 to people-1).
// A percentage adjustment comes to PercentOf the subtotal. The adjustments'
// sum is shared in proportion to each person's lines, so each share is
// Total × lines/Subtotal, within one minor unit: the shares are the largest
// remainder split of Total weighted by each person's lines (ties to the
// lower index), which also keeps every share at zero or more and gives a
// person without lines nothing. Without adjustments the shares are exactly
// the lines.
func SplitBill(c Currency, people int, lines []BillLine, adjustments []BillAdjustment) (BillSplit, error) {
	if c.IsZero() {
		return BillSplit{}, fmt.Errorf("%w: the bill has no currency", ErrUnknownCurrency)
	}
	if len(lines) == 0 || people < 1 {
		return BillSplit{}, fmt.Errorf("%w: a bill needs at least one line and one person", ErrNoParticipants)
	}
	base := make([]*big.Int, people)
	for i := range base {
		base[i] = new(big.Int)
	}
	subtotal := new(big.Int)
	for n, l := range lines {
		if l.Amount.cur != c {
			return BillSplit{}, fmt.Errorf("%w: line %d is in %s but the bill is in %s", ErrCurrencyMismatch, n+1, currencyName(l.Amount.cur), c.code)
		}
		if l.Amount.Sign() <= 0 {
			return BillSplit{}, fmt.Errorf("line %d: amount %w: got %s", n+1, ErrNotPositive, l.Amount)
		}
		if len(l.People) != len(l.Parts) {
			return BillSplit{}, fmt.Errorf("line %d: %d people but %d parts", n+1, len(l.People), len(l.Parts))
		}
		if err := CheckExactSplit(l.Amount, l.Parts); err != nil {
			return BillSplit{}, fmt.Errorf("line %d: %w", n+1, err)
		}
		for k, p := range l.People {
			if p < 0 || p >= people {
				return BillSplit{}, fmt.Errorf("line %d: person %d of %d people", n+1, p, people)
			}
			base[p].Add(base[p], l.Parts[k].m())
		}
		subtotal.Add(subtotal, l.Amount.m())
	}
	sub := Amount{minor: subtotal, cur: c}
	total := new(big.Int).Set(subtotal)
	adj := make([]Amount, len(adjustments))
	for n, a := range adjustments {
		var v Amount
		switch {
		case (a.Amount == nil) == (a.Percent == nil):
			return BillSplit{}, fmt.Errorf("adjustment %d: give an amount or a percentage", n+1)
		case a.Amount != nil:
			if a.Amount.cur != c {
				return BillSplit{}, fmt.Errorf("%w: adjustment %d is in %s but the bill is in %s", ErrCurrencyMismatch, n+1, currencyName(a.Amount.cur), c.code)
			}
			if a.Amount.Sign() <= 0 {
				return BillSplit{}, fmt.Errorf("adjustment %d: amount %w: got %s", n+1, ErrNotPositive, a.Amount)
			}
			v = *a.Amount
		default:
			if a.Percent.Sign() <= 0 || a.Percent.Cmp(NewDecimal(100, 0)) > 0 {
				return BillSplit{}, fmt.Errorf("%w: adjustment %d is %s%%, but a percentage must be above 0 and at most 100", ErrBadWeight, n+1, a.Percent)
			}
			v = PercentOf(sub, *a.Percent)
		}
		if a.Discount {
			v = v.Neg()
		}
		adj[n] = v
		total.Add(total, v.m())
	}
	if total.Sign() <= 0 {
		return BillSplit{}, fmt.Errorf("%w: the lines come to %s and the adjustments to %s", ErrBillTotal, sub, Amount{minor: new(big.Int).Sub(total, subtotal), cur: c})
	}
	tot := Amount{minor: total, cur: c}
	out := BillSplit{Subtotal: sub, Adjustments: adj, Total: tot, Lines: make([]Amount, people)}
	for i, b := range base {
		out.Lines[i] = Amount{minor: b, cur: c}
	}
	out.Shares = largestRemainder(tot, base, subtotal)
	return out, nil
}

// PercentOf is pct percent of a, rounded half to even to a's minor units:
// 10% of 0.25 USD is 0.02 USD, 10% of 0.35 USD is 0.04 USD.
func PercentOf(a Amount, pct Decimal) Amount {
	return Convert(a, Decimal{coef: pct.c(), scale: pct.scale + 2}, a.cur)
}
