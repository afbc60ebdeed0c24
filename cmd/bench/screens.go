package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/screens"
)

// byIDCount is how many expenses the byid screen asks for in one operation.
const byIDCount = 50

// screen is one screen of the app, served two ways: by the API server and by
// the raw SDK client a hand-written backend would be.
type screen struct {
	name string
	// server and raw each serve the screen once; check asks for a full
	// validation of the response rather than the cheap one timed runs use.
	server, raw           func(ctx context.Context, check bool) error
	serverCalls, rawCalls *dynamotest.Counter
	// beforeRaw, when set, readies the raw side once the server's side is
	// measured (a write screen's replay of what the server wrote).
	beforeRaw func(context.Context) error
}

// buildScreen wires the named screen to both sides.
func buildScreen(name string, data *seeded, srv *serverSide, raw *rawClient) screen {
	sc := screen{name: name, serverCalls: srv.calls, rawCalls: raw.calls}
	var body []byte
	switch name {
	case "group":
		body = requestBody(screens.Group, map[string]any{"g": data.bigGroup})
		sc.raw = func(ctx context.Context, _ bool) error { return raw.group(ctx, data.bigGroup) }
	case "home":
		body = requestBody(screens.Home, nil)
		sc.raw = func(ctx context.Context, _ bool) error { return raw.home(ctx) }
	case "owes":
		body = requestBody(screens.Owes, nil)
		sc.raw = func(ctx context.Context, _ bool) error { return raw.owes(ctx) }
	case "byid":
		ids := data.expenseIDs[:byIDCount]
		body = requestBody(screens.ByID, map[string]any{"ids": ids})
		sc.raw = func(ctx context.Context, _ bool) error { return raw.byID(ctx, ids) }
	}
	sc.server = func(ctx context.Context, check bool) error { return srv.do(ctx, body, check) }
	return sc
}

// requestBody is the JSON body of a GraphQL POST.
func requestBody(query string, vars map[string]any) []byte {
	b, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		panic(err) // strings and maps of strings always marshal
	}
	return b
}

// serverSide is the API's HTTP handler, called in-process as a client
// would call it over HTTP, signed in as the viewer.
type serverSide struct {
	handler http.Handler
	auth    string // the Authorization header
	calls   *dynamotest.Counter
}

// do sends one GraphQL request. Every response must have data and no
// errors; check also decodes it and requires every root field to be non-null
// (a group or expense the viewer cannot see comes back as null).
func (s *serverSide) do(ctx context.Context, body []byte, check bool) error {
	out, err := s.response(ctx, body)
	if err != nil {
		return err
	}
	if !check {
		// The cheap check of timed runs: decoding the response would put
		// the client's work on the server's bill.
		if bytes.Contains(out, []byte(`"errors":`)) || !bytes.Contains(out, []byte(`"data":{`)) {
			return fmt.Errorf("GraphQL errors or no data: %s", truncate(out))
		}
		return nil
	}
	var resp struct {
		Data   map[string]json.RawMessage `json:"data"`
		Errors []json.RawMessage          `json:"errors"`
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		return fmt.Errorf("response is not JSON: %w: %s", err, truncate(out))
	}
	if len(resp.Errors) > 0 {
		return fmt.Errorf("GraphQL errors: %s", truncate(out))
	}
	if len(resp.Data) == 0 {
		return errors.New("response has no data")
	}
	for field, v := range resp.Data {
		if string(v) == "null" {
			return fmt.Errorf("%s is null: %s", field, truncate(out))
		}
	}
	return nil
}

// response sends one GraphQL request and returns the body of its 200 OK.
func (s *serverSide) response(ctx context.Context, body []byte) ([]byte, error) {
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", s.auth)
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	out := rec.Body.Bytes()
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %s", rec.Code, truncate(out))
	}
	return out, nil
}

// truncate keeps error messages readable.
func truncate(b []byte) string {
	const max = 600
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
