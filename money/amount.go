package money

import (
	"fmt"
	"math/big"
)

// MaxMajorUnits is the largest amount ValidatePositive accepts, in major
// units of any currency (10^15, that is 1 000 000 000 000 000 USD or TON).
const MaxMajorUnits = 1_000_000_000_000_000

// Amount is an exact, immutable amount of one currency held as an integer
// count of minor units (cents, nanotons); the zero value has no currency.
type Amount struct {
	// minor is a big.Int because 10^15 TON is 10^24 nanotons, beyond int64.
	// nil means 0; it is never mutated once the Amount is built.
	minor *big.Int
	cur   Currency
}

// ParseAmount parses text such as "20.50" as an amount of c; see ParseDecimal
// and AmountFromDecimal for the rules.
func ParseAmount(s string, c Currency) (Amount, error) {
	d, err := ParseDecimal(s)
	if err != nil {
		return Amount{}, err
	}
	return AmountFromDecimal(d, c)
}

// AmountFromDecimal converts d to an amount of c, failing with
// ErrTooManyDecimals if d is written with more decimals than c has, even
// zeros ("1500.0" JPY).
func AmountFromDecimal(d Decimal, c Currency) (Amount, error) {
	if c.IsZero() {
		return Amount{}, fmt.Errorf("%w: no currency given", ErrUnknownCurrency)
	}
	// Judged on the written scale, not the value, so we never silently drop
	// digits a user typed: "1500.0" JPY probably means they picked the wrong
	// currency.
	if int(d.Scale()) > c.digits {
		if c.digits == 0 {
			return Amount{}, fmt.Errorf("%w: %s allows none", ErrTooManyDecimals, c.code)
		}
		return Amount{}, fmt.Errorf("%w: %s allows at most %d", ErrTooManyDecimals, c.code, c.digits)
	}
	return Amount{minor: d.rescaled(int32(c.digits)), cur: c}, nil
}

// Zero returns the zero amount of c.
func Zero(c Currency) Amount { return Amount{minor: new(big.Int), cur: c} }

// NewAmount returns minor minor units of c, so NewAmount(1050, USD) is 10.50 USD.
func NewAmount(minor int64, c Currency) Amount {
	return Amount{minor: big.NewInt(minor), cur: c}
}

// NewAmountBig returns minor minor units of c; it copies minor, and nil means 0.
func NewAmountBig(minor *big.Int, c Currency) Amount {
	m := new(big.Int)
	if minor != nil {
		m.Set(minor)
	}
	return Amount{minor: m, cur: c}
}

// Currency returns the currency of a.
func (a Amount) Currency() Currency { return a.cur }

// Minor returns a copy of the amount in minor units, safe to modify.
func (a Amount) Minor() *big.Int { return new(big.Int).Set(a.m()) }

// String returns the amount with exactly the currency's number of decimals,
// such as "20.00" USD, "1500" JPY or "0.500000000" TON, without the code.
func (a Amount) String() string { return formatFixed(a.m(), a.cur.digits) }

// Decimal returns the same value as a Decimal whose scale is the currency's digits.
func (a Amount) Decimal() Decimal {
	return Decimal{coef: a.m(), scale: int32(a.cur.digits)}
}

// Sign returns -1, 0 or +1 depending on the sign of a.
func (a Amount) Sign() int { return a.m().Sign() }

// IsZero reports whether a is zero.
func (a Amount) IsZero() bool { return a.m().Sign() == 0 }

// Cmp compares a and b and returns -1, 0 or +1; it panics if their
// currencies differ, since that is a programming error, not user input.
func (a Amount) Cmp(b Amount) int {
	mustSameCurrency(a, b)
	return a.m().Cmp(b.m())
}

// Add returns a + b; it panics if their currencies differ.
func (a Amount) Add(b Amount) Amount {
	mustSameCurrency(a, b)
	return Amount{minor: new(big.Int).Add(a.m(), b.m()), cur: a.cur}
}

// Sub returns a - b; it panics if their currencies differ.
func (a Amount) Sub(b Amount) Amount {
	mustSameCurrency(a, b)
	return Amount{minor: new(big.Int).Sub(a.m(), b.m()), cur: a.cur}
}

// Neg returns -a.
func (a Amount) Neg() Amount {
	return Amount{minor: new(big.Int).Neg(a.m()), cur: a.cur}
}

// Sum returns the total of xs in currency c (zero if xs is empty); it panics
// if any of xs is in another currency.
func Sum(c Currency, xs ...Amount) Amount {
	total := new(big.Int)
	for _, x := range xs {
		if x.cur != c {
			panic(fmt.Sprintf("money: %v: cannot add %s to a sum in %s", ErrCurrencyMismatch, x.cur.code, c.code))
		}
		total.Add(total, x.m())
	}
	return Amount{minor: total, cur: c}
}

// ValidatePositive checks a user-entered amount: it must be greater than
// zero (ErrNotPositive) and at most MaxMajorUnits (ErrTooLarge).
func ValidatePositive(a Amount) error {
	if a.cur.IsZero() {
		return fmt.Errorf("%w: no currency given", ErrUnknownCurrency)
	}
	if a.Sign() <= 0 {
		return fmt.Errorf("amount %w: got %s %s", ErrNotPositive, a, a.cur.code)
	}
	if a.m().Cmp(maxMinor(a.cur)) > 0 {
		return fmt.Errorf("%w: must not exceed %d %s", ErrTooLarge, MaxMajorUnits, a.cur.code)
	}
	return nil
}

// maxMinor returns MaxMajorUnits expressed in c's minor units.
func maxMinor(c Currency) *big.Int {
	return new(big.Int).Mul(big.NewInt(MaxMajorUnits), pow10(c.digits))
}

// m returns the minor units, treating nil as zero. The result is read-only.
func (a Amount) m() *big.Int {
	if a.minor == nil {
		return bigZero
	}
	return a.minor
}

// mustSameCurrency panics when a and b differ in currency: mixing currencies
// silently would corrupt balances, and user input is checked before this.
func mustSameCurrency(a, b Amount) {
	if a.cur != b.cur {
		panic(fmt.Sprintf("money: %v: %s and %s", ErrCurrencyMismatch, a.cur.code, b.cur.code))
	}
}
