// Package exchangetest holds what the tests of the file readers share.
package exchangetest

import (
	"errors"
	"testing"

	"github.com/fracti/api/exchange"
)

// CheckRead fails t unless a reader's result keeps the readers' promises:
// an error is an Error *exchange.Problem, and a plan's expenses each have
// payers and splits adding up exactly to a positive amount, with positive
// payers and shares of zero or more.
func CheckRead(t testing.TB, p *exchange.Plan, err error) {
	t.Helper()
	if err != nil {
		var pr *exchange.Problem
		if !errors.As(err, &pr) || pr.Severity != exchange.Error {
			t.Fatalf("error %v is not an Error *exchange.Problem", err)
		}
		return
	}
	for _, e := range p.Expenses {
		CheckExpense(t, e)
	}
	_ = p.NetBalances() // never panics: every part is in its expense's currency
}

// CheckExpense fails t unless e's payers and splits add up to its amount.
func CheckExpense(t testing.TB, e exchange.Expense) {
	t.Helper()
	if e.Amount.Sign() <= 0 {
		t.Errorf("line %d: amount %s", e.Line, e.Amount)
		return
	}
	paid, owed := e.Amount.Sub(e.Amount), e.Amount.Sub(e.Amount)
	for _, x := range e.Payers {
		if x.Amount.Sign() <= 0 {
			t.Errorf("line %d: payer %s pays %s", e.Line, x.Name, x.Amount)
		}
		paid = paid.Add(x.Amount)
	}
	for _, x := range e.Splits {
		if x.Amount.Sign() < 0 {
			t.Errorf("line %d: %s's share is %s", e.Line, x.Name, x.Amount)
		}
		owed = owed.Add(x.Amount)
	}
	if paid.Cmp(e.Amount) != 0 || owed.Cmp(e.Amount) != 0 {
		t.Errorf("line %d: amount %s, paid %s, shares %s", e.Line, e.Amount, paid, owed)
	}
}
