package dynamotest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Call is one call a Recorder passed on.
type Call struct {
	// Service is DynamoDB or DynamoDBStreams.
	Service string
	// Operation is the API's name for it: GetItem, TransactWriteItems,
	// GetRecords, …
	Operation string
	// Tables are the tables it names (TableName, BatchGetItem's
	// RequestItems, a transaction's items), Index the index it queries.
	Tables []string
	Index  string
	// ResourceARN is TagResource's and ListTagsOfResource's; StreamARN is
	// DescribeStream's and GetShardIterator's.
	ResourceARN string
	StreamARN   string
	// TransactItems are a transaction's items by kind, one per item: Put,
	// Update, Delete, ConditionCheck (writes) or Get (reads).
	TransactItems []TransactItem
}

// TransactItem is one item of a transaction: its kind and table.
type TransactItem struct {
	Kind  string
	Table string
}

// Recorder is a proxy in front of DynamoDB Local that records every call
// passing through it, DynamoDB's and DynamoDB Streams'. A test points at
// its URL (as DYNAMODB_ENDPOINT) whatever builds its own clients, such as
// the server's serve or a command, and sees exactly the calls it made.
type Recorder struct {
	// URL is the proxy's address.
	URL string

	mu    sync.Mutex
	calls []Call
}

// NewRecorder starts a recording proxy to DynamoDB Local until the test ends.
func NewRecorder(t testing.TB) *Recorder {
	t.Helper()
	target, err := url.Parse(Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	r := &Recorder{}
	proxy := httputil.NewSingleHostReverseProxy(target)
	// Passed on byte for byte: the SDK checks the body against its checksum.
	proxy.Transport = &http.Transport{DisableCompression: true}
	// A client that gives up (a stream read cut short by shutdown) is no error.
	proxy.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, _ error) { w.WriteHeader(http.StatusBadGateway) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		r.record(req.Header.Get("X-Amz-Target"), body)
		proxy.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// Calls returns the calls recorded since the last Reset, in order.
func (r *Recorder) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// Reset forgets the calls recorded so far.
func (r *Recorder) Reset() {
	r.mu.Lock()
	r.calls = nil
	r.mu.Unlock()
}

// record notes a call from its X-Amz-Target header (such as
// "DynamoDB_20120810.GetItem") and its JSON body.
func (r *Recorder) record(target string, body []byte) {
	service, op, ok := strings.Cut(target, ".")
	if !ok {
		return
	}
	service, _, _ = strings.Cut(service, "_")
	var in struct {
		TableName     string
		IndexName     string
		ResourceArn   string
		StreamArn     string
		RequestItems  map[string]json.RawMessage
		TransactItems []map[string]struct{ TableName string }
	}
	_ = json.Unmarshal(body, &in)
	c := Call{Service: service, Operation: op, Index: in.IndexName, ResourceARN: in.ResourceArn, StreamARN: in.StreamArn}
	if in.TableName != "" {
		c.Tables = append(c.Tables, in.TableName)
	}
	for table := range in.RequestItems {
		c.Tables = append(c.Tables, table)
	}
	for _, item := range in.TransactItems {
		for kind, v := range item {
			c.TransactItems = append(c.TransactItems, TransactItem{Kind: kind, Table: v.TableName})
		}
	}
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
}
