package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ErrTonPaymentUsed means the TON payment has already completed a settlement.
var ErrTonPaymentUsed = errors.New("this TON payment has already completed a settlement")

// tonTxRecord is the TONTX#<hash> / TONTX item: the payment (by its transfer
// message's hash) that completed a settlement.
type tonTxRecord struct {
	itemKey
	GroupID      string `dynamodbav:"groupId"`
	SettlementID string `dynamodbav:"settlementId"`
	At           string `dynamodbav:"at"`
}

// CompleteTonSettlement completes st, whose pending verification (the
// attempt claimed by ClaimTonCheck) found the payment on chain: exactly the
// transaction of a confirmation (UpdateSettlement: status COMPLETED,
// completedAt, both members' balances, the SETTLEMENT_COMPLETED event, with
// the payer, who proved it, as confirmedBy) plus the verification marked
// VERIFIED (out of the checker's index) and the payment's record
// TONTX#<transfer> written on condition that it is absent. So one payment
// completes at most one settlement (ErrTonPaymentUsed), and of two checkers
// completing the same settlement the second fails the settlement's
// condition (ErrConflict) and moves nothing.
func (s *Store) CompleteTonSettlement(ctx context.Context, st Settlement, transfer string) (Settlement, error) {
	if st.Verification == nil || st.Verification.State != VerificationPending {
		return Settlement{}, conflictf("settlement %s has no pending verification", st.ID)
	}
	now := s.stamp()
	rec, err := s.putNew(tonTxRecord{
		itemKey: itemKey{PK: tonTxPK(transfer), SK: skTonTx},
		GroupID: st.GroupID, SettlementID: st.ID, At: formatTime(now),
	}, "TON payment record")
	if err != nil {
		return Settlement{}, err
	}
	cond, values := checkUnchanged(st)
	values[":vVerified"], values[":vChecked"] = str(string(VerificationVerified)), str(formatTime(now))
	x := settlementExtra{
		set:    []string{attrVerifyState + " = :vVerified", attrVerifyChecked + " = :vChecked"},
		remove: []string{attrVerifyReason, attrVerifyNext, attrGSI1PK, attrGSI1SK},
		cond:   cond,
		values: values,
		items:  []types.TransactWriteItem{rec},
		apply: func(u *Settlement) {
			v := *st.Verification
			v.State, v.CheckedAt, v.Reason = VerificationVerified, &now, ""
			u.Verification = &v
		},
	}
	completed := SettlementCompleted
	done, err := s.updateSettlement(ctx, st, SettlementChange{Status: &completed}, st.FromUserID, x)
	if errors.Is(err, errExtraRefused) {
		return Settlement{}, ErrTonPaymentUsed
	}
	if err != nil {
		return Settlement{}, fmt.Errorf("complete TON settlement: %w", err)
	}
	return done, nil
}
