package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// maxTransactItems is DynamoDB's limit on the items of one TransactWriteItems.
const maxTransactItems = 100

// conflictRetries bounds how often a transaction cancelled by a concurrent
// transaction on the same items is tried again. The SDK retries throttling
// itself but treats TransactionConflict as final.
const conflictRetries = 8

// conflictBackoff is the first wait before trying a conflicted transaction again.
const conflictBackoff = 10 * time.Millisecond

// transactWrite runs items as one all-or-nothing transaction, retrying (see
// retry) while DynamoDB cancels it only because another transaction touched
// the same items at the same moment.
func (s *Store) transactWrite(ctx context.Context, items []types.TransactWriteItem) error {
	if len(items) > maxTransactItems {
		return fmt.Errorf("%w: %d items, the limit is %d", ErrTooManyItems, len(items), maxTransactItems)
	}
	return retry(ctx, 1+conflictRetries, conflictBackoff, func() (bool, error) {
		_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		return err == nil || !isTransactionConflict(err) || IsCondCheckFailed(err), err
	})
}

// putNew is the transaction item that writes rec as a new item, on condition
// that no item has its key yet; what names it in an encoding error.
func (s *Store) putNew(rec any, what string) (types.TransactWriteItem, error) {
	av, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return types.TransactWriteItem{}, fmt.Errorf("encode %s: %w", what, err)
	}
	return types.TransactWriteItem{Put: &types.Put{
		TableName: &s.table, Item: av,
		ConditionExpression: aws.String(condItemAbsent),
	}}, nil
}
