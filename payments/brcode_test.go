package payments

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fracti/api/money"
)

func brl(s string) money.Amount {
	a, err := money.ParseAmount(s, money.MustCurrency("BRL"))
	if err != nil {
		panic(err)
	}
	return a
}

// The CRC of real BR Codes: the Banco Central's manual's example and
// pix-utils' test codes (testdata/README.md).
func TestCRC16CCITTFalse(t *testing.T) {
	for _, code := range []string{
		"00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D",
		"00020126510014br.gov.bcb.pix0115thalesog@me.com0210Pedido 123520400005303986540510.005802BR5914Thales Ogliari6015SAO MIGUEL DO O62070503***63044367",
		"00020126510014br.gov.bcb.pix0115thalesog@me.com0210Pedido 12352040000530398654040.005802BR5914Thales Ogliari6015SAO MIGUEL DO O62070503***63044406",
	} {
		body, crc := code[:len(code)-4], code[len(code)-4:]
		require.Equal(t, crc, fmtCRC(crc16CCITTFalse([]byte(body))), code)
	}
	require.Equal(t, uint16(0x29B1), crc16CCITTFalse([]byte("123456789"))) // the catalogue's check value
}

func fmtCRC(c uint16) string {
	const hex = "0123456789ABCDEF"
	return string([]byte{hex[c>>12], hex[c>>8&15], hex[c>>4&15], hex[c&15]})
}

func TestBRCode(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   PixPayment
		want string
		err  error
	}{
		{name: "pix-utils' static code", in: PixPayment{
			Key: "thalesog@me.com", Name: "Thales Ogliari", City: "SÃO MIGUÉL DO O", Amount: brl("10.00"), Description: "Pedido 123",
		}, want: "00020126510014br.gov.bcb.pix0115thalesog@me.com0210Pedido 123520400005303986540510.005802BR5914Thales Ogliari6015SAO MIGUEL DO O62070503***63044367"},
		{name: "a settlement", in: PixPayment{
			Key: "52998224725", Name: "Conceição Ferreira da Silva Albuquerque", Amount: brl("1234.56"),
			Description: "fracti-0f1e2d3c4b5a69788796a5b4c3d2e1f0", TxID: "fracti-0f1e2d3c4b5a69788796a5b4c3d2e1f0",
		}, want: "00020126760014br.gov.bcb.pix0111529982247250239fracti-0f1e2d3c4b5a69788796a5b4c3d2e1f05204000053039865407" +
			"1234.565802BR5921Conceicao Ferreira da6006BRASIL62290525fracti0f1e2d3c4b5a69788796304FDCE"},
		{name: "long e-mail key leaves no room for the description", in: PixPayment{
			Key: "a.very.long.address.for.a.pix.key.indeed@subdomain.example.com.br", Name: "Иван", Amount: brl("0.01"), Description: "fracti-0f1e2d3c4b5a69788796a5b4c3d2e1f0",
		}, want: "00020126870014br.gov.bcb.pix0165a.very.long.address.for.a.pix.key.indeed@subdomain.example.com.br52040000530398654040.015802BR5909RECEBEDOR6006BRASIL62070503***63041CCF"},
		{name: "not BRL", in: PixPayment{Key: "52998224725", Amount: eur("1.00")}, err: ErrRail},
		{name: "zero", in: PixPayment{Key: "52998224725", Amount: brl("0.00")}, err: ErrRail},
		{name: "too large", in: PixPayment{Key: "52998224725", Amount: brl("10000000000.00")}, err: ErrRail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := BRCode(tc.in)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
