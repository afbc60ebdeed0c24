package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// RecordTonCheck writes what a claimed check (ClaimTonCheck) found short of
// completing the settlement: still pending (the chain does not show it yet;
// the next check stays as claimed) or failed (final for this transaction:
// the settlement leaves the checker's index; its status does not change, so
// the recipient can still confirm it by hand), with the reason. On
// condition that the verification is still the claimed attempt; false when
// it moved on meanwhile.
func (s *Store) RecordTonCheck(ctx context.Context, st Settlement, state VerificationState, reason string) (Settlement, bool, error) {
	if st.Verification == nil || st.Verification.State != VerificationPending || state == VerificationVerified {
		return st, false, fmt.Errorf("record TON check of settlement %s: not a pending verification becoming pending or failed", st.ID)
	}
	now := s.stamp()
	values := map[string]types.AttributeValue{":vChecked": str(formatTime(now)), ":vReason": str(reason), ":vState": str(string(state))}
	update := "SET " + attrVerifyChecked + " = :vChecked, " + attrVerifyReason + " = :vReason, " + attrVerifyState + " = :vState"
	if state == VerificationFailed {
		update += " REMOVE " + attrVerifyNext + ", " + attrGSI1PK + ", " + attrGSI1SK
	}
	if ok, err := s.updateCheck(ctx, st, update, values); !ok || err != nil {
		return st, false, err
	}
	v := *st.Verification
	v.State, v.Reason, v.CheckedAt = state, reason, &now
	if state == VerificationFailed {
		v.NextAt = time.Time{}
	}
	st.Verification = &v
	return st, true, nil
}
