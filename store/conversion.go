package store

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/fracti/api/money"
)

// Conversion is how an expense entered in one currency was recorded in
// another: its amount as entered and the rate that gave the recorded amount
// (money.Convert(Original, Rate, recorded currency) is the expense's amount).
type Conversion struct {
	// Original is the amount as entered, in the original currency.
	Original money.Amount
	// Rate is the price of one unit of the original currency in the recorded one.
	Rate money.Decimal
	// Source is where the rate came from: "manual" when given by hand, else
	// the provider ("ECB", "CoinGecko", "CoinGecko+ECB").
	Source string
	// Date is the provider's day of the rate ("2006-01-02"); for a manual
	// rate, the day it was entered.
	Date string
}

// RateSourceManual is the Source of a rate the client gave.
const RateSourceManual = "manual"

// conversionRecord is the conversion as the expense item stores it:
// attributes beside the amount, absent on expenses that were not converted.
type conversionRecord struct {
	OriginalAmount   *attributevalue.Number `dynamodbav:"originalAmount,omitempty"`
	OriginalCurrency string                 `dynamodbav:"originalCurrency,omitempty"`
	// Rate is a string so that it is read back exactly as it was recorded.
	Rate       string `dynamodbav:"rate,omitempty"`
	RateSource string `dynamodbav:"rateSource,omitempty"`
	RateDate   string `dynamodbav:"rateDate,omitempty"`
}

func conversionRecordOf(c *Conversion) conversionRecord {
	if c == nil {
		return conversionRecord{}
	}
	n := amountNumber(c.Original)
	return conversionRecord{
		OriginalAmount: &n, OriginalCurrency: c.Original.Currency().Code(),
		Rate: c.Rate.String(), RateSource: c.Source, RateDate: c.Date,
	}
}

// conversion reads the conversion back, nil when the expense was not converted.
func (r conversionRecord) conversion() (*Conversion, error) {
	if r.OriginalAmount == nil {
		return nil, nil
	}
	a, err := readAmount(*r.OriginalAmount, r.OriginalCurrency)
	if err != nil {
		return nil, fmt.Errorf("originalAmount: %w", err)
	}
	rate, err := money.ParseDecimal(r.Rate)
	if err != nil {
		return nil, fmt.Errorf("rate: %w", err)
	}
	return &Conversion{Original: a, Rate: rate, Source: r.RateSource, Date: r.RateDate}, nil
}

// conversionPart is the conversion in an expense's fingerprint: a retry
// converts at the same rate, so the rate is part of what the request said.
func conversionPart(c *Conversion) string {
	if c == nil {
		return "-"
	}
	return fingerprint(c.Original.String(), c.Original.Currency().Code(), c.Rate.String(), c.Source, c.Date)
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
