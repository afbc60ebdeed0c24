package store

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// verificationOpen: the settlement has no verification, or one that did not
// succeed (a failed one may be submitted again, with another transaction).
var verificationOpen = "(" + attrNotExists(attrVerifyState) + " OR " + attrVerifyState + " <> :verified)"

// SubmitSettlementTx records the transaction hash (canonical hex) the payer
// says paid the TON settlement st and starts its on-chain verification:
// PENDING, first check due at once, listed for the checker under GSI1
// (tonCheckGSI1SK). Like UpdateSettlement, on condition that the settlement
// is still in the status it was read in (a final one is ErrConflict), and
// not already verified; the group's activity records the txHash change,
// with the payer as its actor.
func (s *Store) SubmitSettlementTx(ctx context.Context, st Settlement, hash string) (Settlement, error) {
	now := s.stamp()
	v := Verification{State: VerificationPending, SubmittedAt: now, NextAt: now}
	next, values := nextCheck(st.ID, now)
	values[":vState"], values[":vSubmitted"], values[":vZero"] = str(string(VerificationPending)), str(formatTime(now)), number(0)
	values[":vPK"], values[":verified"] = str(tonCheckGSI1PK), str(string(VerificationVerified))
	x := settlementExtra{
		set: []string{
			attrVerifyState + " = :vState", attrVerifySubmitted + " = :vSubmitted", next,
			attrVerifyAttempts + " = :vZero", attrGSI1PK + " = :vPK",
		},
		remove: []string{attrVerifyChecked, attrVerifyReason},
		cond:   verificationOpen,
		values: values,
		apply:  func(u *Settlement) { u.Verification = &v },
	}
	return s.updateSettlement(ctx, st, SettlementChange{TxHash: &hash}, st.FromUserID, x)
}

// nextCheck is the SET clause and values that list a pending check as due at next.
func nextCheck(settlementID string, next time.Time) (string, map[string]types.AttributeValue) {
	at := formatTime(next)
	return attrVerifyNext + " = :vNext, " + attrGSI1SK + " = :vSK",
		map[string]types.AttributeValue{":vNext": str(at), ":vSK": str(tonCheckGSI1SK(at, settlementID))}
}
