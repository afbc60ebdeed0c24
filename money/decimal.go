package money

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// maxDecimalLen is the longest text ParseDecimal accepts, so that user
// input cannot make us allocate huge numbers.
const maxDecimalLen = 64

// Decimal is an exact, immutable decimal number of any size, coef × 10^-scale
// with scale the number of fractional digits as written; the zero value is 0.
type Decimal struct {
	coef  *big.Int // nil means 0; never mutated once the Decimal is built
	scale int32
}

// bigZero stands in for a nil coefficient; it is shared and must never be
// written to.
var bigZero = new(big.Int)

// bigTen is a shared read-only 10.
var bigTen = big.NewInt(10)

// ParseDecimal parses an optional '-', one or more digits and optionally '.'
// and one or more digits, such as "12.50", "-3" or "007.10", and nothing else.
func ParseDecimal(s string) (Decimal, error) {
	// The strict grammar keeps API input unambiguous: no "1,000" or "1e3"
	// that clients in different locales would read differently.
	if len(s) > maxDecimalLen {
		return Decimal{}, fmt.Errorf("%w: longer than %d characters", ErrSyntax, maxDecimalLen)
	}
	if !isDecimalSyntax(s) {
		return Decimal{}, fmt.Errorf("%w: %q (write it like \"12.50\")", ErrSyntax, s)
	}
	scale := 0
	digits := s
	if i := strings.IndexByte(s, '.'); i >= 0 {
		scale = len(s) - i - 1
		if coef, ok := parseSmall(s); ok {
			return Decimal{coef: coef, scale: int32(scale)}, nil
		}
		digits = s[:i] + s[i+1:]
	} else if coef, ok := parseSmall(s); ok {
		return Decimal{coef: coef, scale: 0}, nil
	}
	coef, ok := new(big.Int).SetString(digits, 10)
	if !ok { // cannot happen after isDecimalSyntax; kept so a bug is an error, not a panic
		return Decimal{}, fmt.Errorf("%w: %q (write it like \"12.50\")", ErrSyntax, s)
	}
	return Decimal{coef: coef, scale: int32(scale)}, nil
}

// maxSmallDigits is the most digits parseSmall reads: any 18 digits fit in
// an int64.
const maxSmallDigits = 18

// parseSmall reads a number of valid syntax with at most maxSmallDigits
// digits without big.Int's general parser: every amount stored or typed in
// practice, read for a fraction of the allocations (a screen reads
// thousands). ok is false for longer numbers.
func parseSmall(s string) (coef *big.Int, ok bool) {
	neg := s[0] == '-'
	var v int64
	n := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; isDigit(c) {
			if n++; n > maxSmallDigits {
				return nil, false
			}
			v = v*10 + int64(c-'0')
		}
	}
	if neg {
		v = -v
	}
	return big.NewInt(v), true
}

// isDecimalSyntax checks the grammar -?[0-9]+(\.[0-9]+)? by hand, because
// big.Int.SetString and strconv accept more (signs, underscores, prefixes).
func isDecimalSyntax(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i == start {
		return false
	}
	if i == len(s) {
		return true
	}
	if s[i] != '.' {
		return false
	}
	i++
	start = i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i > start && i == len(s)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// NewDecimal returns coef × 10^-scale; a negative scale multiplies coef by
// 10^-scale and gives scale 0, so String never needs an exponent.
func NewDecimal(coef int64, scale int32) Decimal {
	c := big.NewInt(coef)
	if scale < 0 {
		c.Mul(c, pow10(int(-int64(scale))))
		scale = 0
	}
	return Decimal{coef: c, scale: scale}
}

// String returns the number with exactly Scale() fractional digits, such as
// "12.50", "-0.05" or "1500"; zero is never written with a minus sign.
func (d Decimal) String() string {
	return formatFixed(d.c(), int(d.scale))
}

// Scale returns the number of fractional digits as written.
func (d Decimal) Scale() int32 { return d.scale }

// Sign returns -1, 0 or +1 depending on the sign of d.
func (d Decimal) Sign() int { return d.c().Sign() }

// IsZero reports whether d is numerically zero, whatever its scale.
func (d Decimal) IsZero() bool { return d.c().Sign() == 0 }

// Cmp compares d and o numerically, ignoring scale ("1.50" equals "1.5"),
// and returns -1, 0 or +1.
func (d Decimal) Cmp(o Decimal) int {
	// Signs decide most comparisons without rescaling anything.
	if ds, os := d.Sign(), o.Sign(); ds != os {
		if ds < os {
			return -1
		}
		return 1
	}
	s := max(d.scale, o.scale)
	return d.rescaled(s).Cmp(o.rescaled(s))
}

// c returns the coefficient, treating nil as zero. The result is read-only.
func (d Decimal) c() *big.Int {
	if d.coef == nil {
		return bigZero
	}
	return d.coef
}

// rescaled returns the coefficient expressed at scale s (s >= d.scale). The
// result may alias d.coef, so it is read-only.
func (d Decimal) rescaled(s int32) *big.Int {
	if s == d.scale {
		return d.c()
	}
	n := int(s - d.scale)
	if c := d.c(); c.IsInt64() && n < len(smallPow10) {
		// Most amounts: the product in an int64 when it fits, without
		// building a power of ten.
		v, p := c.Int64(), smallPow10[n]
		if hi, lo := bits.Mul64(uint64(absInt64(v)), uint64(p)); hi == 0 && lo <= math.MaxInt64 && v != math.MinInt64 {
			if v < 0 {
				return big.NewInt(-int64(lo))
			}
			return big.NewInt(int64(lo))
		}
	}
	return new(big.Int).Mul(d.c(), pow10(n))
}

// absInt64 is |v| (v > math.MinInt64).
func absInt64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// pow10 returns a new 10^n.
func pow10(n int) *big.Int {
	if 0 <= n && n < len(smallPow10) {
		return new(big.Int).SetInt64(smallPow10[n])
	}
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

// smallPow10 is 10^0 … 10^18, the powers of ten an int64 holds.
var smallPow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// formatFixed writes v × 10^-scale with exactly scale fractional digits.
func formatFixed(v *big.Int, scale int) string {
	if v.IsInt64() && v.Int64() != math.MinInt64 && scale < 64 {
		return formatSmall(v.Int64(), scale)
	}
	return formatBig(v, scale)
}

// formatBig is formatFixed for any value.
func formatBig(v *big.Int, scale int) string {
	neg := v.Sign() < 0
	digits := new(big.Int).Abs(v).String()
	if scale > 0 {
		if len(digits) <= scale {
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		p := len(digits) - scale
		digits = digits[:p] + "." + digits[p:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// formatSmall is formatFixed for a value an int64 holds, written in one
// allocation (the string) where big.Int's formatting takes several: a
// screen writes thousands of amounts.
func formatSmall(v int64, scale int) string {
	var buf [96]byte // sign, up to 63 leading zeros, 19 digits, the point
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], v, 10)
	out := buf[:0]
	if v < 0 {
		out = append(out, '-')
		d = d[1:]
	}
	if scale > 0 {
		if len(d) <= scale {
			out = append(out, '0', '.')
			for i := len(d); i < scale; i++ {
				out = append(out, '0')
			}
			out = append(out, d...)
		} else {
			p := len(d) - scale
			out = append(out, d[:p]...)
			out = append(out, '.')
			out = append(out, d[p:]...)
		}
	} else {
		out = append(out, d...)
	}
	return string(out)
}
