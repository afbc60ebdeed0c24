package store

import (
	"context"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// What the tests of package store_test reach inside the store.

// ResealBatch is how many events one transaction of a reseal rewrites.
const ResealBatch = resealBatch

// ResealProgressForTest is where the group's reseal stands, as its ledger says.
func (s *Store) ResealProgressForTest(ctx context.Context, groupID string) (resealedTo int64, resealFrom string, err error) {
	l, _, err := s.readLedger(ctx, groupID)
	return l.ResealedTo, l.ResealFrom, err
}

// ChainHeadForTest is the group's chain head, "<events>:<hash>".
func (s *Store) ChainHeadForTest(ctx context.Context, groupID string) (string, error) {
	h, err := s.readHead(ctx, groupID)
	return strconv.FormatInt(h.Seq, 10) + ":" + h.Hash, err
}

// toFormat1 rewrites a group's whole activity log as the server wrote it
// before hash format 2: names and wallets in the changes' strings, hashed as
// they are, no slots; the ledger's head follows.
func (s *Store) ToFormat1ForTest(ctx context.Context, groupID string) error {
	var recs []eventRecord
	err := s.queryPartition(ctx, groupPK(groupID), func(item map[string]types.AttributeValue) error {
		if !strings.HasPrefix(keyAttr(item, attrSK), prefixEvent) {
			return nil
		}
		var r eventRecord
		recs = append(recs, r)
		return attributevalue.UnmarshalMap(item, &recs[len(recs)-1])
	})
	if err != nil {
		return err
	}
	prev := ""
	for _, r := range recs {
		r.Changes = changeRecords(renderChanges(r.Changes, r.Slots))
		r.Slots, r.HashFormat, r.PrevHash = nil, 0, prev
		r.Hash = r.computeHash()
		prev = r.Hash
		av, err := attributevalue.MarshalMap(r)
		if err != nil {
			return err
		}
		if _, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: av}); err != nil {
			return err
		}
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: tableKey(groupPK(groupID), skLedger),
		UpdateExpression:          aws.String("SET " + attrHead + " = :h"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":h": str(prev)},
	})
	return err
}
