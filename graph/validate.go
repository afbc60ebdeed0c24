package graph

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/fracti/api/money"
)

// text trims s and checks its length in characters.
func text(field, s string, minLen, maxLen int) (string, error) {
	s = strings.TrimSpace(s)
	n := utf8.RuneCountInString(s)
	switch {
	case !utf8.ValidString(s):
		return "", badInput(field, "is not valid UTF-8")
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
	chatIDPattern = regexp.MustCompile(`^-?[1-9][0-9]{0,19}$`)
	txHashPattern = regexp.MustCompile(`^[A-Za-z0-9+/=_-]{1,128}$`)
	// idempotencyKeyPattern: printable ASCII without spaces.
	idempotencyKeyPattern = regexp.MustCompile(`^[!-~]{1,100}$`)
)

func chatID(field string, s *string) (string, error) {
	if s == nil || *s == "" {
		return "", nil
	}
	if !chatIDPattern.MatchString(*s) {
		return "", badInput(field, `must be a Telegram chat id such as "-1001234567890"`)
	}
	return *s, nil
}

func txHash(field string, s *string) (*string, error) {
	if s == nil {
		return nil, nil
	}
	if !txHashPattern.MatchString(*s) {
		return nil, badInput(field, "must be a transaction hash: 1 to 128 characters of hex or base64")
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
