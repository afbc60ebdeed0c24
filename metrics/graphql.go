package metrics

import (
	"regexp"
	"strconv"
	"sync"
	"time"
)

// MaxOperationNames is how many distinct operation names an instance gives
// a label of their own; names first seen after that are counted as
// OtherOperation. Clients choose the names, so without a bound a client
// could make the server keep any number of series.
const MaxOperationNames = 200

// Label values of operations that have no name of their own. Neither can be
// a GraphQL name, so neither is mistaken for one.
const (
	// AnonymousOperation labels operations without a name.
	AnonymousOperation = "(anonymous)"
	// OtherOperation labels operations whose name is not a plain GraphQL
	// name of at most 64 characters, or came after MaxOperationNames others.
	OtherOperation = "(other)"
	// unknownType labels requests refused before an operation was found
	// in their document.
	unknownType = "unknown"
)

// Request is what the metrics learn of one GraphQL request over HTTP.
type Request struct {
	// Operation is the operation's name ("" when anonymous).
	Operation string
	// Type is query, mutation or subscription; "" when the request was
	// refused before an operation was found in a valid document. Only
	// such a found operation's name can take one of the MaxOperationNames
	// labels; the others use a label already taken, or OtherOperation.
	Type string
	// Status is the HTTP status of the response.
	Status int
	// Failed says the response carried at least one error.
	Failed bool
	// Duration is how long the request took to answer.
	Duration time.Duration
	// DynamoDBCalls is how many DynamoDB calls the request made.
	DynamoDBCalls int
	// CapacityUnits is the capacity DynamoDB reported its calls consumed
	// (RequestCapacity).
	CapacityUnits float64
}

// ObserveRequest counts one GraphQL request over HTTP and records its
// duration, DynamoDB calls and the capacity they consumed.
func (m *Metrics) ObserveRequest(r Request) {
	if m == nil {
		return
	}
	op := m.operations.label(r.Operation, r.Type != "")
	typ := r.Type
	if typ == "" {
		typ = unknownType
	}
	outcome := "ok"
	if r.Failed {
		outcome = "error"
	}
	m.requests.WithLabelValues(op, typ, strconv.Itoa(r.Status), outcome).Inc()
	m.requestDuration.WithLabelValues(op, typ).Observe(r.Duration.Seconds())
	m.requestCalls.WithLabelValues(op, typ).Observe(float64(r.DynamoDBCalls))
	m.requestCapacity.WithLabelValues(op, typ).Add(r.CapacityUnits)
}

// errorCode is the shape of the codes the server puts in extensions.code.
var errorCode = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,63}$`)

// CountError counts one error returned to a client, by its extensions.code
// (a code of another shape, which the server never makes, counts as OTHER).
func (m *Metrics) CountError(code string) {
	if m == nil {
		return
	}
	if !errorCode.MatchString(code) {
		code = "OTHER"
	}
	m.errors.WithLabelValues(code).Inc()
}

// plainName is a GraphQL name short enough for a label.
var plainName = regexp.MustCompile(`^[_A-Za-z][_0-9A-Za-z]{0,63}$`)

// operationNames hands out operation labels: the first max distinct plain
// names keep their own, for as long as the process runs.
type operationNames struct {
	max   int
	mu    sync.RWMutex
	known map[string]struct{}
}

func newOperationNames(max int) *operationNames {
	return &operationNames{max: max, known: map[string]struct{}{}}
}

// label is the label for an operation's name. A name not known yet takes a
// label of its own only when admit is set (the operation was found in a
// valid document) and fewer than max names have one.
func (n *operationNames) label(name string, admit bool) string {
	switch {
	case name == "":
		return AnonymousOperation
	case !plainName.MatchString(name):
		return OtherOperation
	}
	n.mu.RLock()
	_, ok := n.known[name]
	n.mu.RUnlock()
	if ok {
		return name
	}
	if !admit {
		return OtherOperation
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.known[name]; !ok {
		if len(n.known) >= n.max {
			return OtherOperation
		}
		n.known[name] = struct{}{}
	}
	return name
}
