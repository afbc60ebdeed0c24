package money

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSmallNumbersAsBigOnes holds the int64 shortcuts of parsing, formatting
// and rescaling to what big.Int gives, on random numbers either side of
// their limit (up to 24 digits) and at every int64 edge.
func TestSmallNumbersAsBigOnes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		nd := r.IntN(24) + 1
		var sb strings.Builder
		if r.IntN(2) == 0 {
			sb.WriteByte('-')
		}
		for j := 0; j < nd; j++ {
			sb.WriteByte(byte('0' + r.IntN(10)))
		}
		if r.IntN(2) == 0 {
			sb.WriteByte('.')
			for j := r.IntN(12) + 1; j > 0; j-- {
				sb.WriteByte(byte('0' + r.IntN(10)))
			}
		}
		s := sb.String()
		d, err := ParseDecimal(s)
		if err != nil {
			t.Fatal(err)
		}
		digits := strings.Replace(s, ".", "", 1)
		want, _ := new(big.Int).SetString(digits, 10)
		if d.c().Cmp(want) != 0 || len(d.c().Bits()) != len(want.Bits()) || (d.coef.Sign() == 0) != (want.Sign() == 0) {
			t.Fatalf("%s: %v want %v", s, d.c(), want)
		}
		for sc := 0; sc < 30; sc += 1 + r.IntN(4) {
			if got, w := formatFixed(want, sc), formatBig(want, sc); got != w {
				t.Fatalf("format %v %d: %q want %q", want, sc, got, w)
			}
		}
		for up := int32(0); up < 25; up += 1 + int32(r.IntN(5)) {
			got := d.rescaled(d.scale + up)
			w := new(big.Int).Mul(d.c(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(up)), nil))
			if got.Cmp(w) != 0 {
				t.Fatalf("rescale %s by %d: %v want %v", s, up, got, w)
			}
		}
	}
	for _, v := range []int64{0, 1, -1, 9, -9, 10, 99, 100, -100, 1 << 62, -(1 << 62), 9223372036854775807, -9223372036854775807, -9223372036854775808} {
		b := big.NewInt(v)
		for sc := 0; sc < 70; sc++ {
			if got, w := formatFixed(b, sc), formatBig(b, sc); got != w {
				t.Fatalf("format %v %d: %q want %q", v, sc, got, w)
			}
		}
	}
}
