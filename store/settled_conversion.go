package store

import (
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
	// RecordedRate is the price of one unit of the paid currency in Amount's.
	RecordedRate
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
	rateAttrs
}

func settledRecordOf(c *SettledConversion) settledRecord {
	if c == nil {
		return settledRecord{}
	}
	n := amountNumber(c.Amount)
	return settledRecord{SettledAmount: &n, SettlesCurrency: c.Amount.Currency().Code(), rateAttrs: rateAttrsOf(c.RecordedRate)}
}

func (r settledRecord) settles() (*SettledConversion, error) {
	if r.SettledAmount == nil {
		return nil, nil
	}
	a, rate, err := r.rated(*r.SettledAmount, r.SettlesCurrency, "settledAmount")
	if err != nil {
		return nil, err
	}
	return &SettledConversion{Amount: a, RecordedRate: rate}, nil
}

// settledPart is the conversion in a settlement's fingerprint.
func settledPart(c *SettledConversion) string {
	if c == nil {
		return "-"
	}
	return ratedPart(c.Amount, c.RecordedRate)
}
