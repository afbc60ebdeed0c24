package store

import (
	"fmt"
	"strings"
	"time"
)

// VerificationState is where the on-chain check of a TON payment stands.
type VerificationState string

// The verification states, stored in lower case like settlement statuses.
const (
	VerificationPending  VerificationState = "pending"
	VerificationVerified VerificationState = "verified"
	VerificationFailed   VerificationState = "failed"
)

// Verification is the on-chain check of a settlement's TON payment, from
// the moment its payer submits the transaction (docs/ton.md).
type Verification struct {
	State VerificationState
	// SubmittedAt is when the payer submitted the transaction: the checker
	// gives up GiveUp after it.
	SubmittedAt time.Time
	// CheckedAt is the last check's time; nil before the first.
	CheckedAt *time.Time
	// NextAt is when the next check is due, while pending.
	NextAt time.Time
	// Reason says why it failed, or why it is still pending.
	Reason string
	// Attempts counts the checks claimed so far.
	Attempts int
}

// Attributes of the verification on the settlement item.
const (
	attrVerifyState     = "verifyState"
	attrVerifySubmitted = "verifySubmittedAt"
	attrVerifyChecked   = "verifyCheckedAt"
	attrVerifyNext      = "verifyNextAt"
	attrVerifyReason    = "verifyReason"
	attrVerifyAttempts  = "verifyAttempts"
)

// verificationRecord is the verification as the settlement item stores it.
type verificationRecord struct {
	VerifyState       string `dynamodbav:"verifyState,omitempty"`
	VerifySubmittedAt string `dynamodbav:"verifySubmittedAt,omitempty"`
	VerifyCheckedAt   string `dynamodbav:"verifyCheckedAt,omitempty"`
	VerifyNextAt      string `dynamodbav:"verifyNextAt,omitempty"`
	VerifyReason      string `dynamodbav:"verifyReason,omitempty"`
	VerifyAttempts    int    `dynamodbav:"verifyAttempts,omitempty"`
}

// withVerification stores st's verification in r, with the GSI1 keys of a
// pending check (tonCheckGSI1SK), so that rewriting a settlement (a
// placeholder's claim) keeps both.
func (r *settlementRecord) withVerification(st *Settlement) {
	v := st.Verification
	if v == nil {
		return
	}
	r.verificationRecord = verificationRecord{
		VerifyState: string(v.State), VerifySubmittedAt: formatTime(v.SubmittedAt),
		VerifyReason: v.Reason, VerifyAttempts: v.Attempts,
	}
	if v.CheckedAt != nil {
		r.VerifyCheckedAt = formatTime(*v.CheckedAt)
	}
	if v.State == VerificationPending {
		r.VerifyNextAt = formatTime(v.NextAt)
		r.GSI1PK, r.GSI1SK = tonCheckGSI1PK, tonCheckGSI1SK(r.VerifyNextAt, st.ID)
	}
}

// verification reads the record's verification back; nil if it has none.
func (r *settlementRecord) verification() (*Verification, error) {
	if r.VerifyState == "" {
		return nil, nil
	}
	v := &Verification{State: VerificationState(r.VerifyState), Reason: r.VerifyReason, Attempts: r.VerifyAttempts}
	var err error
	if v.SubmittedAt, err = parseTime(r.VerifySubmittedAt); err != nil {
		return nil, fmt.Errorf("verification submitted: %w", err)
	}
	if r.VerifyNextAt != "" {
		if v.NextAt, err = parseTime(r.VerifyNextAt); err != nil {
			return nil, fmt.Errorf("verification next check: %w", err)
		}
	}
	if r.VerifyCheckedAt != "" {
		t, err := parseTime(r.VerifyCheckedAt)
		if err != nil {
			return nil, fmt.Errorf("verification checked: %w", err)
		}
		v.CheckedAt = &t
	}
	return v, nil
}

// Reference is the text a TON payment of the settlement carries as its
// comment: "fracti-" and the settlement's id without dashes, so it is unique
// per settlement and derived from the id, never stored.
func (st *Settlement) Reference() string {
	return "fracti-" + strings.ReplaceAll(st.ID, "-", "")
}

// ReasonOrNil is the verification's reason, nil when it has none.
func (v *Verification) ReasonOrNil() *string { return text(v.Reason) }
