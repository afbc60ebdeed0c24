package httpapi_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Payment handles are personal data: setting them, being refused them and
// reading them back as handles and as payment options leaves none of their
// values in the server's log, at DEBUG.
func TestPaymentHandlesNeverLogged(t *testing.T) {
	a := newAttacked(t)
	const set = `mutation($g: ID, $h: PaymentHandlesInput) { updatePaymentHandles(groupId: $g, handles: $h) { source upi } }`
	values := map[string]any{
		"iban": "DE89 3704 0044 0532 0130 00", "bic": "COBADEFFXXX", "accountHolder": "Alice Secretname",
		"upi": "alice.secret@okaxis", "pix": "529.982.247-25", "pixCity": "Secretcity", "revolut": "alicesecret",
		"paypal": "AliceSecret", "other": "my secret sort code 12-34-56",
	}
	for _, g := range []any{nil, a.group} {
		res := a.send(request{authorization: a.alice, body: gql(set, map[string]any{"g": g, "h": values})})
		require.Empty(t, res.errors, res.body)
	}
	refused := a.send(request{authorization: a.alice, body: gql(set, map[string]any{"h": map[string]any{"iban": "DE89370400440532013001", "upi": "alice.secret@okaxis"}})})
	require.Equal(t, "BAD_USER_INPUT", refused.code())
	res := a.send(request{authorization: a.alice, body: gql(`query($g: ID!) { group(id: $g) { members { nodes { paymentHandles {
		bankAccount { iban } upi pix { key } revolut paypal other } } } } }`, map[string]any{"g": a.group})})
	require.Empty(t, res.errors, res.body)
	require.Contains(t, res.body, "DE89370400440532013000")

	logs := a.log.String()
	require.NotEmpty(t, logs)
	for _, v := range []string{"DE89", "0532013000", "Secretname", "alice.secret", "52998224725", "529.982", "Secretcity", "alicesecret", "AliceSecret", "secret sort code", "12-34-56"} {
		require.False(t, strings.Contains(logs, v), "%q is in the log", v)
	}
}
