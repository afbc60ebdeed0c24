package graph

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/fracti/api/freetext"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
)

// The lengths in characters (code points) that free text may have, the
// same for a mutation and for an import that writes the same field (see
// maxCommentLength for a comment's body).
const (
	maxNameLength        = 64  // a member's (placeholder's) name
	maxDescriptionLength = 200 // an expense's description
	maxCategoryLength    = 50  // an expense's category
	maxTitleLength       = 128 // a group's title
)

// txHashRule is what a transaction hash must be (txHashPattern), as an
// error says it.
const txHashRule = "must be a transaction hash: 1 to 128 characters of hex or base64"

// text cleans free text a user typed (see freetext.Clean: NFC, trimmed, no
// control or bidirectional override characters, something visible) and
// checks its length in characters.
func text(field, s string, minLen, maxLen int) (string, error) {
	s, err := freetext.Clean(s)
	if err != nil {
		return "", badInput(field, "%s", err.Error())
	}
	switch n := freetext.Len(s); {
	case n < minLen && minLen == 1:
		return "", badInput(field, "must not be empty")
	case n < minLen || n > maxLen:
		return "", badInput(field, "must be %d to %d characters, got %d", minLen, maxLen, n)
	}
	return s, nil
}

// optionalText is text for an optional field; nil and blank give "".
func optionalText(field string, s *string, maxLen int) (string, error) {
	if s == nil {
		return "", nil
	}
	return text(field, *s, 0, maxLen)
}

var (
	txHashPattern = regexp.MustCompile(`^[A-Za-z0-9+/=_-]{1,128}$`)
	// idempotencyKeyPattern: printable ASCII without spaces.
	idempotencyKeyPattern = regexp.MustCompile(`^[!-~]{1,100}$`)
)

func txHash(field string, s *string) (*string, error) {
	if s == nil {
		return nil, nil
	}
	if !txHashPattern.MatchString(*s) {
		return nil, badInput(field, txHashRule)
	}
	return s, nil
}

// idempotencyKey checks an optional idempotency key: 1 to 100 printable characters.
func idempotencyKey(field string, s *string) (string, error) {
	if s == nil {
		return "", nil
	}
	if !idempotencyKeyPattern.MatchString(*s) {
		return "", badInput(field, "must be 1 to 100 printable ASCII characters, such as a UUID")
	}
	return *s, nil
}

// currency resolves an optional currency code, defaulting to def.
func currency(field string, code *string, def money.Currency) (money.Currency, error) {
	if code == nil {
		return def, nil
	}
	c, err := money.LookupCurrency(*code)
	if err != nil {
		return money.Currency{}, moneyError(field, err)
	}
	return c, nil
}

// positiveAmount reads a positive amount of the currency.
func positiveAmount(field string, d money.Decimal, c money.Currency) (money.Amount, error) {
	a, err := money.AmountFromDecimal(d, c)
	if err == nil {
		err = money.ValidatePositive(a)
	}
	if err != nil {
		return money.Amount{}, moneyError(field, err)
	}
	return a, nil
}

// Weights (shares and percentages) are bounded before anything is computed
// with them, so that they are stored exactly (DynamoDB keeps 38 digits).
const (
	maxWeightDecimals = 10
	maxWeightDigits   = 12 // before the point
)

// weight checks a share or percentage: not negative, at most
// maxWeightDecimals decimals and maxWeightDigits digits before the point.
func weight(field string, w money.Decimal) error {
	switch {
	case w.Sign() < 0:
		return badInput(field, "must not be negative")
	case w.Scale() > maxWeightDecimals:
		return badInput(field, "may have at most %d decimal places", maxWeightDecimals)
	case w.Cmp(money.NewDecimal(1, -maxWeightDigits)) >= 0:
		return badInput(field, "must be less than 10^%d", maxWeightDigits)
	}
	return nil
}

// currencyLimit is the store's refusal of a currency that would be one too
// many for the group, as bad input on the currency.
func currencyLimit(err error) error {
	return badInput("input.currency", "%s", tooManyCurrencies(err))
}

// tooManyCurrencies is the store's explanation of ErrTooManyCurrencies,
// without the sentinel's own words.
func tooManyCurrencies(err error) string {
	return strings.TrimPrefix(err.Error(), store.ErrTooManyCurrencies.Error()+": ")
}

// moneyError turns the money package's input errors into BAD_USER_INPUT on
// the field; anything else is a bug.
func moneyError(field string, err error) error {
	for _, e := range []error{
		money.ErrSyntax, money.ErrUnknownCurrency, money.ErrTooManyDecimals, money.ErrNotPositive,
		money.ErrNegative, money.ErrTooLarge, money.ErrCurrencyMismatch, money.ErrSplitSum,
		money.ErrPercentSum, money.ErrBadWeight, money.ErrNoParticipants,
	} {
		if errors.Is(err, e) {
			return badInput(field, "%s", err.Error())
		}
	}
	return &internalError{fmt.Errorf("%s: %w", field, err)}
}

// spentAtSlack is how far ahead a spentAt may be: a day, for time zones.
const spentAtSlack = 24 * time.Hour

// spentAt checks when an expense's money was spent; zero when not given.
func spentAt(field string, t *time.Time) (time.Time, error) {
	if t == nil {
		return time.Time{}, nil
	}
	switch {
	case t.After(time.Now().Add(spentAtSlack)):
		return time.Time{}, badInput(field, "is in the future")
	case t.Year() < 1970:
		return time.Time{}, badInput(field, "is before 1970")
	}
	return t.UTC().Truncate(time.Millisecond), nil
}
