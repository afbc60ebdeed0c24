package store

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/fracti/api/money"
)

// RecordedRate is a rate as an expense or a settlement records it, so that
// its conversion can always be redone by hand.
type RecordedRate struct {
	// Rate is the price of one unit of the currency converted from in the
	// currency converted to.
	Rate money.Decimal
	// Source is where the rate came from: "manual" when given by hand, else
	// the provider ("ECB", "CoinGecko", "CoinGecko+ECB").
	Source string
	// Date is the provider's day of the rate ("2006-01-02"); for a manual
	// rate, the day it was entered.
	Date string
}

// Conversion is how an expense entered in one currency was recorded in
// another: its amount as entered and the rate that gave the recorded amount
// (money.Convert(Original, Rate, recorded currency) is the expense's amount).
type Conversion struct {
	// Original is the amount as entered, in the original currency.
	Original money.Amount
	RecordedRate
}

// RateSourceManual is the Source of a rate the client gave.
const RateSourceManual = "manual"

// rateAttrs are a recorded rate's attributes on an item. The rate is a
// string so that it is read back exactly as it was recorded.
type rateAttrs struct {
	Rate       string `dynamodbav:"rate,omitempty"`
	RateSource string `dynamodbav:"rateSource,omitempty"`
	RateDate   string `dynamodbav:"rateDate,omitempty"`
}

func rateAttrsOf(r RecordedRate) rateAttrs {
	return rateAttrs{Rate: r.Rate.String(), RateSource: r.Source, RateDate: r.Date}
}

// rated reads the amount stored beside a rate, with the rate.
func (r rateAttrs) rated(n attributevalue.Number, currency, what string) (money.Amount, RecordedRate, error) {
	a, err := readAmount(n, currency)
	if err != nil {
		return money.Amount{}, RecordedRate{}, fmt.Errorf("%s: %w", what, err)
	}
	rate, err := money.ParseDecimal(r.Rate)
	if err != nil {
		return money.Amount{}, RecordedRate{}, fmt.Errorf("rate: %w", err)
	}
	return a, RecordedRate{Rate: rate, Source: r.RateSource, Date: r.RateDate}, nil
}

// ratedPart is an amount with its recorded rate in a fingerprint: a retry
// converts at the same rate, so the rate is part of what the request said.
// A rate given by hand is dated the day it was given, but says the same on
// any day: its date stays out, so a retry after midnight UTC is the same
// request (a provider's rate of another day is another rate).
func ratedPart(a money.Amount, r RecordedRate) string {
	date := r.Date
	if r.Source == RateSourceManual {
		date = ""
	}
	return fingerprint(a.String(), a.Currency().Code(), r.Rate.String(), r.Source, date)
}

// conversionRecord is the conversion as the expense item stores it:
// attributes beside the amount, absent on expenses that were not converted.
type conversionRecord struct {
	OriginalAmount   *attributevalue.Number `dynamodbav:"originalAmount,omitempty"`
	OriginalCurrency string                 `dynamodbav:"originalCurrency,omitempty"`
	rateAttrs
}

func conversionRecordOf(c *Conversion) conversionRecord {
	if c == nil {
		return conversionRecord{}
	}
	n := amountNumber(c.Original)
	return conversionRecord{OriginalAmount: &n, OriginalCurrency: c.Original.Currency().Code(), rateAttrs: rateAttrsOf(c.RecordedRate)}
}

// conversion reads the conversion back, nil when the expense was not converted.
func (r conversionRecord) conversion() (*Conversion, error) {
	if r.OriginalAmount == nil {
		return nil, nil
	}
	a, rate, err := r.rated(*r.OriginalAmount, r.OriginalCurrency, "originalAmount")
	if err != nil {
		return nil, err
	}
	return &Conversion{Original: a, RecordedRate: rate}, nil
}

// conversionPart is the conversion in an expense's fingerprint.
func conversionPart(c *Conversion) string {
	if c == nil {
		return "-"
	}
	return ratedPart(c.Original, c.RecordedRate)
}

// The fields a revision records for a conversion, after the others.
const (
	FieldOriginalAmount   = "originalAmount"
	FieldOriginalCurrency = "originalCurrency"
	FieldRate             = "rate"
	FieldRateSource       = "rateSource"
	FieldRateDate         = "rateDate"
)

var conversionFields = []string{FieldOriginalAmount, FieldOriginalCurrency, FieldRate, FieldRateSource, FieldRateDate}

// addConversionDisplay adds a converted expense's conversion fields to its
// revision display; an expense that was not converted has none.
func addConversionDisplay(d map[string]string, c *Conversion) {
	if c == nil {
		return
	}
	d[FieldOriginalAmount] = c.Original.String()
	d[FieldOriginalCurrency] = c.Original.Currency().Code()
	d[FieldRate] = c.Rate.String()
	d[FieldRateSource] = c.Source
	d[FieldRateDate] = c.Date
}
