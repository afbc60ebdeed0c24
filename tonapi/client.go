// Package tonapi reads transactions from a TON HTTP API of the toncenter v3
// shape (GET /api/v3/transactions?hash=… and
// /api/v3/transactionsByMessage?msg_hash=…&direction=in) and decides whether
// one proves a payment: see Verify. Answers gain fields over time; only the
// fields named here are read, the rest ignored.
package tonapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultURL is toncenter's public API.
const DefaultURL = "https://toncenter.com"

// DefaultTimeout bounds one request to the API.
const DefaultTimeout = 5 * time.Second

// maxAnswer bounds what is read of one answer: one transaction is a few kB.
const maxAnswer = 4 << 20

// ErrUnavailable wraps every failure to get an answer (unreachable, a
// time-out, a 5xx or 429, a body that is not the expected JSON): the
// question stays open and is asked again later.
var ErrUnavailable = errors.New("the TON API is unavailable")

// Client asks a TON HTTP API about transactions.
type Client struct {
	base string
	key  string
	http *http.Client
}

// New is a client of the API at baseURL (DefaultURL when empty), sending
// apiKey as X-API-Key when it is not empty, each request bounded by timeout
// (DefaultTimeout when zero).
func New(baseURL, apiKey string, timeout time.Duration) *Client {
	if baseURL == "" {
		baseURL = DefaultURL
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), key: apiKey, http: &http.Client{Timeout: timeout}}
}

// Transactions is an answer of the transactions endpoints: the transactions
// and the address book, which maps the raw addresses they use to
// user-friendly ones.
type Transactions struct {
	Transactions []Transaction          `json:"transactions"`
	AddressBook  map[string]AddressInfo `json:"address_book"`
}

// AddressInfo is an address book entry.
type AddressInfo struct {
	UserFriendly string `json:"user_friendly"`
}

// Transaction is one account's transaction.
type Transaction struct {
	Account     string      `json:"account"`
	Hash        string      `json:"hash"`
	Description Description `json:"description"`
	InMsg       *Message    `json:"in_msg"`
	OutMsgs     []Message   `json:"out_msgs"`
}

// Description is how the transaction went. A message the account refused
// (a bounce) shows as aborted, or a failed compute or action phase.
type Description struct {
	Aborted   bool   `json:"aborted"`
	ComputePh *Phase `json:"compute_ph"`
	Action    *Phase `json:"action"`
}

// Phase is a compute or action phase; Success is absent where it was skipped.
type Phase struct {
	Skipped bool  `json:"skipped"`
	Success *bool `json:"success"`
}

// Message is an incoming or outgoing message. An external incoming message
// (a wallet's signed order) has no source and no value.
type Message struct {
	Hash           string   `json:"hash"`
	Source         *string  `json:"source"`
	Destination    *string  `json:"destination"`
	Value          *string  `json:"value"`
	Bounce         bool     `json:"bounce"`
	Bounced        bool     `json:"bounced"`
	MessageContent *Content `json:"message_content"`
}

// Content is a message's body, decoded where the API could.
type Content struct {
	Decoded json.RawMessage `json:"decoded"`
}

// Comment is the message's text comment (a body of opcode 0, decoded by
// the API as {"type": "text_comment", "comment": …}), or false when it has none.
func (m *Message) Comment() (string, bool) {
	if m.MessageContent == nil || len(m.MessageContent.Decoded) == 0 {
		return "", false
	}
	var d struct {
		Type    string  `json:"type"`
		Comment *string `json:"comment"`
	}
	if json.Unmarshal(m.MessageContent.Decoded, &d) != nil || d.Type != "text_comment" || d.Comment == nil {
		return "", false
	}
	return *d.Comment, true
}

// External reports whether the message came from outside the chain (it has
// no source): the signed order a wallet's own transaction starts with.
func (m *Message) External() bool { return m.Source == nil || *m.Source == "" }

// TransactionByHash asks for the transaction with the hash; an empty answer
// (not indexed yet, or no such transaction) has no transactions.
func (c *Client) TransactionByHash(ctx context.Context, h Hash) (Transactions, error) {
	return c.get(ctx, "/api/v3/transactions", url.Values{"hash": {h.Hex()}, "limit": {"1"}})
}

// TransactionByInMessage asks for the transaction that received the
// message with the hash: the recipient's side of a transfer.
func (c *Client) TransactionByInMessage(ctx context.Context, msg Hash) (Transactions, error) {
	return c.get(ctx, "/api/v3/transactionsByMessage", url.Values{"msg_hash": {msg.Hex()}, "direction": {"in"}})
}

func (c *Client) get(ctx context.Context, path string, q url.Values) (Transactions, error) {
	var out Transactions
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path+"?"+q.Encode(), nil)
	if err != nil {
		return out, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	req.Header.Set("Accept", "application/json")
	if c.key != "" {
		req.Header.Set("X-API-Key", c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return out, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return out, fmt.Errorf("%w: reading %s: %v", ErrUnavailable, path, err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		// Some versions answer an unknown hash with 404 rather than an empty list.
		return out, nil
	case resp.StatusCode != http.StatusOK:
		return out, fmt.Errorf("%w: %s answered %d: %.200s", ErrUnavailable, path, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return out, fmt.Errorf("%w: %s: %v", ErrUnavailable, path, err)
	}
	return out, nil
}
