package payments

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		name       string
		in, want   Handles
		field, err string
	}{
		{name: "none", in: Handles{}, want: Handles{}},
		{name: "every handle", in: Handles{
			IBAN: "de89 3704 0044 0532 0130 00", BIC: "cobadeffxxx", AccountHolder: "  Anna Müller ",
			UPI: "Anna@OKAXIS", Pix: "529.982.247-25", PixCity: "São Paulo", Revolut: "@AnnaM",
			PayPal: "https://paypal.me/AnnaMueller", Other: "Cash at the next dinner",
		}, want: Handles{
			IBAN: "DE89370400440532013000", BIC: "COBADEFFXXX", AccountHolder: "Anna Müller",
			UPI: "anna@okaxis", Pix: "52998224725", PixType: PixCPF, PixCity: "São Paulo", Revolut: "annam",
			PayPal: "AnnaMueller", Other: "Cash at the next dinner",
		}},
		{name: "blank is none", in: Handles{IBAN: "  ", Other: " "}, want: Handles{}},
		{name: "bad IBAN", in: Handles{IBAN: "DE00"}, field: "iban", err: "22 characters"},
		{name: "BIC alone", in: Handles{BIC: "DEUTDEFF"}, field: "bic", err: "with an IBAN"},
		{name: "holder alone", in: Handles{AccountHolder: "Anna"}, field: "accountHolder", err: "with an IBAN"},
		{name: "holder too long", in: Handles{IBAN: "DE89370400440532013000", AccountHolder: strings.Repeat("a", 71)}, field: "accountHolder", err: "at most 70"},
		{name: "city alone", in: Handles{PixCity: "Rio"}, field: "pixCity", err: "with a Pix key"},
		{name: "city too long", in: Handles{Pix: "52998224725", PixCity: strings.Repeat("Sao Miguel do Oeste ", 3)}, field: "pixCity", err: "at most 50"},
		{name: "revtag", in: Handles{Revolut: "a b"}, field: "revolut", err: "Revtag"},
		{name: "revtag short", in: Handles{Revolut: "ab"}, field: "revolut", err: "Revtag"},
		{name: "paypal symbol", in: Handles{PayPal: "anna-m"}, field: "paypal", err: "without symbols"},
		{name: "paypal long", in: Handles{PayPal: strings.Repeat("a", 21)}, field: "paypal", err: "1 to 20"},
		{name: "other 200", in: Handles{Other: strings.Repeat("é", 200)}, want: Handles{Other: strings.Repeat("é", 200)}},
		{name: "other 201", in: Handles{Other: strings.Repeat("é", 201)}, field: "other", err: "at most 200"},
		{name: "other control", in: Handles{Other: "a\x00b"}, field: "other", err: "control characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Normalize(tc.in)
			if tc.err != "" {
				var fe *FieldError
				require.True(t, errors.As(err, &fe), "%v", err)
				require.Equal(t, tc.field, fe.Field)
				require.Contains(t, fe.Msg, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestLatinText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"Anna Müller", 70, "Anna Muller"},
		{"François Ça", 70, "Francois Ca"},
		{"Straße & Søn", 70, "Strasse Son"},
		{"  Jan\tKowalski  ", 70, "Jan Kowalski"},
		{"Иван Петров", 70, ""},
		{"Иван (Ivan) Petrov", 70, "(Ivan) Petrov"},
		{"SÃO MIGUÉL DO O", 15, "SAO MIGUEL DO O"},
		{"Maria da Conceição Albuquerque", 25, "Maria da Conceicao"},
		{"Abcdefghijklmnopqrstuvwxyz", 10, "Abcdefghij"},
	} {
		require.Equal(t, tc.want, latinText(tc.in, tc.max), tc.in)
	}
}
