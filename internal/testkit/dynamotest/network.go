package dynamotest

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/fracti/api/store"
)

// Outage is how a Network fails.
type Outage int

// The outages a Network can stage, each as the client's side of a real one sees it.
const (
	// Up passes every connection through to DynamoDB Local.
	Up Outage = iota
	// Refused listens no more: connecting is refused.
	Refused
	// Reset accepts a connection, reads the request and resets the
	// connection (TCP RST) instead of answering.
	Reset
	// ServerError answers every request as DynamoDB does when it fails
	// on its side: HTTP 500 with an InternalServerError, without passing
	// it on.
	ServerError
	// Hang reads requests and never answers them.
	Hang
	// AnswerLost passes each request on to DynamoDB Local, which carries
	// it out; it returns the answers of reads, and resets the connection
	// instead of returning the answer of a write: the write is done but
	// the client cannot know.
	AnswerLost
)

// Network stands between a client and DynamoDB Local as the network does,
// and stages the outages DynamoDB Local cannot: the client sees real
// refused, reset and hanging connections and real HTTP 500 answers, through
// the SDK's own transport, deserializers and retryer.
type Network struct {
	target string // DynamoDB Local's host:port
	addr   string // where clients connect

	mu    sync.Mutex
	mode  Outage
	ln    net.Listener // nil while Refused
	conns map[net.Conn]struct{}
	done  bool
	wg    sync.WaitGroup

	lost atomic.Int32 // requests carried out whose answer was lost
}

// NewNetwork starts a Network in front of the tests' DynamoDB Local, Up,
// and stops it when the test ends.
func NewNetwork(t testing.TB) *Network {
	t.Helper()
	target, err := url.Parse(Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	n := &Network{target: target.Host, addr: ln.Addr().String(), conns: map[net.Conn]struct{}{}}
	n.serve(ln)
	t.Cleanup(n.close)
	return n
}

// Endpoint is the URL clients use to reach DynamoDB Local through the network.
func (n *Network) Endpoint() string { return "http://" + n.addr }

// Client is a store client (store.NewClient, with its retryer) that
// reaches DynamoDB Local through the network; attemptTimeout bounds each
// try (0: the default).
func (n *Network) Client(t testing.TB, attemptTimeout time.Duration, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	t.Helper()
	db, err := store.NewClient(context.Background(), store.ClientConfig{Endpoint: n.Endpoint(), AttemptTimeout: attemptTimeout}, optFns...)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// Set stages an outage (or ends it with Up). Every open connection is
// closed, so that none a client keeps for reuse carries the old behaviour.
func (n *Network) Set(o Outage) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.mode = o
	for c := range n.conns {
		_ = c.Close()
	}
	switch {
	case o == Refused && n.ln != nil:
		_ = n.ln.Close()
		n.ln = nil
	case o != Refused && n.ln == nil:
		// The same address again: clients know no other.
		ln, err := net.Listen("tcp", n.addr)
		if err != nil {
			panic("dynamotest: listen again on " + n.addr + ": " + err.Error())
		}
		n.serveLocked(ln)
	}
}

// LostAnswers is how many writes AnswerLost passed on to DynamoDB Local
// and answered with a reset.
func (n *Network) LostAnswers() int { return int(n.lost.Load()) }

func (n *Network) serve(ln net.Listener) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.serveLocked(ln)
}

func (n *Network) serveLocked(ln net.Listener) {
	n.ln = ln
	n.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mode, ok := n.track(c)
			if !ok {
				_ = c.Close()
				return
			}
			n.wg.Go(func() {
				defer n.untrack(c)
				n.handle(c, mode)
			})
		}
	})
}

// track registers a new connection and tells the mode it gets; false once
// the network is closed.
func (n *Network) track(c net.Conn) (Outage, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.done {
		return 0, false
	}
	n.conns[c] = struct{}{}
	return n.mode, true
}

func (n *Network) untrack(c net.Conn) {
	_ = c.Close()
	n.mu.Lock()
	delete(n.conns, c)
	n.mu.Unlock()
}

func (n *Network) close() {
	n.mu.Lock()
	n.done = true
	if n.ln != nil {
		_ = n.ln.Close()
	}
	for c := range n.conns {
		_ = c.Close()
	}
	n.mu.Unlock()
	n.wg.Wait()
}

// handle serves one client connection as mode says.
func (n *Network) handle(c net.Conn, mode Outage) {
	switch mode {
	case Up:
		n.pass(c)
	case Reset:
		if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
			reset(c)
		}
	case ServerError:
		r := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(r)
			if err != nil {
				return
			}
			_, _ = io.Copy(io.Discard, req.Body)
			if writeServerError(c) != nil {
				return
			}
		}
	case Hang:
		_, _ = io.Copy(io.Discard, c) // until the client gives up, or Set
	case AnswerLost:
		n.loseAnswer(c)
	}
}

// pass splices the connection to DynamoDB Local both ways.
func (n *Network) pass(c net.Conn) {
	up, ok := n.dial()
	if !ok {
		return
	}
	defer n.untrack(up)
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(up, c)
		_ = up.Close()
		close(done)
	}()
	_, _ = io.Copy(c, up)
	_ = c.Close()
	<-done
}

// dial connects to DynamoDB Local and registers the connection, so that
// Set closes it too; false when that failed or the network is closed.
func (n *Network) dial() (net.Conn, bool) {
	up, err := net.Dial("tcp", n.target)
	if err != nil {
		return nil, false
	}
	if _, ok := n.track(up); !ok {
		_ = up.Close()
		return nil, false
	}
	return up, true
}

// loseAnswer passes requests on and returns the answers of reads; for a
// write it waits for DynamoDB Local's answer, so that the write was surely
// carried out, and resets the client's connection instead of returning it.
func (n *Network) loseAnswer(c net.Conn) {
	up, ok := n.dial()
	if !ok {
		return
	}
	defer n.untrack(up)
	in, answers := bufio.NewReader(c), bufio.NewReader(up)
	for {
		req, err := http.ReadRequest(in)
		if err != nil {
			return
		}
		if err := req.Write(up); err != nil {
			return
		}
		res, err := http.ReadResponse(answers, req)
		if err != nil {
			return
		}
		if writes[strings.TrimPrefix(req.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")] {
			_, _ = io.Copy(io.Discard, res.Body)
			_ = res.Body.Close()
			n.lost.Add(1)
			reset(c)
			return
		}
		err = res.Write(c)
		_ = res.Body.Close()
		if err != nil {
			return
		}
	}
}

// writes are the DynamoDB operations that change items.
var writes = map[string]bool{
	"PutItem": true, "UpdateItem": true, "DeleteItem": true, "BatchWriteItem": true, "TransactWriteItems": true,
}

// reset ends a connection with a TCP RST rather than an orderly close: the
// peer's next read or write fails with "connection reset by peer".
func reset(c net.Conn) {
	if tcp, ok := c.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = c.Close()
}

// serverErrorBody is DynamoDB's answer when it fails on its side.
const serverErrorBody = `{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError",` +
	`"message":"Internal server error"}`

func writeServerError(w io.Writer) error {
	res := &http.Response{
		StatusCode: http.StatusInternalServerError, ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{
			"Content-Type":     {"application/x-amz-json-1.0"},
			"X-Amzn-Requestid": {"OUTAGE0000000000000000000000000000000000000000000000"},
		},
		ContentLength: int64(len(serverErrorBody)),
		Body:          io.NopCloser(strings.NewReader(serverErrorBody)),
	}
	res.Header.Set("Content-Length", strconv.Itoa(len(serverErrorBody)))
	return res.Write(w)
}
