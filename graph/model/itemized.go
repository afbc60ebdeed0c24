package model

import (
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
)

// ExpenseItem is one line of an itemized expense as the API shows it: the
// stored line with each person's share as a split naming them.
type ExpenseItem struct {
	Description string
	Amount      money.Amount
	SplitType   store.SplitType
	Shares      []store.Split
}
