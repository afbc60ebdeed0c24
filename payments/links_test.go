package payments

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fracti/api/money"
)

func amount(s, code string) money.Amount {
	a, err := money.ParseAmount(s, money.MustCurrency(code))
	if err != nil {
		panic(err)
	}
	return a
}

func TestUPILink(t *testing.T) {
	got, err := UPILink("rahul.sharma@okaxis", "Rahul Sharma & Co", amount("1250.50", "INR"), "fracti-0f1e2d3c")
	require.NoError(t, err)
	require.Equal(t, "upi://pay?pa=rahul.sharma@okaxis&pn=Rahul%20Sharma%20Co&am=1250.50&cu=INR&tn=fracti-0f1e2d3c", got)
	u, err := url.Parse(got)
	require.NoError(t, err)
	require.Equal(t, url.Values{"pa": {"rahul.sharma@okaxis"}, "pn": {"Rahul Sharma Co"}, "am": {"1250.50"}, "cu": {"INR"}, "tn": {"fracti-0f1e2d3c"}}, u.Query())

	got, err = UPILink("a.b@ybl", "Иван", amount("1.00", "INR"), "x")
	require.NoError(t, err)
	require.Equal(t, "upi://pay?pa=a.b@ybl&am=1.00&cu=INR&tn=x", got, "a name with nothing Latin is left out (pn is optional)")

	for _, a := range []money.Amount{amount("1.00", "EUR"), amount("0.00", "INR")} {
		_, err := UPILink("a.b@ybl", "A", a, "x")
		require.ErrorIs(t, err, ErrRail)
	}
}

func TestPayPalLink(t *testing.T) {
	for _, tc := range []struct {
		name, amount, code, want string
	}{
		{"AnnaMueller", "12.50", "EUR", "https://paypal.me/AnnaMueller/12.50EUR"},
		{"bob", "1500", "JPY", "https://paypal.me/bob/1500JPY"},
		{"bob", "20.00", "USD", "https://paypal.me/bob/20.00USD"},
		{"bob", "100.00", "INR", ""},
		{"bob", "1.000000000", "TON", ""},
		{"bob", "0.00", "USD", ""},
	} {
		got, err := PayPalLink(tc.name, amount(tc.amount, tc.code))
		if tc.want == "" {
			require.ErrorIs(t, err, ErrRail, tc.code)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.want, got)
	}
}

func TestRevolutLink(t *testing.T) {
	got, err := RevolutLink("annam", amount("16.70", "EUR"), "fracti-0f1e")
	require.NoError(t, err)
	require.Equal(t, "https://revolut.me/annam?amount=1670&currency=EUR&note=fracti-0f1e", got)
	got, err = RevolutLink("bob", amount("1500", "JPY"), "n o")
	require.NoError(t, err)
	require.Equal(t, "https://revolut.me/bob?amount=1500&currency=JPY&note=n+o", got)
	for _, a := range []money.Amount{amount("1.00", "BRL"), amount("0.00", "EUR")} {
		_, err := RevolutLink("bob", a, "x")
		require.ErrorIs(t, err, ErrRail)
	}
}

func TestOptions(t *testing.T) {
	all := Handles{
		IBAN: "DE89370400440532013000", BIC: "COBADEFFXXX", AccountHolder: "Anna Müller", UPI: "anna@okaxis",
		Pix: "52998224725", PixType: PixCPF, Revolut: "annam", PayPal: "AnnaMueller", Other: "Cash is fine",
	}
	kinds := func(opts []Option) []Kind {
		var ks []Kind
		for _, o := range opts {
			ks = append(ks, o.Kind)
		}
		return ks
	}
	for _, tc := range []struct {
		code, amount string
		want         []Kind
	}{
		{"EUR", "12.34", []Kind{KindSEPA, KindRevolut, KindPayPal, KindOther}},
		{"INR", "500.00", []Kind{KindUPI, KindOther}},
		{"BRL", "30.00", []Kind{KindPix, KindPayPal, KindOther}},
		{"USD", "5.00", []Kind{KindRevolut, KindPayPal, KindOther}},
		{"KWD", "5.000", []Kind{KindOther}},
	} {
		opts, err := Options(Payment{Handles: all, Name: "Anna", Amount: amount(tc.amount, tc.code), Reference: "fracti-0f1e"})
		require.NoError(t, err)
		require.Equal(t, tc.want, kinds(opts), tc.code)
	}
	opts, err := Options(Payment{Handles: all, Name: "Anna", Amount: amount("12.34", "EUR"), Reference: "fracti-0f1e"})
	require.NoError(t, err)
	require.Equal(t, Option{Kind: KindSEPA, QRPayload: "BCD\n002\n1\nSCT\nCOBADEFFXXX\nAnna Muller\nDE89370400440532013000\nEUR12.34\n\n\nfracti-0f1e"}, opts[0])
	require.Equal(t, Option{Kind: KindOther, Text: "Cash is fine"}, opts[3])
	opts, err = Options(Payment{Handles: Handles{IBAN: "DE89370400440532013000"}, Name: "Иван", Amount: amount("1.00", "EUR")})
	require.NoError(t, err)
	require.Empty(t, opts, "no Latin name for the EPC code: no SEPA option")
}
