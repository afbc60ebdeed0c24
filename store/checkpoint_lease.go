package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// CheckpointLease records that the records of l's shard up to sequence
// number seq were handled (finished: the shard is closed and read to its
// end), on the condition that l.Owner still holds the lease. The counter is
// left alone, so a checkpoint never races the holder's own renewal; a lease
// taken over refuses the write with ErrLeaseLost.
func (s *Store) CheckpointLease(ctx context.Context, l Lease, seq string, finished bool) error {
	pk, sk := leaseKey(l.Stream, l.Shard)
	var set []string
	names := map[string]string{"#owner": "owner"}
	values := map[string]types.AttributeValue{":owner": str(l.Owner)}
	if seq != "" {
		set, names["#cp"], values[":cp"] = append(set, "#cp = :cp"), "checkpoint", str(seq)
	}
	if finished {
		set, names["#fin"], values[":fin"] = append(set, "#fin = :fin"), "finished", &types.AttributeValueMemberBOOL{Value: true}
	}
	if len(set) == 0 {
		return nil
	}
	update := "SET " + strings.Join(set, ", ")
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: tableKey(pk, sk),
		UpdateExpression:          aws.String(update),
		ConditionExpression:       aws.String("#owner = :owner"),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	})
	if IsCondCheckFailed(err) {
		return fmt.Errorf("shard %s: %w", l.Shard, ErrLeaseLost)
	}
	if err != nil {
		return fmt.Errorf("checkpoint the lease of shard %s: %w", l.Shard, err)
	}
	return nil
}
