package store

import (
	"fmt"
	"strings"

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

// SettledParts is what the settlement moves in balances when it completes,
// one amount per currency: its parts (a negative one moves the balances the
// other way, from its recipient to its payer), or what it settles in
// another currency, or its amount.
func (st *Settlement) SettledParts() []money.Amount {
	switch {
	case len(st.Parts) > 0:
		out := make([]money.Amount, len(st.Parts))
		for i, p := range st.Parts {
			out[i] = p.Amount
		}
		return out
	case st.Settles != nil:
		return []money.Amount{st.Settles.Amount}
	}
	return []money.Amount{st.Amount}
}

// SettledCurrencies are the currencies of SettledParts, in their order.
func (st *Settlement) SettledCurrencies() []money.Currency {
	parts := st.SettledParts()
	out := make([]money.Currency, len(parts))
	for i, a := range parts {
		out[i] = a.Currency()
	}
	return out
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

// partRecord is one part of a settlement of several currencies, as the
// settlement's item stores it (short names: the item is written again on
// every change of the settlement).
type partRecord struct {
	Currency string                `dynamodbav:"c"`
	Amount   attributevalue.Number `dynamodbav:"a"`
	Rate     string                `dynamodbav:"r"`
	Source   string                `dynamodbav:"s,omitempty"`
	Date     string                `dynamodbav:"d,omitempty"`
}

func partRecordsOf(parts []SettledConversion) []partRecord {
	var out []partRecord
	for _, p := range parts {
		out = append(out, partRecord{Currency: p.Amount.Currency().Code(), Amount: amountNumber(p.Amount),
			Rate: p.Rate.String(), Source: p.Source, Date: p.Date})
	}
	return out
}

func settledParts(records []partRecord) ([]SettledConversion, error) {
	var out []SettledConversion
	for i, r := range records {
		a, rate, err := rateAttrs{Rate: r.Rate, RateSource: r.Source, RateDate: r.Date}.rated(r.Amount, r.Currency, fmt.Sprintf("parts[%d]", i))
		if err != nil {
			return nil, err
		}
		out = append(out, SettledConversion{Amount: a, RecordedRate: rate})
	}
	return out, nil
}

// settledPart is the conversion in a settlement's fingerprint.
func settledPart(c *SettledConversion) string {
	if c == nil {
		return "-"
	}
	return ratedPart(c.Amount, c.RecordedRate)
}

// partsPart is a settlement's parts in its fingerprint.
func partsPart(parts []SettledConversion) string {
	out := make([]string, len(parts))
	for i := range parts {
		out[i] = settledPart(&parts[i])
	}
	return strings.Join(out, "|")
}
