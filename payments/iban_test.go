package payments

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// The IBANs are the SWIFT IBAN registry's own examples (testdata/README.md).
func TestParseIBAN(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "DE89370400440532013000", want: "DE89370400440532013000"},
		{in: "de89 3704 0044 0532 0130 00", want: "DE89370400440532013000"}, // as printed, lower case
		{in: "GB29NWBK60161331926819", want: "GB29NWBK60161331926819"},
		{in: "FR14 2004 1010 0505 0001 3M02 606", want: "FR1420041010050500013M02606"},
		{in: "NO9386011117947", want: "NO9386011117947"},                                   // the shortest
		{in: "LC55HEMM000100010012001200023015", want: "LC55HEMM000100010012001200023015"}, // the longest
		{in: "BE68539007547034", want: "BE68539007547034"},
		{in: "NL91ABNA0417164300", want: "NL91ABNA0417164300"},
		{in: "IT60X0542811101000000123456", want: "IT60X0542811101000000123456"},
		{in: "BR1800360305000010009795493C1", want: "BR1800360305000010009795493C1"},
		{in: "MT84MALT011000012345MTLCAST001S", want: "MT84MALT011000012345MTLCAST001S"},
		{in: "GI75NWBK000000007099453", want: "GI75NWBK000000007099453"},
		{in: "DE89370400440532013001", err: "check digits do not match"},
		{in: "DE88370400440532013000", err: "check digits do not match"},
		{in: "DE8937040044053201300", err: "DE has 22 characters, this one 21"},
		{in: "US12345678901234", err: "not a country with IBANs"},
		{in: "DE89-3704-0044-0532-0130-00", err: "only letters and digits"},
		{in: "DE", err: "begins with a country code"},
		{in: "DE01370400440532013000", err: "must be 02 to 98"}, // 01 ≡ 98 mod 97: passes the check, never issued
		{in: "DEAB370400440532013000", err: "must be 02 to 98"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseIBAN(tc.in)
			if tc.err != "" {
				var fe *FieldError
				require.True(t, errors.As(err, &fe), "%v", err)
				require.Equal(t, "iban", fe.Field)
				require.Contains(t, fe.Msg, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestParseBIC(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "DEUTDEFF", want: "DEUTDEFF"},
		{in: "deutdeff500", want: "DEUTDEFF500"},
		{in: "NWBKGB2L", want: "NWBKGB2L"},
		{in: "BPOTBEB1", want: "BPOTBEB1"},
		{in: "COBA DE FF XXX", want: "COBADEFFXXX"},
		{in: "DEUTDEF", err: "8 or 11 characters"},
		{in: "DEUTDEFF5", err: "8 or 11 characters"},
		{in: "DEUTDEFF5000", err: "8 or 11 characters"},
		{in: "DEU1DEFF", err: "4 letters of the bank"},
		{in: "DEUTD3FF", err: "2 letters of the country"},
		{in: "DEUTDEF-", err: "letters and digits"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseBIC(tc.in)
			if tc.err != "" {
				var fe *FieldError
				require.True(t, errors.As(err, &fe))
				require.Equal(t, "bic", fe.Field)
				require.Contains(t, fe.Msg, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
