package apitest

import (
	"time"

	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/tonapi"
	"github.com/fracti/api/tonverify"
)

// TON verifies TON payments against the TON API at url (a tontest.Chain's),
// on the clock now (nil: the real time).
func TON(url string, now func() time.Time) Option {
	return func(c *httpapi.Config) {
		c.TON = &tonverify.Verifier{Store: c.Store, API: tonapi.New(url, "", time.Second), Now: now}
	}
}
