// Package tontest serves a TON HTTP API (toncenter v3) for tests: an
// httptest server answering /api/v3/transactions and
// /api/v3/transactionsByMessage from the recorded answers in
// tonapi/testdata, with the accounts, amounts, comments and hashes of the
// payments a test makes. Nothing reaches the network.
package tontest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/fracti/api/ton"
	"github.com/fracti/api/tonapi"
)

// Payment is a transfer a test puts on the chain.
type Payment struct {
	From, To ton.Account
	Nanotons string
	// Comment is the text comment; nil sends none.
	Comment *string
	// Bounced: the recipient refuses it and the coins come back.
	Bounced bool
}

// Chain is the fake API's chain.
type Chain struct {
	t   testing.TB
	srv *httptest.Server

	mu        sync.Mutex
	byHash    map[tonapi.Hash]map[string]any // a transaction answer by transaction hash
	byMessage map[tonapi.Hash]map[string]any // by the hash of its incoming message
	hidden    map[tonapi.Hash]int            // asks of a hash answered empty before it shows
	asks      map[tonapi.Hash]int
	transfer  map[tonapi.Hash]tonapi.Hash // the transfer message a recipient's transaction received
	down      bool
	n         int
	requests  int
	keys      []string
}

// New starts the fake API; it stops when the test ends.
func New(t testing.TB) *Chain {
	c := &Chain{t: t, byHash: map[tonapi.Hash]map[string]any{}, byMessage: map[tonapi.Hash]map[string]any{},
		hidden: map[tonapi.Hash]int{}, asks: map[tonapi.Hash]int{}, transfer: map[tonapi.Hash]tonapi.Hash{}}
	c.srv = httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(c.srv.Close)
	return c
}

// URL is the API's base URL, for tonapi.New.
func (c *Chain) URL() string { return c.srv.URL }

// Down makes every answer a 503 (true) or serves again (false).
func (c *Chain) Down(down bool) { c.mu.Lock(); c.down = down; c.mu.Unlock() }

// Requests counts the requests served.
func (c *Chain) Requests() int { c.mu.Lock(); defer c.mu.Unlock(); return c.requests }

// APIKeys lists the X-API-Key headers received, one per request.
func (c *Chain) APIKeys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.keys...)
}

// HideUntil makes the transactions endpoint answer empty (not indexed) for
// the hash until its ask number ask: HideUntil(h, 3) shows it at the third.
func (c *Chain) HideUntil(h tonapi.Hash, ask int) { c.mu.Lock(); c.hidden[h] = ask - 1; c.mu.Unlock() }

// HideRecipientUntil makes the recipient's transaction recipientTx (of a
// Pay) not indexed yet until the ask number ask, by its hash and by its
// transfer message's: the payer's side shows first, as on the chain.
func (c *Chain) HideRecipientUntil(recipientTx tonapi.Hash, ask int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hidden[recipientTx], c.hidden[c.transfer[recipientTx]] = ask-1, ask-1
}

// Pay puts a transfer on the chain: the payer's wallet transaction (an
// external order with the transfer in out_msgs) and the recipient's (the
// transfer as in_msg; aborted with a bounce back when p.Bounced). It returns
// both transactions' hashes.
func (c *Chain) Pay(p Payment) (payerTx, recipientTx tonapi.Hash) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	payerTx, recipientTx, transfer := c.hash("payer"), c.hash("recipient"), c.hash("transfer")
	from, to := raw(p.From), raw(p.To)

	payer := c.load("payer_tx.json")
	ptx := first(payer)
	ptx["account"], ptx["hash"] = from, b64(payerTx)
	in := ptx["in_msg"].(map[string]any)
	in["destination"], in["hash"] = from, b64(c.hash("external"))
	msg := first(ptx["out_msgs"].([]any))
	msg["hash"], msg["source"], msg["destination"], msg["value"] = b64(transfer), from, to, p.Nanotons
	content := msg["message_content"].(map[string]any)
	if p.Comment != nil {
		content["decoded"] = map[string]any{"type": "text_comment", "comment": *p.Comment}
	} else {
		content["decoded"], msg["opcode"], msg["decoded_opcode"] = nil, nil, nil
	}
	payer["address_book"] = book(p.From, p.To)

	name := "recipient_tx.json"
	if p.Bounced {
		name = "recipient_bounced.json"
	}
	recipient := c.load(name)
	rtx := first(recipient)
	rtx["account"], rtx["hash"] = to, b64(recipientTx)
	rtx["in_msg"] = clone(msg)
	for _, o := range rtx["out_msgs"].([]any) {
		back := o.(map[string]any)
		back["source"], back["destination"], back["hash"] = to, from, b64(c.hash("bounce"))
	}
	recipient["address_book"] = book(p.From, p.To)

	c.byHash[payerTx], c.byHash[recipientTx], c.byMessage[transfer] = payer, recipient, recipient
	c.transfer[recipientTx] = transfer
	return payerTx, recipientTx
}

// Ptr is a comment's pointer, for Payment.Comment.
func Ptr(s string) *string { return &s }

func (c *Chain) serve(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests++
	c.keys = append(c.keys, r.Header.Get("X-API-Key"))
	if c.down {
		http.Error(w, `{"error":"service unavailable"}`, http.StatusServiceUnavailable)
		return
	}
	var answer map[string]any
	switch r.URL.Path {
	case "/api/v3/transactions":
		h, err := tonapi.ParseHash(r.URL.Query().Get("hash"))
		if err != nil {
			http.Error(w, `{"error":"invalid hash"}`, http.StatusUnprocessableEntity)
			return
		}
		c.asks[h]++
		if c.asks[h] > c.hidden[h] {
			answer = c.byHash[h]
		}
	case "/api/v3/transactionsByMessage":
		h, err := tonapi.ParseHash(r.URL.Query().Get("msg_hash"))
		if err != nil || r.URL.Query().Get("direction") != "in" {
			http.Error(w, `{"error":"invalid msg_hash or direction"}`, http.StatusUnprocessableEntity)
			return
		}
		c.asks[h]++
		if c.asks[h] > c.hidden[h] {
			answer = c.byMessage[h]
		}
	default:
		http.NotFound(w, r)
		return
	}
	if answer == nil {
		answer = c.load("empty.json")
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(answer)
}

// load reads a recorded answer from tonapi/testdata.
func (c *Chain) load(name string) map[string]any {
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "testdata", name))
	if err != nil {
		c.t.Fatalf("tontest: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		c.t.Fatalf("tontest: %s: %v", name, err)
	}
	return m
}

func (c *Chain) hash(what string) tonapi.Hash {
	return sha256.Sum256([]byte(fmt.Sprintf("%s %d %s", c.t.Name(), c.n, what)))
}

func first(v any) map[string]any {
	if m, ok := v.(map[string]any); ok {
		v = m["transactions"]
	}
	return v.([]any)[0].(map[string]any)
}

func clone(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// raw is an account as the API writes it: "0:" and upper-case hex.
func raw(a ton.Account) string {
	wc, hex, _ := strings.Cut(a.String(), ":")
	return wc + ":" + strings.ToUpper(hex)
}

func b64(h tonapi.Hash) string { return base64.StdEncoding.EncodeToString(h[:]) }

func book(accounts ...ton.Account) map[string]any {
	b := map[string]any{}
	for _, a := range accounts {
		b[raw(a)] = map[string]any{"user_friendly": a.Friendly(false), "domain": nil}
	}
	return b
}
