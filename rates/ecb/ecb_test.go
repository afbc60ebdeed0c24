package ecb_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fracti/api/rates"
	"github.com/fracti/api/rates/ecb"
)

func recorded(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	return b
}

// serve answers every request with status and body, as the ECB's server would.
func serve(t *testing.T, status int, body []byte) *ecb.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/xml")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return &ecb.Client{URL: srv.URL + "/stats/eurofxref/eurofxref-daily.xml", HTTP: &http.Client{Timeout: 2 * time.Second}}
}

func TestFetchRecordedFiles(t *testing.T) {
	for _, tc := range []struct {
		file, date string
		n          int
		want       map[string]string
	}{
		{"eurofxref-daily-2024-06-28.xml", "2024-06-28", 30, map[string]string{
			"USD": "1.0705", "JPY": "171.94", "GBP": "0.84638", "HUF": "395.10", "IDR": "17487.21", "CHF": "0.9634", "BGN": "1.9558",
		}},
		{"eurofxref-daily-2022-03-15.xml", "2022-03-15", 31, map[string]string{
			"USD": "1.0991", "DKK": "7.4410", "HRK": "7.5750", "KRW": "1366.05",
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			q, err := serve(t, http.StatusOK, recorded(t, tc.file)).Fetch(context.Background())
			require.NoError(t, err)
			assert.Equal(t, "ECB", q.Provider)
			assert.Equal(t, "EUR", q.Base)
			assert.Equal(t, tc.date, q.Date, "the publication day, from <Cube time>")
			assert.Len(t, q.Prices, tc.n)
			for code, want := range tc.want {
				// The figure keeps its written decimals ("395.10").
				assert.Equal(t, want, q.Prices[code].String(), code)
			}
		})
	}
}

func TestParseShapes(t *testing.T) {
	daily := string(recorded(t, "eurofxref-daily-2024-06-28.xml"))
	without := strings.Replace(daily, "\t\t\t<Cube currency='BGN' rate='1.9558'/>\n", "", 1)
	require.NotEqual(t, daily, without)
	q, err := ecb.Parse([]byte(without))
	require.NoError(t, err)
	_, listed := q.Prices["BGN"]
	assert.False(t, listed, "a currency the ECB stopped listing is not in the table")

	// A history file holds several days: the latest is the table.
	hist := strings.Replace(daily, "<Cube>\n", "<Cube>\n<Cube time='2024-06-27'><Cube currency='USD' rate='1.0713'/></Cube>\n", 1)
	q, err = ecb.Parse([]byte(hist))
	require.NoError(t, err)
	assert.Equal(t, "2024-06-28", q.Date)
	assert.Equal(t, "1.0705", q.Prices["USD"].String())

	// Bad figures are left out, the rest stays usable.
	bad := strings.NewReplacer("rate='1.0705'", "rate='1,0705'", "rate='171.94'", "rate='0'", "currency='CZK'", "currency='XYZ'").Replace(daily)
	q, err = ecb.Parse([]byte(bad))
	require.NoError(t, err)
	for _, code := range []string{"USD", "JPY", "CZK", "XYZ"} {
		_, ok := q.Prices[code]
		assert.False(t, ok, code)
	}
	assert.Equal(t, "0.84638", q.Prices["GBP"].String())

	for name, body := range map[string]string{
		"not XML":     `{"rates":{}}`,
		"no day":      `<Envelope><Cube></Cube></Envelope>`,
		"a bad day":   `<Envelope><Cube><Cube time="28/06/2024"><Cube currency="USD" rate="1.07"/></Cube></Cube></Envelope>`,
		"no rates":    `<Envelope><Cube><Cube time="2024-06-28"></Cube></Cube></Envelope>`,
		"HTML errors": `<html><body>Service unavailable</body></html>`,
	} {
		_, err := ecb.Parse([]byte(body))
		assert.Error(t, err, name)
	}
}

func TestFetchFailures(t *testing.T) {
	_, err := serve(t, http.StatusServiceUnavailable, []byte("down")).Fetch(context.Background())
	var se *rates.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, http.StatusServiceUnavailable, se.Status)

	// A server that never answers is cut off by the client's timeout.
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	c := &ecb.Client{URL: srv.URL, HTTP: &http.Client{Timeout: 50 * time.Millisecond}}
	_, err = c.Fetch(context.Background())
	require.Error(t, err)
}
