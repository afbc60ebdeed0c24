package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// weeklyListRecord is the NOTIFY#WEEKLY / <groupId> item: the group asked
// for a weekly reminder. UpdateGroup writes and removes it in the same
// transaction as the setting, so the weekly job finds its groups with one
// Query (never a Scan) and no change of the setting is ever missed; the job
// reads each group again before sending.
type weeklyListRecord struct {
	itemKey
	GroupID string `dynamodbav:"groupId"`
}

// weeklyListEntry is the transaction item that puts the group on the weekly
// list (on) or takes it off.
func (s *Store) weeklyListEntry(groupID string, on bool) (types.TransactWriteItem, error) {
	key := itemKey{PK: pkWeeklyList, SK: groupID}
	if !on {
		return types.TransactWriteItem{Delete: &types.Delete{TableName: &s.table, Key: tableKey(key.PK, key.SK)}}, nil
	}
	av, err := attributevalue.MarshalMap(weeklyListRecord{itemKey: key, GroupID: groupID})
	if err != nil {
		return types.TransactWriteItem{}, fmt.Errorf("encode weekly reminder entry: %w", err)
	}
	return types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: av}}, nil
}

// WeeklyReminderGroups lists the ids of the groups on the weekly list.
func (s *Store) WeeklyReminderGroups(ctx context.Context) ([]string, error) {
	var ids []string
	err := s.queryPartition(ctx, pkWeeklyList, func(item map[string]types.AttributeValue) error {
		ids = append(ids, keyAttr(item, attrSK))
		return nil
	})
	return ids, err
}

// queryPartition reads every item of partition pk in key order, strongly
// consistent, all pages, handing each to fn.
func (s *Store) queryPartition(ctx context.Context, pk string, fn func(map[string]types.AttributeValue) error) error {
	in := &dynamodb.QueryInput{
		TableName:                 &s.table,
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pk)},
		ConsistentRead:            aws.Bool(true),
	}
	for {
		page, err := s.db.Query(ctx, in)
		if err != nil {
			return fmt.Errorf("query %s: %w", pk, err)
		}
		for _, item := range page.Items {
			if err := fn(item); err != nil {
				return err
			}
		}
		if page.LastEvaluatedKey == nil {
			return nil
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}
