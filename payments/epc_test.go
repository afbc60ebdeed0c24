package payments

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fracti/api/money"
)

func eur(s string) money.Amount {
	a, err := money.ParseAmount(s, money.MustCurrency("EUR"))
	if err != nil {
		panic(err)
	}
	return a
}

// The first case is EPC069-12's own example (the Belgian Red Cross), in
// version 002 with the amount to the cent; the second Wikipedia's (see
// testdata/README.md).
func TestEPC(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   EPCTransfer
		want string
		err  error
	}{
		{name: "EPC069-12's example", in: EPCTransfer{
			BIC: "BPOTBEB1", Name: "Red Cross of Belgium", IBAN: "BE72000000001616", Amount: eur("1.00"), Text: "Urgency fund",
		}, want: "BCD\n002\n1\nSCT\nBPOTBEB1\nRed Cross of Belgium\nBE72000000001616\nEUR1.00\n\n\nUrgency fund"},
		{name: "without a BIC, name in Latin", in: EPCTransfer{
			Name: "Franz Mustermänner", IBAN: "DE71110220330123456789", Amount: eur("12.30"), Text: "fracti-0f1e2d3c4b5a69788796a5b4c3d2e1f0",
		}, want: "BCD\n002\n1\nSCT\n\nFranz Mustermanner\nDE71110220330123456789\nEUR12.30\n\n\nfracti-0f1e2d3c4b5a69788796a5b4c3d2e1f0"},
		{name: "smallest", in: EPCTransfer{Name: "A", IBAN: "DE89370400440532013000", Amount: eur("0.01")},
			want: "BCD\n002\n1\nSCT\n\nA\nDE89370400440532013000\nEUR0.01\n\n\n"},
		{name: "largest", in: EPCTransfer{Name: "A", IBAN: "DE89370400440532013000", Amount: eur("999999999.99")},
			want: "BCD\n002\n1\nSCT\n\nA\nDE89370400440532013000\nEUR999999999.99\n\n\n"},
		{name: "too large", in: EPCTransfer{Name: "A", IBAN: "DE89370400440532013000", Amount: eur("1000000000.00")}, err: ErrRail},
		{name: "zero", in: EPCTransfer{Name: "A", IBAN: "DE89370400440532013000", Amount: eur("0.00")}, err: ErrRail},
		{name: "not EUR", in: EPCTransfer{Name: "A", IBAN: "DE89370400440532013000", Amount: money.NewAmount(100, money.MustCurrency("USD"))}, err: ErrRail},
		{name: "IBAN outside SEPA", in: EPCTransfer{Name: "A", IBAN: "BR1800360305000010009795493C1", Amount: eur("1.00")}, err: ErrRail},
		{name: "IBAN of a SEPA territory", in: EPCTransfer{Name: "A", IBAN: "GI75NWBK000000007099453", Amount: eur("1.00")},
			want: "BCD\n002\n1\nSCT\n\nA\nGI75NWBK000000007099453\nEUR1.00\n\n\n"},
		{name: "no Latin name", in: EPCTransfer{Name: "Иван", IBAN: "DE89370400440532013000", Amount: eur("1.00")}, err: ErrRail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := EPC(tc.in)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.False(t, strings.HasSuffix(got, "\n\n\n\n"))
			require.LessOrEqual(t, len(got), epcMaxBytes)
		})
	}
}

func TestEPCLimits(t *testing.T) {
	got, err := EPC(EPCTransfer{
		BIC: "COBADEFFXXX", Name: strings.Repeat("Name ", 30), IBAN: "MT84MALT011000012345MTLCAST001S", // SEPA's longest
		Amount: eur("999999999.99"), Text: strings.Repeat("x", 200),
	})
	require.NoError(t, err)
	lines := strings.Split(got, "\n")
	require.Len(t, lines, 11)
	require.LessOrEqual(t, len(lines[5]), epcMaxName)
	require.Len(t, lines[10], epcMaxText)
	require.LessOrEqual(t, len(got), epcMaxBytes)
}
