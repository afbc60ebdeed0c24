package httpapi_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// /export/me.json carries the person's payment handles: their default with
// the profile, a group's own set with its membership; after an erasure,
// none is left to export.
func TestExportMePaymentHandles(t *testing.T) {
	f := newExportFixture(t)
	bob := f.api.TelegramUser(222, "Bob", "Builder", "bob")
	bob.Join(f.groupID)
	const set = `mutation($g: ID, $h: PaymentHandlesInput) { updatePaymentHandles(groupId: $g, handles: $h) { source } }`
	bob.Must(nil, set, "h", map[string]any{"iban": "GB29 NWBK 6016 1331 9268 19", "accountHolder": "Bob Builder", "other": "cash"})
	bob.Must(nil, set, "g", f.groupID, "h", map[string]any{"pix": "52998224725", "pixCity": "Rio"})

	type handles struct{ IBAN, AccountHolder, Pix, PixType, PixCity, Other string }
	var doc struct {
		Profile *struct {
			PaymentHandles *handles
		}
		Memberships []struct {
			GroupID        string
			PaymentHandles *handles
		}
	}
	res := bob.Get("/export/me.json")
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	require.NoError(t, json.Unmarshal(res.Body.Bytes(), &doc))
	require.Equal(t, &handles{IBAN: "GB29NWBK60161331926819", AccountHolder: "Bob Builder", Other: "cash"}, doc.Profile.PaymentHandles)
	require.Len(t, doc.Memberships, 1)
	require.Equal(t, &handles{Pix: "52998224725", PixType: "CPF", PixCity: "Rio"}, doc.Memberships[0].PaymentHandles)

	bob.Must(nil, `mutation { eraseMyData(confirm: "ERASE") { groups } }`)
	again := f.api.TelegramUser(222, "Bob", "Builder", "bob")
	res = again.Get("/export/me.json")
	require.Equal(t, http.StatusOK, res.Code)
	require.NotContains(t, res.Body.String(), `"paymentHandles":{`, "the event of their change names kinds only")
	require.NotContains(t, res.Body.String(), "GB29NWBK60161331926819")
	require.NotContains(t, res.Body.String(), "52998224725")
}
