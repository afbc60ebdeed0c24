package httpapi_test

import (
	"net/http"
	"net/http/httptest"

	"github.com/fracti/api/money"
)

func httptestServer(h http.Handler) *httptest.Server { return httptest.NewServer(h) }

func usd() money.Currency { return money.MustCurrency("USD") }

func strPtr(s string) *string { return &s }
