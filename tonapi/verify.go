package tonapi

import (
	"context"
	"fmt"
	"math/big"

	"github.com/fracti/api/ton"
)

// Want is the payment a settlement expects.
type Want struct {
	From     ton.Account // the payer's wallet
	To       ton.Account // the recipient's wallet
	Nanotons *big.Int    // at least this much
	Comment  string      // exactly this text comment: the settlement's reference
}

// State is what a check concluded.
type State int

// The outcomes of Verify.
const (
	// Pending: the chain does not show enough yet (not indexed); ask again later.
	Pending State = iota
	// Verified: the transfer is what Want asks, and the recipient accepted it.
	Verified
	// Failed: the transaction is not the payment; Reason says why.
	Failed
)

// Result is what Verify concluded. Transfer is the hash of the transfer
// message, the same whichever side's transaction hash was given: it names
// the payment, so that one payment completes at most one settlement.
type Result struct {
	State    State
	Reason   string
	Transfer Hash
}

// Verify decides whether the transaction with hash tx proves the payment.
// tx may be the payer's wallet transaction (what a wallet gives after a TON
// Connect send: its in_msg is the external signed order, the transfer is
// among its out_msgs, and the recipient's transaction is found by that
// message's hash) or the recipient's (whose in_msg is the transfer). A
// bounce is no flag on the transfer: the recipient's transaction is
// aborted (or its compute or action phase failed) and sends the money back
// in a message marked bounced. Addresses are compared as accounts, never as
// text. Errors wrap ErrUnavailable: nothing was concluded.
func (c *Client) Verify(ctx context.Context, tx Hash, want Want) (Result, error) {
	got, err := c.TransactionByHash(ctx, tx)
	if err != nil {
		return Result{}, err
	}
	t := find(got.Transactions, tx)
	if t == nil {
		return Result{State: Pending, Reason: "the transaction is not on the chain yet (or not indexed yet)"}, nil
	}
	var msg *Message
	recipientTx := t
	if t.InMsg != nil && !t.InMsg.External() {
		msg = t.InMsg
	} else {
		if msg = pickTransfer(t.OutMsgs, want); msg == nil {
			return Result{State: Failed, Reason: "the transaction sends no coins: it is not a transfer"}, nil
		}
		recipientTx = nil
	}
	transfer, err := ParseHash(msg.Hash)
	if err != nil {
		return Result{State: Failed, Reason: "the API gave the transfer no readable hash"}, nil
	}
	if reason := mismatch(msg, want); reason != "" {
		return Result{State: Failed, Reason: reason, Transfer: transfer}, nil
	}
	if recipientTx == nil {
		got, err := c.TransactionByInMessage(ctx, transfer)
		if err != nil {
			return Result{}, err
		}
		if recipientTx = received(got.Transactions, transfer); recipientTx == nil {
			return Result{State: Pending, Reason: "the recipient's side of the transfer is not on the chain yet", Transfer: transfer}, nil
		}
	}
	if refused(recipientTx) {
		return Result{State: Failed, Reason: "the recipient's wallet refused the transfer: it bounced and the coins went back to the payer", Transfer: transfer}, nil
	}
	return Result{State: Verified, Transfer: transfer}, nil
}

// find is the transaction with the hash among an answer's.
func find(txs []Transaction, h Hash) *Transaction {
	for i := range txs {
		if got, err := ParseHash(txs[i].Hash); err == nil && got == h {
			return &txs[i]
		}
	}
	return nil
}

// received is the transaction, among an answer's, whose incoming message
// is the transfer: the recipient's side. Not simply the first: an answer
// naming the message may also hold the payer's transaction (the message
// among its out_msgs), which shows no bounce.
func received(txs []Transaction, transfer Hash) *Transaction {
	for i := range txs {
		if in := txs[i].InMsg; in != nil {
			if got, err := ParseHash(in.Hash); err == nil && got == transfer {
				return &txs[i]
			}
		}
	}
	return nil
}

// pickTransfer chooses, among a wallet transaction's outgoing messages
// (a wallet may send several at once), the one to the recipient with the
// reference, else one to the recipient, else the first: what a mismatch
// then reports on.
func pickTransfer(out []Message, want Want) *Message {
	var toRecipient *Message
	for i := range out {
		m := &out[i]
		if m.Destination == nil || !sameAccount(*m.Destination, want.To) {
			continue
		}
		if c, ok := m.Comment(); ok && c == want.Comment {
			return m
		}
		if toRecipient == nil {
			toRecipient = m
		}
	}
	if toRecipient != nil {
		return toRecipient
	}
	if len(out) > 0 {
		return &out[0]
	}
	return nil
}

// mismatch says how the transfer differs from the payment wanted, or "".
func mismatch(m *Message, want Want) string {
	if m.Bounced {
		return "this is a bounced message returning coins, not the payment"
	}
	if m.Source == nil || !sameAccount(*m.Source, want.From) {
		return fmt.Sprintf("the transfer came from %s, not from the payer's wallet %s", display(m.Source), want.From.Friendly(false))
	}
	if m.Destination == nil || !sameAccount(*m.Destination, want.To) {
		return fmt.Sprintf("the transfer went to %s, not to the recipient's wallet %s", display(m.Destination), want.To.Friendly(false))
	}
	value, ok := new(big.Int), false
	if m.Value != nil {
		value, ok = value.SetString(*m.Value, 10)
	}
	if !ok {
		return "the transfer carries no readable amount"
	}
	if value.Cmp(want.Nanotons) < 0 {
		return fmt.Sprintf("the transfer sent %s nanotons, less than the %s the settlement asks", value, want.Nanotons)
	}
	c, ok := m.Comment()
	switch {
	case !ok:
		return fmt.Sprintf("the transfer has no text comment; the payment must carry the reference %q", want.Comment)
	case c != want.Comment:
		return fmt.Sprintf("the transfer's comment is %q, not the settlement's reference %q", c, want.Comment)
	}
	return ""
}

// refused reports whether the recipient's transaction did not keep the
// coins: it sent a bounce back, or it was aborted (or its compute or action
// phase failed) on a bounceable message, which bounces. An aborted
// transaction on a non-bounceable message still credits the account (a
// wallet not yet deployed receives coins that way: aborted, compute phase
// skipped with no_state, balance up), so that alone is no refusal.
func refused(t *Transaction) bool {
	for _, m := range t.OutMsgs {
		if m.Bounced {
			return true
		}
	}
	d := t.Description
	return (d.Aborted || failed(d.ComputePh) || failed(d.Action)) && (t.InMsg == nil || t.InMsg.Bounce)
}

func failed(p *Phase) bool { return p != nil && !p.Skipped && p.Success != nil && !*p.Success }

// sameAccount compares an address from the API (raw or user-friendly) with an account.
func sameAccount(addr string, want ton.Account) bool {
	a, err := ton.ParseAccount(addr)
	return err == nil && a == want
}

// display is an address from the API as a person reads it.
func display(addr *string) string {
	if addr == nil || *addr == "" {
		return "nowhere (an external message)"
	}
	if a, err := ton.ParseAccount(*addr); err == nil {
		return a.Friendly(false)
	}
	return *addr
}
