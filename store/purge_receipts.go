package store

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// PurgeObjects deletes what storage holds for a group (every receipt and
// picture) or for one of its expenses (its receipts). The purge jobs call it
// before the items that name those objects go, so that a purge cut short
// is found again with its objects still named.
type PurgeObjects interface {
	PurgeGroupObjects(ctx context.Context, groupID string) error
	PurgeExpenseObjects(ctx context.Context, groupID, expenseID string) error
}

// PurgeDeletedReceipts deletes the receipts of every deleted expense whose
// restore window has passed, and then its tombstone (which TTL would delete
// a little later, forgetting the objects): it finds them under
// PURGE#RECEIPTS in GSI1 with one Query, never a Scan. It returns how many
// expenses it purged; errors of one do not stop the others.
func (s *Store) PurgeDeletedReceipts(ctx context.Context, objects PurgeObjects) (int, error) {
	items, err := s.collect(ctx, listQuery{
		list: "purge-receipts", index: indexGSI1, keyCond: gsi1UpToCond, forward: true,
		values: map[string]types.AttributeValue{":pk": str(receiptsPurgeGSI1PK), ":to": str(upTo(formatTime(s.now())))},
	}, nil, math.MaxInt32)
	if err != nil {
		return 0, err
	}
	purged := 0
	var errs []error
	for _, it := range items {
		groupID, expenseID, ok := parseReceiptsPurgeGSI1SK(keyAttr(it, attrGSI1SK))
		if !ok {
			continue
		}
		if err := objects.PurgeExpenseObjects(ctx, groupID, expenseID); err != nil {
			errs = append(errs, fmt.Errorf("purge receipts of expense %s: %w", expenseID, err))
			continue
		}
		// Only while it is still this tombstone: a restore deletes it.
		_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: &s.table, Key: tableKey(keyAttr(it, attrPK), keyAttr(it, attrSK)),
			ConditionExpression: aws.String(attrExists(attrDeletedAt)),
		})
		if err != nil && !IsCondCheckFailed(err) {
			errs = append(errs, fmt.Errorf("purge deleted expense %s: %w", expenseID, err))
			continue
		}
		purged++
	}
	return purged, errors.Join(errs...)
}
