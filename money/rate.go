package money

import (
	"errors"
	"fmt"
	"math/big"
)

// RateDigits is the most significant digits a conversion rate has, given by
// hand or derived from a provider's figures: enough for any real exchange
// rate, and few enough that a person can copy the recorded rate and redo the
// conversion on a calculator.
const RateDigits = 12

// ErrRatePrecision reports a rate written with more than RateDigits
// significant digits.
var ErrRatePrecision = errors.New("has too many significant digits")

// ParseRate parses a conversion rate: a positive decimal such as "0.9" or
// "1.1225" of at most RateDigits significant digits.
func ParseRate(s string) (Decimal, error) {
	d, err := ParseDecimal(s)
	if err != nil {
		return Decimal{}, err
	}
	return d, CheckRate(d)
}

// CheckRate checks that d is usable as a rate: positive (ErrNotPositive)
// and of at most RateDigits significant digits (ErrRatePrecision).
func CheckRate(d Decimal) error {
	if d.Sign() <= 0 {
		return fmt.Errorf("rate %w: got %s", ErrNotPositive, d)
	}
	if n := significantDigits(d.c()); n > RateDigits {
		return fmt.Errorf("rate %w: %d, at most %d", ErrRatePrecision, n, RateDigits)
	}
	return nil
}

// significantDigits counts the digits of |v| without its trailing zeros
// (leading zeros never appear in a big.Int's text).
func significantDigits(v *big.Int) int {
	s := new(big.Int).Abs(v).String()
	n := len(s)
	for n > 1 && s[n-1] == '0' {
		n--
	}
	return n
}

// DeriveRate is the price of one unit of X in Y when per1X and per1Y are
// the prices of one unit of a common base (1 EUR for the ECB) in X and in
// Y: per1Y / per1X, rounded once, half to even, to RateDigits significant
// digits. Both must be positive.
func DeriveRate(per1X, per1Y Decimal) (Decimal, error) {
	if per1X.Sign() <= 0 || per1Y.Sign() <= 0 {
		return Decimal{}, fmt.Errorf("rate %w", ErrNotPositive)
	}
	r := new(big.Rat).SetFrac(
		new(big.Int).Mul(per1Y.c(), pow10(int(per1X.scale))),
		new(big.Int).Mul(per1X.c(), pow10(int(per1Y.scale))),
	)
	return RoundRate(r), nil
}

// RoundRate rounds the positive rational r half to even to RateDigits
// significant digits, without trailing zeros ("0.8", not "0.800000000000").
// It panics on r <= 0, which callers rule out first.
func RoundRate(r *big.Rat) Decimal {
	if r.Sign() <= 0 {
		panic("money: RoundRate of a rate that is not positive")
	}
	num, den := new(big.Int).Set(r.Num()), new(big.Int).Set(r.Denom())
	// Find the scale k with 10^(RateDigits-1) <= r×10^k < 10^RateDigits,
	// starting from an estimate by digit counts and correcting it.
	k := RateDigits - (len(num.String()) - len(den.String()))
	low, high := pow10(RateDigits-1), pow10(RateDigits)
	for {
		if scaledFloor(num, den, k).Cmp(low) < 0 {
			k++
		} else if scaledFloor(num, den, k).Cmp(high) >= 0 {
			k--
		} else {
			break
		}
	}
	n := roundHalfEven(scaledNum(num, k), scaledDen(den, k))
	if n.Cmp(high) == 0 { // 999…9.5 rounds up to one more digit
		n.Quo(n, bigTen)
		k--
	}
	return normalize(n, k)
}

// scaledFloor is floor(num×10^k / den).
func scaledFloor(num, den *big.Int, k int) *big.Int {
	return new(big.Int).Quo(scaledNum(num, k), scaledDen(den, k))
}

func scaledNum(num *big.Int, k int) *big.Int {
	if k > 0 {
		return new(big.Int).Mul(num, pow10(k))
	}
	return num
}

func scaledDen(den *big.Int, k int) *big.Int {
	if k < 0 {
		return new(big.Int).Mul(den, pow10(-k))
	}
	return den
}

// normalize returns n×10^-k with trailing zeros dropped and a scale of at
// least zero.
func normalize(n *big.Int, k int) Decimal {
	n = new(big.Int).Set(n)
	r := new(big.Int)
	for k > 0 {
		q, m := new(big.Int).QuoRem(n, bigTen, r)
		if m.Sign() != 0 {
			break
		}
		n, k = q, k-1
	}
	if k < 0 {
		n.Mul(n, pow10(-k))
		k = 0
	}
	return Decimal{coef: n, scale: int32(k)}
}

// roundHalfEven is num/den rounded to the nearest integer, ties to the even
// one; num >= 0 and den > 0.
func roundHalfEven(num, den *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	switch new(big.Int).Lsh(r, 1).Cmp(den) {
	case 1:
		q.Add(q, big.NewInt(1))
	case 0:
		if q.Bit(0) == 1 {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// Convert is a × rate in the currency to, rounded half to even to its minor
// units: 54.00 USD at 0.9 is 48.60 EUR. rate must be positive (CheckRate);
// the result may be zero when a tiny amount meets a small rate, which
// callers check with ValidatePositive.
func Convert(a Amount, rate Decimal, to Currency) Amount {
	// minor_to = minor_a × coef × 10^digits_to / (10^digits_a × 10^scale)
	num := new(big.Int).Mul(a.m(), rate.c())
	num.Mul(num, pow10(to.digits))
	den := pow10(a.cur.digits + int(rate.scale))
	neg := num.Sign() < 0
	q := roundHalfEven(num.Abs(num), den)
	if neg {
		q.Neg(q)
	}
	return Amount{minor: q, cur: to}
}

// Rat returns d as an exact fraction, for arithmetic outside this package
// that must round only once, at the end (RoundRate).
func (d Decimal) Rat() *big.Rat {
	return new(big.Rat).SetFrac(d.c(), pow10(int(d.scale)))
}

// ConvertBack is the amount of to that rate converts into a: a ÷ rate,
// rounded half to even to to's minor units, where rate is the price of one
// unit of to in a's currency. Convert(ConvertBack(a, rate, to), rate,
// a.Currency()) gives a back exactly whenever rate × half a minor unit of to
// is less than half a minor unit of a (1 TON at 6.8764 EUR: always).
func ConvertBack(a Amount, rate Decimal, to Currency) Amount {
	// minor_to = minor_a × 10^(digits_to + scale) / (10^digits_a × coef)
	num := new(big.Int).Mul(a.m(), pow10(to.digits+int(rate.scale)))
	den := new(big.Int).Mul(pow10(a.cur.digits), rate.c())
	neg := num.Sign() < 0
	q := roundHalfEven(num.Abs(num), den)
	if neg {
		q.Neg(q)
	}
	return Amount{minor: q, cur: to}
}
