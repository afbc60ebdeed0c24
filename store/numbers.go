package store

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/fracti/api/money"
)

// Amounts are stored as DynamoDB Numbers in major units, as the data model
// has them ("amount": 25). DynamoDB keeps 38 significant digits exactly, so
// the decimal string round-trips; it may come back normalized ("20" for
// "20.00") or in exponent form ("1E+15"), both of which are read back here.

func amountNumber(a money.Amount) attributevalue.Number { return attributevalue.Number(a.String()) }

func decimalNumber(d money.Decimal) attributevalue.Number { return attributevalue.Number(d.String()) }

func readAmount(n attributevalue.Number, currency string) (money.Amount, error) {
	cur, err := money.LookupCurrency(currency)
	if err != nil {
		return money.Amount{}, fmt.Errorf("stored currency %q: %w", currency, err)
	}
	d, err := readDecimal(n)
	if err != nil {
		return money.Amount{}, err
	}
	a, err := money.AmountFromDecimal(d, cur)
	if err != nil {
		return money.Amount{}, fmt.Errorf("stored amount %q: %w", n, err)
	}
	return a, nil
}

func readDecimal(n attributevalue.Number) (money.Decimal, error) {
	s, err := plainDecimal(string(n))
	if err != nil {
		return money.Decimal{}, err
	}
	d, err := money.ParseDecimal(s)
	if err != nil {
		return money.Decimal{}, fmt.Errorf("stored number %q: %w", n, err)
	}
	return d, nil
}

func readOptionalDecimal(n *attributevalue.Number) (*money.Decimal, error) {
	if n == nil {
		return nil, nil
	}
	d, err := readDecimal(*n)
	if err != nil {
		return nil, err
	}
	return &d, nil
}

func optionalDecimalNumber(d *money.Decimal) *attributevalue.Number {
	if d == nil {
		return nil
	}
	n := decimalNumber(*d)
	return &n
}

// plainDecimal rewrites a number in exponent notation ("1.5E+3") as a plain
// decimal ("1500"), exactly, without going through floating point.
func plainDecimal(s string) (string, error) {
	mant, expPart, found := strings.Cut(strings.ToUpper(s), "E")
	if !found {
		return s, nil
	}
	exp, err := strconv.Atoi(expPart)
	if err != nil || exp > 100 || exp < -100 {
		return "", fmt.Errorf("stored number %q is out of range", s)
	}
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(mant, "-")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	scale := len(frac) - exp // value = digits × 10^-scale
	coef, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return "", fmt.Errorf("stored number %q is not a number", s)
	}
	if scale < 0 {
		coef.Mul(coef, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-scale)), nil))
		scale = 0
	}
	out := coef.String()
	if scale > 0 {
		if len(out) <= scale {
			out = strings.Repeat("0", scale-len(out)+1) + out
		}
		out = out[:len(out)-scale] + "." + out[len(out)-scale:]
	}
	if neg && coef.Sign() != 0 {
		out = "-" + out
	}
	return out, nil
}
