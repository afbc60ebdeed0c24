package httpapi_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
)

// TestPaymentPayloadsDecoded runs e2e/payments.test.mjs: every payment
// option a settlement offers, read through the API and decoded by libraries
// that are not ours (pix-utils for BR Codes and their CRC, ibantools for
// IBANs and BICs, the EPC QR code element by element from EPC069-12, Node's
// WHATWG URL for the UPI, Revolut, PayPal.me and TON links), and the API's
// verdict on IBANs and BICs held against ibantools'.
func TestPaymentPayloadsDecoded(t *testing.T) {
	dir := e2eDir(t)
	for _, pkg := range []string{"pix-utils", "ibantools"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg)); err != nil {
			t.Fatalf("%s is not installed in e2e/: run `npm ci --prefix e2e` (make test does)", pkg)
		}
	}
	api := apitest.New(t)
	runNode(t, dir, "payments.test.mjs", api.URL(), api.Store)
}
