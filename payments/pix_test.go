package payments

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParsePixKey(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		typ      PixKeyType
		err      string
	}{
		{in: "529.982.247-25", want: "52998224725", typ: PixCPF},
		{in: "52998224725", want: "52998224725", typ: PixCPF},
		{in: "118.554.049-07", want: "11855404907", typ: PixCPF},
		{in: "52998224726", err: "not a valid CPF"},
		{in: "111.111.111-11", err: "not a valid CPF"}, // passes the check digits, is none
		{in: "11.222.333/0001-81", want: "11222333000181", typ: PixCNPJ},
		{in: "11222333000182", err: "not a valid CNPJ"},
		{in: "12.ABC.345/01DE-35", want: "12ABC34501DE35", typ: PixCNPJ}, // the Receita Federal's alphanumeric example
		{in: "12.ABC.345/01DE-36", err: "not a valid CNPJ"},
		{in: "00000000000000", err: "not a valid CNPJ"},
		{in: "thalesog@me.com", want: "thalesog@me.com", typ: PixEmail},
		{in: "Fulano@Example.COM.br", want: "fulano@example.com.br", typ: PixEmail},
		{in: "fulano@", err: "e-mail key"},
		{in: "+55 (11) 98765-4321", want: "+5511987654321", typ: PixPhone},
		{in: "+556132101234", want: "+556132101234", typ: PixPhone},
		{in: "+1 555 123 4567", err: "phone key is +55"},
		{in: "+5511987", err: "phone key is +55"},
		{in: "123E4567-E12B-12D1-A456-426655440000", want: "123e4567-e12b-12d1-a456-426655440000", typ: PixRandom},
		{in: "123e4567e12b12d1a456426655440000", err: "a Pix key is"},
		{in: "hello", err: "a Pix key is"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, typ, err := ParsePixKey(tc.in)
			if tc.err != "" {
				var fe *FieldError
				require.True(t, errors.As(err, &fe), "%v", err)
				require.Equal(t, "pix", fe.Field)
				require.Contains(t, fe.Msg, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.typ, typ)
		})
	}
}
