package tonapi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/ton"
)

// The accounts and the reference of the recorded answers in testdata.
const (
	payerRaw  = "0:83DFD552E63729B472FCBCC8C45EBCC6691702558B68EC7527E1BA403A0F31A8"
	recipRaw  = "0:6F5BC67986E06430961D9DF00433926A4CD92E597DDD8AA6043645AC20BD1782"
	reference = "fracti-5e8f7c1a2b3d4e5f6a7b8c9d0e1f2a3b"
)

// recorded serves the testdata answers verbatim: /transactions by each
// file's transaction hash, /transactionsByMessage by its in_msg hash (the
// recipient files only), empty.json for anything else.
func recorded(t *testing.T, recipientFile string) (*httptest.Server, map[string]Hash) {
	t.Helper()
	byTx, byMsg := map[Hash][]byte{}, map[Hash][]byte{}
	hashes := map[string]Hash{}
	for _, name := range []string{"payer_tx.json", recipientFile} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		var a Transactions
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatal(err)
		}
		h, err := ParseHash(a.Transactions[0].Hash)
		if err != nil {
			t.Fatal(err)
		}
		byTx[h], hashes[name] = b, h
		if name != "payer_tx.json" {
			m, _ := ParseHash(a.Transactions[0].InMsg.Hash)
			byMsg[m] = b
		}
	}
	empty, _ := os.ReadFile("testdata/empty.json")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		switch r.URL.Path {
		case "/api/v3/transactions":
			h, _ := ParseHash(r.URL.Query().Get("hash"))
			body = byTx[h]
		case "/api/v3/transactionsByMessage":
			h, _ := ParseHash(r.URL.Query().Get("msg_hash"))
			if r.URL.Query().Get("direction") == "in" {
				body = byMsg[h]
			}
		}
		if body == nil {
			body = empty
		}
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, hashes
}

func account(t *testing.T, s string) ton.Account {
	a, err := ton.ParseAccount(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestVerifyRecordedAnswers(t *testing.T) {
	want := func(t *testing.T) Want {
		return Want{From: account(t, payerRaw), To: account(t, recipRaw), Nanotons: big.NewInt(500000000), Comment: reference}
	}
	tests := []struct {
		name      string
		recipient string
		payerSide bool
		change    func(*Want)
		state     State
		reason    string
	}{
		{name: "the payer's hash", recipient: "recipient_tx.json", payerSide: true, state: Verified},
		{name: "the recipient's hash", recipient: "recipient_tx.json", state: Verified},
		{name: "an account not deployed yet keeps a non-bounceable transfer", recipient: "recipient_uninit.json", payerSide: true, state: Verified},
		{name: "less than asked", recipient: "recipient_tx.json", payerSide: true,
			change: func(w *Want) { w.Nanotons = big.NewInt(500000001) }, state: Failed, reason: "sent 500000000 nanotons, less than the 500000001"},
		{name: "more than asked", recipient: "recipient_tx.json", change: func(w *Want) { w.Nanotons = big.NewInt(1) }, state: Verified},
		{name: "another recipient", recipient: "recipient_tx.json", payerSide: true,
			change: func(w *Want) { w.To = account(t, payerRaw) }, state: Failed, reason: "went to UQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XglxD, not to the recipient's wallet UQCD"},
		{name: "another payer", recipient: "recipient_tx.json",
			change: func(w *Want) { w.From = account(t, recipRaw) }, state: Failed, reason: "came from UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI, not from the payer's wallet"},
		{name: "another reference", recipient: "recipient_tx.json", payerSide: true,
			change: func(w *Want) { w.Comment = "fracti-other" }, state: Failed, reason: `comment is "` + reference + `", not the settlement's reference "fracti-other"`},
		{name: "bounced, by the payer's hash", recipient: "recipient_bounced.json", payerSide: true, state: Failed, reason: "bounced"},
		{name: "bounced, by the recipient's hash", recipient: "recipient_bounced.json", state: Failed, reason: "bounced"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, hashes := recorded(t, tt.recipient)
			w := want(t)
			if tt.change != nil {
				tt.change(&w)
			}
			h := hashes[tt.recipient]
			if tt.payerSide {
				h = hashes["payer_tx.json"]
			}
			got, err := New(srv.URL, "", time.Second).Verify(context.Background(), h, w)
			if err != nil {
				t.Fatal(err)
			}
			if got.State != tt.state || !strings.Contains(got.Reason, tt.reason) {
				t.Fatalf("got %v %q, want %v %q", got.State, got.Reason, tt.state, tt.reason)
			}
			if tt.state == Verified && got.Transfer.IsZero() {
				t.Fatal("no transfer hash")
			}
		})
	}
	t.Run("both sides name one transfer", func(t *testing.T) {
		srv, hashes := recorded(t, "recipient_tx.json")
		c := New(srv.URL, "", time.Second)
		a, _ := c.Verify(context.Background(), hashes["payer_tx.json"], want(t))
		b, _ := c.Verify(context.Background(), hashes["recipient_tx.json"], want(t))
		if a.Transfer != b.Transfer || a.Transfer.IsZero() {
			t.Fatalf("transfers %s and %s", a.Transfer.Hex(), b.Transfer.Hex())
		}
	})
	t.Run("not indexed yet", func(t *testing.T) {
		srv, _ := recorded(t, "recipient_tx.json")
		got, err := New(srv.URL, "", time.Second).Verify(context.Background(), Hash{1}, want(t))
		if err != nil || got.State != Pending {
			t.Fatalf("%v %v", got, err)
		}
	})
}

func TestRecordedPayerTransaction(t *testing.T) {
	b, err := os.ReadFile("testdata/payer_tx.json")
	if err != nil {
		t.Fatal(err)
	}
	var a Transactions
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	tx := a.Transactions[0]
	if !tx.InMsg.External() || tx.InMsg.Value != nil {
		t.Errorf("the wallet's own transaction starts with an external order: %+v", tx.InMsg)
	}
	if c, ok := tx.InMsg.Comment(); ok {
		t.Errorf("external order has comment %q", c)
	}
	if c, ok := tx.OutMsgs[0].Comment(); !ok || c != reference {
		t.Errorf("comment %q %v", c, ok)
	}
	// The address book's user-friendly form is the same account as the raw one.
	for rawAddr, info := range a.AddressBook {
		if account(t, rawAddr) != account(t, info.UserFriendly) {
			t.Errorf("%s is not %s", rawAddr, info.UserFriendly)
		}
	}
	if len(a.AddressBook) != 2 {
		t.Errorf("address book %v", a.AddressBook)
	}
}

func TestParseHashForms(t *testing.T) {
	var h Hash
	for i := range h {
		h[i] = byte(i*7 + 250) // bytes that give '+', '/' in base64
	}
	std := base64.StdEncoding.EncodeToString(h[:])
	url := base64.URLEncoding.EncodeToString(h[:])
	for _, s := range []string{h.Hex(), strings.ToUpper(h.Hex()), std, strings.TrimRight(std, "="), url, strings.TrimRight(url, "=")} {
		got, err := ParseHash(s)
		if err != nil || got != h {
			t.Errorf("%s: %v %v", s, got.Hex(), err)
		}
	}
	for _, bad := range []string{"", "abc", h.Hex()[:62], std[:40], strings.Repeat("z", 64)} {
		if _, err := ParseHash(bad); !errors.Is(err, ErrBadHash) {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestClientSendsKeyAndReportsOutages(t *testing.T) {
	var key, query string
	status := http.StatusServiceUnavailable
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, query = r.Header.Get("X-API-Key"), r.URL.RawQuery
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"error":"busy"}`))
	}))
	defer srv.Close()
	c := New(srv.URL+"/", "k-1", time.Second)
	_, err := c.TransactionByHash(context.Background(), Hash{0xab})
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("503: %v", err)
	}
	if key != "k-1" || !strings.Contains(query, "hash=ab00") {
		t.Errorf("key %q query %q", key, query)
	}
	status = http.StatusNotFound
	if got, err := c.TransactionByInMessage(context.Background(), Hash{1}); err != nil || len(got.Transactions) != 0 {
		t.Errorf("404: %v %v", got, err)
	}
	if !strings.Contains(query, "direction=in") || !strings.Contains(query, "msg_hash=01") {
		t.Errorf("query %q", query)
	}
	if _, err := New("http://127.0.0.1:1", "", time.Second).TransactionByHash(context.Background(), Hash{}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("unreachable: %v", err)
	}
	blocked := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-blocked }))
	defer slow.Close()
	defer close(blocked)
	if _, err := New(slow.URL, "", 50*time.Millisecond).TransactionByHash(context.Background(), Hash{}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("slow: %v", err)
	}
}

// An API that ignores direction=in answers the transfer's message with
// both sides' transactions, the payer's (the message is among its
// out_msgs) first: the recipient's side is the one that received it, so a
// bounce there is still a bounce.
func TestRecipientSideIsTheTransactionThatReceivedTheTransfer(t *testing.T) {
	var both Transactions
	for _, name := range []string{"payer_tx.json", "recipient_bounced.json"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		var a Transactions
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatal(err)
		}
		both.Transactions = append(both.Transactions, a.Transactions...)
	}
	payerTx, _ := ParseHash(both.Transactions[0].Hash)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answer := both
		if r.URL.Path == "/api/v3/transactions" {
			answer.Transactions = answer.Transactions[:1]
		}
		_ = json.NewEncoder(w).Encode(answer)
	}))
	defer srv.Close()
	w := Want{From: account(t, payerRaw), To: account(t, recipRaw), Nanotons: big.NewInt(500000000), Comment: reference}
	got, err := New(srv.URL, "", time.Second).Verify(context.Background(), payerTx, w)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != Failed || !strings.Contains(got.Reason, "bounced") {
		t.Fatalf("got %v %q, want the bounce", got.State, got.Reason)
	}

	// Only the payer's side answered: the recipient's is not indexed yet.
	srv.Config.Handler = http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		answer := both
		answer.Transactions = answer.Transactions[:1]
		_ = json.NewEncoder(rw).Encode(answer)
	})
	if got, err = New(srv.URL, "", time.Second).Verify(context.Background(), payerTx, w); err != nil || got.State != Pending {
		t.Fatalf("got %v %q %v, want pending", got.State, got.Reason, err)
	}
}
