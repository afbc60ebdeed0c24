package store

import (
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/fracti/api/money"
)

// SettlementStatus is where a settlement payment stands.
type SettlementStatus string

// The settlement statuses, stored in lower case as the data model has them.
// A settlement is recorded pending (or sent, by its payer, or completed, by
// its recipient); only completing it moves balances.
const (
	SettlementPending   SettlementStatus = "pending"
	SettlementSent      SettlementStatus = "sent"
	SettlementCompleted SettlementStatus = "completed"
	SettlementFailed    SettlementStatus = "failed"
)

// Final reports whether nothing may change a settlement in this status any more.
func (s SettlementStatus) Final() bool {
	return s == SettlementCompleted || s == SettlementFailed
}

// Settlement is a payment from one member to another to settle a debt.
type Settlement struct {
	ID           string
	GroupID      string
	FromUserID   string
	FromUserName string
	ToUserID     string
	ToUserName   string
	Amount       money.Amount
	TxHash       string
	Status       SettlementStatus
	CreatedAt    time.Time
	CompletedAt  *time.Time
	// CreatedBy is who recorded it: its payer, or its recipient recording a
	// payment received. Empty on settlements recorded before it was kept.
	CreatedBy string
	// ConfirmedBy is who completed it: its recipient, its payer where the
	// group allows that, or another member confirming a payment to a
	// placeholder on the placeholder's behalf. Empty until it completes, and
	// on settlements completed before it was kept.
	ConfirmedBy string
	// Settles is set when the settlement settles a balance in another currency.
	Settles *SettledConversion
	// Parts is set, instead of Settles, when one payment settles balances
	// in several currencies (createSettlement's parts: each currency once,
	// its own at rate 1): each part's Amount is what it settles
	// in its currency, negative when it runs from the recipient to the
	// payer (debts netted across currencies), at the price of one unit of
	// the paid currency in it.
	Parts []SettledConversion
	// Verification is the on-chain check of a TON payment; nil until the
	// payer submits its transaction (submitSettlementTransaction).
	Verification *Verification
}

// Currency is the currency of the settlement's amount.
func (st *Settlement) Currency() money.Currency { return st.Amount.Currency() }

// Attributes of the settlement item that expressions name.
const (
	attrStatus      = "status"
	attrTxHash      = "txHash"
	attrCompletedAt = "completedAt"
	attrConfirmedBy = "confirmedBy"
)

// settlementRecord is the GROUP#<groupId> / SETTLE#<createdAt>#<id> item.
type settlementRecord struct {
	itemKey
	ID           string                `dynamodbav:"id"`
	GroupID      string                `dynamodbav:"groupId"`
	FromUserID   string                `dynamodbav:"fromUserId"`
	FromUserName string                `dynamodbav:"fromUserName"`
	ToUserID     string                `dynamodbav:"toUserId"`
	ToUserName   string                `dynamodbav:"toUserName"`
	Amount       attributevalue.Number `dynamodbav:"amount"`
	Currency     string                `dynamodbav:"currency"`
	TxHash       string                `dynamodbav:"txHash,omitempty"`
	Status       string                `dynamodbav:"status"`
	CreatedAt    string                `dynamodbav:"createdAt"`
	CompletedAt  string                `dynamodbav:"completedAt,omitempty"`
	CreatedBy    string                `dynamodbav:"createdBy,omitempty"`
	ConfirmedBy  string                `dynamodbav:"confirmedBy,omitempty"`
	// FormatVersion is absent on settlements written before it (format 1).
	FormatVersion int `dynamodbav:"formatVersion,omitempty"`
	settledRecord
	Parts []partRecord `dynamodbav:"parts,omitempty"`
	verificationRecord
}

func (st *Settlement) record() settlementRecord {
	ts := formatTime(st.CreatedAt)
	r := settlementRecord{
		itemKey: itemKey{
			PK: groupPK(st.GroupID), SK: settlementSK(ts, st.ID),
			GSI2PK: settlementGSI2PK(st.ID), GSI2SK: st.GroupID,
			GSI3PK: userKey(st.FromUserID), GSI3SK: settlementSK(ts, st.ID),
		},
		ID: st.ID, GroupID: st.GroupID,
		FromUserID: st.FromUserID, FromUserName: st.FromUserName,
		ToUserID: st.ToUserID, ToUserName: st.ToUserName,
		Amount: amountNumber(st.Amount), Currency: st.Amount.Currency().Code(),
		TxHash: st.TxHash, Status: string(st.Status), CreatedAt: ts, CreatedBy: st.CreatedBy,
		ConfirmedBy: st.ConfirmedBy, FormatVersion: formatCurrent, settledRecord: settledRecordOf(st.Settles),
		Parts: partRecordsOf(st.Parts),
	}
	if st.CompletedAt != nil {
		r.CompletedAt = formatTime(*st.CompletedAt)
	}
	r.withVerification(st)
	return r
}

func (r *settlementRecord) settlement() (Settlement, error) {
	amount, err := readAmount(r.Amount, r.Currency)
	if err != nil {
		return Settlement{}, fmt.Errorf("settlement %s: %w", r.ID, err)
	}
	created, err := parseTime(r.CreatedAt)
	if err != nil {
		return Settlement{}, fmt.Errorf("settlement %s createdAt: %w", r.ID, err)
	}
	st := Settlement{
		ID: r.ID, GroupID: r.GroupID,
		FromUserID: r.FromUserID, FromUserName: r.FromUserName,
		ToUserID: r.ToUserID, ToUserName: r.ToUserName,
		Amount: amount, TxHash: r.TxHash, Status: SettlementStatus(r.Status), CreatedAt: created,
		CreatedBy: r.CreatedBy, ConfirmedBy: r.ConfirmedBy,
	}
	if st.Settles, err = r.settles(); err != nil {
		return Settlement{}, fmt.Errorf("settlement %s: %w", r.ID, err)
	}
	if st.Parts, err = settledParts(r.Parts); err != nil {
		return Settlement{}, fmt.Errorf("settlement %s: %w", r.ID, err)
	}
	if st.Verification, err = r.verification(); err != nil {
		return Settlement{}, fmt.Errorf("settlement %s: %w", r.ID, err)
	}
	if r.CompletedAt != "" {
		t, err := parseTime(r.CompletedAt)
		if err != nil {
			return Settlement{}, fmt.Errorf("settlement %s completedAt: %w", r.ID, err)
		}
		st.CompletedAt = &t
	}
	return st, nil
}

// The fields of a settlement its activity events record.
const (
	FieldFrom   = "from"
	FieldTo     = "to"
	FieldStatus = "status"
	FieldTxHash = "txHash"
	// FieldSettles is what a settlement in another currency, or in several
	// parts, settles: "33.33 EUR", or "33.33 EUR, -5.00 USD".
	FieldSettles = "settles"
)

// SettlementChanges lists what differs between two states of a settlement,
// as display strings (amounts with their currency's decimals, members by
// name, held apart as references until stored (personal.go), the status as its GraphQL name); with before nil, every field after has.
func SettlementChanges(before, after *Settlement) []Change {
	display := func(st *Settlement) map[string]string {
		d := map[string]string{
			FieldAmount: st.Amount.String(), FieldCurrency: st.Amount.Currency().Code(),
			FieldFrom: personRef(st.FromUserID, st.FromUserName), FieldTo: personRef(st.ToUserID, st.ToUserName), FieldStatus: strings.ToUpper(string(st.Status)),
		}
		if st.TxHash != "" {
			d[FieldTxHash] = st.TxHash
		}
		if st.Settles != nil || len(st.Parts) > 0 {
			var parts []string
			for _, a := range st.SettledParts() {
				parts = append(parts, a.String()+" "+a.Currency().Code())
			}
			d[FieldSettles] = strings.Join(parts, ", ")
		}
		return d
	}
	var was map[string]string
	if before != nil {
		was = display(before)
	}
	return diffDisplays(was, display(after), []string{FieldAmount, FieldCurrency, FieldSettles, FieldFrom, FieldTo, FieldStatus, FieldTxHash})
}

// settlementEvent is the activity event of a change to a settlement.
func settlementEvent(t EventType, st *Settlement, actor string, at time.Time, changes []Change) Event {
	return Event{
		GroupID: st.GroupID, Type: t, ActorID: actor, At: at,
		Subject: Subject{Kind: SubjectSettlement, ID: st.ID, CreatedAt: st.CreatedAt},
		Changes: changes,
	}
}

// settlementEventType names a settlement's change by the status it reaches.
func settlementEventType(to, from SettlementStatus) EventType {
	switch {
	case to == from:
		return EventSettlementUpdated
	case to == SettlementCompleted:
		return EventSettlementCompleted
	case to == SettlementFailed:
		return EventSettlementFailed
	}
	return EventSettlementUpdated
}
