package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The purge of deleted groups (the scheduler's purge job): once a deleted
// group's restore window has passed, every item of it goes. The job finds
// such groups with one Query of GSI1 (PURGE, GSI1SK <= "<now>~"), never a
// Scan. For each it first marks METADATA purging (a restore is refused from
// then on), then deletes, page by page in BatchWriteItem calls of 25, every
// item of the GROUP#<id> partition but the ledger and METADATA (expenses,
// participant records, settlements, memberships, events, revisions,
// invites, comments, recurring expenses and their markers, spending
// summaries, import records, notification markers and stamps: their GSI
// entries go with them), then its items elsewhere (the connected chat's
// CHAT#<chatId>, its place on the weekly reminder list, its queued digest
// lines), and the ledger and METADATA last, in one transaction. Every step
// deletes what is still there, so a purge cut short anywhere is found again
// by the same Query (METADATA is still listed) and finishes where it
// stopped; running it twice, or on two instances at once, deletes nothing
// twice and fails nothing.

// purgeBatch is the most deletes one BatchWriteItem takes.
const purgeBatch = 25

// purgeRetries bounds how often the deletes DynamoDB left unprocessed are
// sent again, with a growing pause, before the purge gives up until its
// next run.
const purgeRetries = 8

// PurgeRun is what one run of the purge did.
type PurgeRun struct {
	Groups int // groups purged to the end
	Items  int // items deleted, theirs and elsewhere
}

// PurgeDeletedGroups purges every deleted group whose restore window has
// passed. Errors of one group do not stop the others; they are returned
// together.
func (s *Store) PurgeDeletedGroups(ctx context.Context) (PurgeRun, error) {
	return s.PurgeDeletedGroupsWith(ctx, nil)
}

// PurgeDeletedGroupsWith is PurgeDeletedGroups that first deletes each
// group's objects in storage (none without objects): a group whose objects
// could not all be deleted keeps its items, and is purged again next run.
func (s *Store) PurgeDeletedGroupsWith(ctx context.Context, objects PurgeObjects) (PurgeRun, error) {
	items, err := s.collect(ctx, listQuery{
		list: "purge", index: indexGSI1, keyCond: gsi1UpToCond, forward: true,
		values: map[string]types.AttributeValue{":pk": str(purgeGSI1PK), ":to": str(upTo(formatTime(s.now())))},
	}, nil, math.MaxInt32)
	if err != nil {
		return PurgeRun{}, err
	}
	var run PurgeRun
	var errs []error
	for _, it := range items {
		groupID := itemGroupID(it)
		n, err := s.purgeGroup(ctx, groupID, objects)
		run.Items += n
		if err != nil {
			errs = append(errs, fmt.Errorf("purge group %s: %w", groupID, err))
			if ctx.Err() != nil {
				break
			}
			continue
		}
		if n > 0 {
			run.Groups++
		}
	}
	return run, errors.Join(errs...)
}

// purgeGroup deletes every item of one deleted group, and reports how many
// it deleted (0 when the group was restored meanwhile, or already gone).
func (s *Store) purgeGroup(ctx context.Context, groupID string, objects PurgeObjects) (int, error) {
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: tableKey(groupPK(groupID), skMetadata),
		UpdateExpression:          aws.String("SET " + attrPurging + " = :true"),
		ConditionExpression:       aws.String(attrExists(attrDeletedAt) + " AND " + attrPurgeAfter + " <= :now"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":true": &types.AttributeValueMemberBOOL{Value: true}, ":now": str(formatTime(s.now()))},
		ReturnValues:              types.ReturnValueAllNew,
	})
	if IsCondCheckFailed(err) {
		return 0, nil // restored, or purged by another instance meanwhile
	}
	if err != nil {
		return 0, fmt.Errorf("mark purging: %w", err)
	}
	var meta groupRecord
	if err := attributevalue.UnmarshalMap(out.Attributes, &meta); err != nil {
		return 0, fmt.Errorf("decode group: %w", err)
	}
	if objects != nil {
		// First, while the group's items still name them.
		if err := objects.PurgeGroupObjects(ctx, groupID); err != nil {
			return 0, fmt.Errorf("delete the group's objects: %w", err)
		}
	}
	n, err := s.purgePartition(ctx, groupID)
	if err != nil {
		return n, err
	}
	m, err := s.purgeElsewhere(ctx, groupID, meta.ChatID)
	n += m
	if err != nil {
		return n, err
	}
	// Last: the ledger and METADATA, whose GSI1 entry is how an unfinished
	// purge is found again.
	err = s.transactWrite(ctx, []types.TransactWriteItem{
		{Delete: &types.Delete{TableName: &s.table, Key: tableKey(groupPK(groupID), skLedger)}},
		{Delete: &types.Delete{TableName: &s.table, Key: tableKey(groupPK(groupID), skMetadata)}},
	})
	if err != nil {
		return n, fmt.Errorf("delete group: %w", err)
	}
	return n + 2, nil
}

// purgePartition deletes every item of the group's partition but its
// ledger and METADATA, a page of keys at a time.
func (s *Store) purgePartition(ctx context.Context, groupID string) (int, error) {
	in := &dynamodb.QueryInput{
		TableName:                 &s.table,
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(groupPK(groupID))},
		ProjectionExpression:      aws.String("#pk, #sk"),
		ConsistentRead:            aws.Bool(true),
		Limit:                     aws.Int32(MaxPageSize),
	}
	n := 0
	for {
		page, err := s.db.Query(ctx, in)
		if err != nil {
			return n, fmt.Errorf("query group items: %w", err)
		}
		var keys []map[string]types.AttributeValue
		for _, it := range page.Items {
			if sk := keyAttr(it, attrSK); sk != skLedger && sk != skMetadata {
				keys = append(keys, tableKey(keyAttr(it, attrPK), sk))
			}
		}
		if err := s.deleteKeys(ctx, keys); err != nil {
			return n, err
		}
		n += len(keys)
		if page.LastEvaluatedKey == nil {
			return n, nil
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}

// purgeElsewhere deletes the group's items outside its partition: the
// connected chat's item (only if it is still this group's), its place on
// the weekly reminder list, and its lines in every digest queue.
func (s *Store) purgeElsewhere(ctx context.Context, groupID, chatID string) (int, error) {
	var keys []map[string]types.AttributeValue
	if chatID != "" {
		owner, err := s.GroupOfChat(ctx, chatID)
		if err != nil {
			return 0, err
		}
		if owner == groupID {
			keys = append(keys, tableKey(chatPK(chatID), skChat))
		}
	}
	keys = append(keys, tableKey(pkWeeklyList, groupID))
	for _, kind := range []Digest{DigestDaily, DigestWeekly} {
		err := s.queryPartition(ctx, digestPK(string(kind)), func(item map[string]types.AttributeValue) error {
			if _, g, _, ok := parseDigestSK(keyAttr(item, attrSK)); ok && g == groupID {
				keys = append(keys, tableKey(digestPK(string(kind)), keyAttr(item, attrSK)))
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	return len(keys), s.deleteKeys(ctx, keys)
}

// deleteKeys deletes the items at keys, purgeBatch at a time, sending again
// what DynamoDB leaves unprocessed. Deleting an item that is already gone
// is not an error, so a batch may be sent again whole.
func (s *Store) deleteKeys(ctx context.Context, keys []map[string]types.AttributeValue) error {
	for len(keys) > 0 {
		n := min(len(keys), purgeBatch)
		reqs := make([]types.WriteRequest, n)
		for i, k := range keys[:n] {
			reqs[i] = types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k}}
		}
		keys = keys[n:]
		backoff := conflictBackoff
		for attempt := 0; len(reqs) > 0; attempt++ {
			if attempt > purgeRetries {
				return fmt.Errorf("delete group items: %d deletes left unprocessed after %d tries", len(reqs), attempt)
			}
			out, err := s.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
				RequestItems: map[string][]types.WriteRequest{s.table: reqs},
			})
			if err != nil {
				return fmt.Errorf("delete group items: %w", err)
			}
			reqs = out.UnprocessedItems[s.table]
			if len(reqs) > 0 {
				if err := sleep(ctx, jitter(backoff)); err != nil {
					return err
				}
				backoff = min(2*backoff, time.Second)
			}
		}
	}
	return nil
}
