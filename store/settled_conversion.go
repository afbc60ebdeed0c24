package store

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/fracti/api/money"
)

// SettledConversion is how a settlement paid in one currency settles a
// balance in another: Amount = money.Convert(settlement amount, Rate,
// Amount's currency), and completing the settlement moves the balances in
// that currency by Amount.
type SettledConversion struct {
	// Amount is what it settles, in the currency of the balance it settles.
	Amount money.Amount
	// Rate is the price of one unit of the paid currency in Amount's currency.
	Rate money.Decimal
	// Source and Date are as for an expense's Conversion.
	Source, Date string
}

// Settled is what the settlement moves in balances when it completes: its
// amount, or what it settles in another currency.
func (st *Settlement) Settled() money.Amount {
	if st.Settles != nil {
		return st.Settles.Amount
	}
	return st.Amount
}

// settledRecord is the conversion as the settlement item stores it,
// absent on a settlement of a balance in its own currency.
type settledRecord struct {
	SettledAmount   *attributevalue.Number `dynamodbav:"settledAmount,omitempty"`
	SettlesCurrency string                 `dynamodbav:"settlesCurrency,omitempty"`
	Rate            string                 `dynamodbav:"rate,omitempty"`
	RateSource      string                 `dynamodbav:"rateSource,omitempty"`
	RateDate        string                 `dynamodbav:"rateDate,omitempty"`
}

func settledRecordOf(c *SettledConversion) settledRecord {
	if c == nil {
		return settledRecord{}
	}
	n := amountNumber(c.Amount)
	return settledRecord{SettledAmount: &n, SettlesCurrency: c.Amount.Currency().Code(), Rate: c.Rate.String(), RateSource: c.Source, RateDate: c.Date}
}

func (r settledRecord) settles() (*SettledConversion, error) {
	if r.SettledAmount == nil {
		return nil, nil
	}
	a, err := readAmount(*r.SettledAmount, r.SettlesCurrency)
	if err != nil {
		return nil, fmt.Errorf("settledAmount: %w", err)
	}
	rate, err := money.ParseDecimal(r.Rate)
	if err != nil {
		return nil, fmt.Errorf("rate: %w", err)
	}
	return &SettledConversion{Amount: a, Rate: rate, Source: r.RateSource, Date: r.RateDate}, nil
}

// settledPart is the conversion in a settlement's fingerprint.
func settledPart(c *SettledConversion) string {
	if c == nil {
		return "-"
	}
	return fingerprint(c.Amount.String(), c.Amount.Currency().Code(), c.Rate.String(), c.Source, c.Date)
}
