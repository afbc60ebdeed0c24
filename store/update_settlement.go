package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// SettlementChange is an update to a settlement; nil fields stay as they are.
type SettlementChange struct {
	Status *SettlementStatus
	TxHash *string
}

// CanBecome reports whether a settlement may move from status from to status
// to: a pending settlement completes or fails, and that is final.
func CanBecome(from, to SettlementStatus) bool {
	return from == SettlementPending && (to == SettlementCompleted || to == SettlementFailed)
}

// UpdateSettlement applies change to st, on condition that the stored
// settlement is still in the status st has, so that of two concurrent changes
// only one succeeds; the other gets ErrConflict. A status change must be
// allowed by CanBecome. Completing it stamps completedAt.
func (s *Store) UpdateSettlement(ctx context.Context, st Settlement, change SettlementChange) (Settlement, error) {
	var sets []string
	values := map[string]types.AttributeValue{":current": str(string(st.Status))}
	if change.Status != nil {
		if !CanBecome(st.Status, *change.Status) {
			return Settlement{}, conflictf("a %s settlement cannot become %s", st.Status, *change.Status)
		}
		sets = append(sets, "#status = :status")
		values[":status"] = str(string(*change.Status))
		if *change.Status == SettlementCompleted {
			sets = append(sets, "completedAt = :completedAt")
			values[":completedAt"] = str(formatTime(s.stamp()))
		}
	}
	if change.TxHash != nil {
		sets = append(sets, "txHash = :txHash")
		values[":txHash"] = str(*change.TxHash)
	}
	if len(sets) == 0 {
		return st, nil
	}
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       tableKey(groupPK(st.GroupID), settlementSK(formatTime(st.CreatedAt), st.ID)),
		UpdateExpression:          aws.String("SET " + strings.Join(sets, ", ")),
		ConditionExpression:       aws.String("attribute_exists(PK) AND #status = :current"),
		ExpressionAttributeNames:  map[string]string{"#status": "status"},
		ExpressionAttributeValues: values,
		ReturnValues:              types.ReturnValueAllNew,
	})
	if IsCondCheckFailed(err) {
		return Settlement{}, conflictf("the settlement changed meanwhile; it is no longer %s", st.Status)
	}
	if err != nil {
		return Settlement{}, fmt.Errorf("update settlement: %w", err)
	}
	sts, err := decodeAll([]map[string]types.AttributeValue{out.Attributes}, (*settlementRecord).settlement)
	if err != nil {
		return Settlement{}, err
	}
	return sts[0], nil
}
