package httpapi_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/fracti/api/exchange/fractijson"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/stretchr/testify/require"
)

// A table that fails before the file starts is an error answer, never a
// file; one that fails midway breaks the download, never a file that
// looks whole.
func TestExportWhenTheTableFails(t *testing.T) {
	var failFrom atomic.Int64 // fail every Query from this one on (0: none)
	var queries atomic.Int64
	fault := dynamotest.NewFault(func(op string, _ int) error {
		if op != "Query" {
			return nil
		}
		if n := queries.Add(1); failFrom.Load() > 0 && n >= failFrom.Load() {
			return errors.New("injected failure")
		}
		return nil
	})
	api := apitest.NewWithClientOptions(t, []func(*dynamodb.Options){fault.Option()})
	alice := api.User("111", "Alice")
	g := alice.CreateGroup("Trip")
	alice.Expense(g, "10.00", "111")

	for _, format := range []string{"json", "csv"} {
		failFrom.Store(queries.Load() + 1) // the first list
		res := alice.Get("/export/groups/" + g + "." + format)
		require.Equal(t, http.StatusInternalServerError, res.Code, format)
		require.Empty(t, res.Header().Get("Content-Disposition"), format)
		require.Equal(t, "application/json", res.Header().Get("Content-Type"), format)
		require.Contains(t, res.Body.String(), `"code":"INTERNAL_SERVER_ERROR"`, format)
		require.NotContains(t, res.Body.String(), "injected", "no internal detail")
	}

	// JSON: the members go out, the expenses' Query fails.
	failFrom.Store(queries.Load() + 2)
	req, err := http.NewRequest(http.MethodGet, api.BaseURL()+"/export/groups/"+g+".json", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", alice.Header())
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.Error(t, err, "the download breaks: %s", body)
	require.Contains(t, string(body), `"members":[`)
	require.NotContains(t, string(body), `"balances"`)
}

// A settlement completed while an export is read, after its settlements
// were read: the file still adds up (the CSV's Total balance rows are the
// sums of the rows above them; the JSON's balances are what its expenses and
// settlements make), as an import that checks itself against them
// requires; the next export has the payment and the new balances.
func TestExportAddsUpWhenTheGroupChangesMeanwhile(t *testing.T) {
	var armed, done atomic.Bool
	var queries atomic.Int64
	var pay func()
	fault := dynamotest.NewFault(func(op string, _ int) error {
		if !armed.Load() || done.Load() {
			return nil
		}
		// Memberships, expenses and settlements are read: whatever comes
		// next (the JSON's comments, the CSV's balances) comes after a payment.
		if queries.Load() >= 3 {
			done.Store(true)
			pay()
			return nil
		}
		if op == "Query" {
			queries.Add(1)
		}
		return nil
	})
	api := apitest.NewWithClientOptions(t, []func(*dynamodb.Options){fault.Option()})
	alice, bob := api.User("111", "Alice"), api.User("112", "Bob")
	g := alice.CreateGroup("Trip")
	bob.Join(g)
	alice.Expense(g, "10.00", "111", "112")
	pay = func() {
		alice.Must(nil, `mutation($in: CreateSettlementInput!) { createSettlement(input: $in) { id } }`,
			"in", map[string]any{"groupId": g, "fromUserId": "112", "amount": "1.00", "status": "COMPLETED"})
	}
	midway := func(format string) string {
		t.Helper()
		queries.Store(0)
		done.Store(false)
		armed.Store(true)
		defer armed.Store(false)
		res := alice.Get("/export/groups/" + g + "." + format)
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
		require.True(t, done.Load(), "a settlement was made while the file was read")
		return strings.TrimPrefix(res.Body.String(), "\uFEFF")
	}

	body := midway("csv")
	require.NotContains(t, body, "Payment", "read before the payment")
	require.Contains(t, body, ",Total balance, , ,USD,5.00,-5.00\n", "the rows' sum, not the balances after the payment")
	body = alice.Get("/export/groups/" + g + ".csv").Body.String()
	require.Contains(t, body, ",Bob paid Alice,Payment,1.00,USD,-1.00,1.00\n")
	require.Contains(t, body, ",Total balance, , ,USD,4.00,-4.00\n")

	var doc fractijson.Document
	require.NoError(t, json.Unmarshal([]byte(midway("json")), &doc))
	require.Len(t, doc.Settlements, 1, "the first payment, read before the second")
	require.Equal(t, []fractijson.Balance{{MemberID: "111", Currency: "USD", Amount: "4.00"}, {MemberID: "112", Currency: "USD", Amount: "-4.00"}},
		doc.Balances, "what the file's expense and settlement make")
}
