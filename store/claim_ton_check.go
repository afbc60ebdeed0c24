package store

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// checkUnchanged is the condition that the verification is still pending,
// of the same transaction, at the attempt st was read at (:vSeen; an absent
// count is 0), with its values.
func checkUnchanged(st Settlement) (string, map[string]types.AttributeValue) {
	c := attrVerifyState + " = :vPending AND " + attrTxHash + " = :vHash AND "
	if st.Verification.Attempts == 0 {
		c += "(" + attrNotExists(attrVerifyAttempts) + " OR " + attrVerifyAttempts + " = :vSeen)"
	} else {
		c += attrVerifyAttempts + " = :vSeen"
	}
	return c, map[string]types.AttributeValue{
		":vPending": str(string(VerificationPending)), ":vHash": str(st.TxHash), ":vSeen": number(int64(st.Verification.Attempts)),
	}
}

// ClaimTonCheck takes the next check of st's pending verification for this
// caller: on condition that nobody has taken it since st was read (the
// attempt count is unchanged), it counts the attempt and moves the next
// check to next, so that of any number of checkers (on any instance) one
// makes each attempt and a crashed one's attempt comes round again at next.
// false: another checker took it, or the verification moved on.
func (s *Store) ClaimTonCheck(ctx context.Context, st Settlement, next time.Time) (Settlement, bool, error) {
	if st.Verification == nil || st.Verification.State != VerificationPending {
		return st, false, nil
	}
	set, values := nextCheck(st.ID, next)
	values[":vOne"] = number(1)
	if ok, err := s.updateCheck(ctx, st, "SET "+set+", "+attrVerifyAttempts+" = :vSeen + :vOne", values); !ok || err != nil {
		return st, false, err
	}
	v := *st.Verification
	v.Attempts++
	v.NextAt = next.UTC().Truncate(time.Millisecond)
	st.Verification = &v
	return st, true, nil
}

// updateCheck applies update to st's settlement item on condition that its
// verification is still the attempt st has (checkUnchanged, whose values it
// adds to values, :vSeen among them); false when it is not.
func (s *Store) updateCheck(ctx context.Context, st Settlement, update string, values map[string]types.AttributeValue) (bool, error) {
	cond, own := checkUnchanged(st)
	maps.Copy(values, own)
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       tableKey(groupPK(st.GroupID), settlementSK(formatTime(st.CreatedAt), st.ID)),
		UpdateExpression:          aws.String(update),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeValues: values,
	})
	switch {
	case IsCondCheckFailed(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("TON check of settlement %s: %w", st.ID, err)
	}
	return true, nil
}
