package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/quota"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// send sends an operation and returns the HTTP status, the Retry-After
// header and the decoded body.
func send(t *testing.T, url, header, query string, headers ...string) (int, string, response) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query})
	req, _ := http.NewRequest(http.MethodPost, url+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if header != "" {
		req.Header.Set("Authorization", header)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var out response
	require.NoError(t, json.NewDecoder(res.Body).Decode(&out))
	return res.StatusCode, res.Header.Get("Retry-After"), out
}

func quotaServer(t *testing.T, limits quota.Limits) (url, bearer string) {
	t.Helper()
	s := store.New(dynamotest.Client(t), dynamotest.Table(t), store.Options{})
	token, err := auth.NewToken()
	require.NoError(t, err)
	_, err = s.CreateToken(context.Background(), store.Token{Hash: auth.HashToken(token), UserID: "111", Name: "Alice"})
	require.NoError(t, err)
	return serve(t, httpapi.Config{Store: s, Quota: limits, ClientIPHeader: "X-Forwarded-For"}), "Bearer " + token
}

// Lowering the daily limit of writes to three: the fourth mutation is
// refused with RATE_LIMITED, HTTP 429 and Retry-After, and writes nothing;
// reads go on until their own limit.
func TestDailyQuota(t *testing.T) {
	url, alice := quotaServer(t, quota.Limits{ReadsPerDay: 6, WritesPerDay: 3, Sample: 1})
	const create = `mutation { createGroup(input: {title: "Trip", currency: "USD"}) { id } }`
	for range 3 {
		status, _, res := send(t, url, alice, create)
		require.Equal(t, http.StatusOK, status)
		require.Empty(t, res.Errors)
	}
	status, retry, res := send(t, url, alice, create)
	require.Equal(t, http.StatusTooManyRequests, status)
	require.Equal(t, "RATE_LIMITED", res.Errors[0].Extensions["code"])
	seconds, err := strconv.Atoi(retry)
	require.NoError(t, err)
	require.Positive(t, seconds)
	require.LessOrEqual(t, seconds, 24*3600, "until the day ends")
	require.Equal(t, float64(seconds), res.Errors[0].Extensions["retryAfter"])
	require.Contains(t, res.Errors[0].Message, "daily limit of 3 writes")
	require.Nil(t, res.Data)

	var me struct {
		Me struct {
			Groups struct{ Nodes []struct{ ID string } }
			Usage  struct {
				Reads, Writes         int
				ReadLimit, WriteLimit *int
				Day, ResetsAt         string
			}
		}
	}
	status, _, res = send(t, url, alice, `{ me { groups { nodes { id } } usage { reads writes readLimit writeLimit day resetsAt } } }`)
	require.Equal(t, http.StatusOK, status)
	require.NoError(t, json.Unmarshal(res.Data, &me))
	require.Len(t, me.Me.Groups.Nodes, 3, "the refused mutation wrote nothing")
	require.Equal(t, 3, me.Me.Usage.Writes)
	require.Equal(t, 1, me.Me.Usage.Reads, "this query counts")
	require.Equal(t, 6, *me.Me.Usage.ReadLimit)
	require.Equal(t, 3, *me.Me.Usage.WriteLimit)

	for range 5 {
		status, _, _ = send(t, url, alice, `{ me { id } }`)
		require.Equal(t, http.StatusOK, status)
	}
	status, _, res = send(t, url, alice, `{ me { id } }`)
	require.Equal(t, http.StatusTooManyRequests, status)
	require.Contains(t, res.Errors[0].Message, "daily limit of 6 reads")
}

// Without credentials (or with bad ones) a client address gets a few
// requests a minute; another address has its own.
func TestAnonymousRateLimit(t *testing.T) {
	url, alice := quotaServer(t, quota.Limits{AnonymousPerMinute: 3})
	const typename = `{ __typename }`
	status, _, _ := send(t, url, "", typename, "X-Forwarded-For", "198.51.100.7")
	require.Equal(t, http.StatusOK, status)
	status, _, _ = send(t, url, "Bearer frt_aP0LINc6Ai1Z5uSYudHEK99CjpY7qHB8euhfn3KNhaM", `{ me { id } }`, "X-Forwarded-For", "198.51.100.7")
	require.Equal(t, http.StatusOK, status, "an unknown token is answered UNAUTHENTICATED, and counted")
	status, _, _ = send(t, url, "", typename, "X-Forwarded-For", "10.0.0.1, 198.51.100.7")
	require.Equal(t, http.StatusOK, status)

	status, retry, res := send(t, url, "", typename, "X-Forwarded-For", "198.51.100.7")
	require.Equal(t, http.StatusTooManyRequests, status)
	require.Equal(t, "20", retry, "one request every 20 s")
	require.Equal(t, "RATE_LIMITED", res.Errors[0].Extensions["code"])

	status, _, _ = send(t, url, "", typename, "X-Forwarded-For", "198.51.100.8")
	require.Equal(t, http.StatusOK, status, "another address")
	status, _, _ = send(t, url, alice, typename, "X-Forwarded-For", "198.51.100.7")
	require.Equal(t, http.StatusOK, status, "a signed-in user is counted by their own quota")
}
