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
// for a weekly reminder. The notifier keeps the list from the groups'
// GROUP_UPDATED events, so the weekly job finds its groups with one Query
// (never a Scan); the job reads each group again before sending, so a
// stale entry costs a read, never a message.
type weeklyListRecord struct {
	itemKey
	GroupID string `dynamodbav:"groupId"`
}

// ListWeeklyReminder adds the group to, or removes it from, the list of
// groups that get a weekly reminder.
func (s *Store) ListWeeklyReminder(ctx context.Context, groupID string, on bool) error {
	key := itemKey{PK: pkWeeklyList, SK: groupID}
	var err error
	if on {
		av, merr := attributevalue.MarshalMap(weeklyListRecord{itemKey: key, GroupID: groupID})
		if merr != nil {
			return fmt.Errorf("encode weekly reminder entry: %w", merr)
		}
		_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: av})
	} else {
		_, err = s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: tableKey(key.PK, key.SK)})
	}
	if err != nil {
		return fmt.Errorf("list weekly reminder of %s: %w", groupID, err)
	}
	return nil
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
