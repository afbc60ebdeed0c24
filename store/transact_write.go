package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// maxTransactItems is DynamoDB's limit on the items of one TransactWriteItems.
const maxTransactItems = 100

// conflictRetries bounds how often a transaction cancelled by a concurrent
// transaction on the same items is tried again. The SDK retries throttling
// itself but treats TransactionConflict as final.
const conflictRetries = 8

// transactWrite runs items as one all-or-nothing transaction, retrying with
// jittered backoff while DynamoDB cancels it only because another transaction
// touched the same items at the same moment.
func (s *Store) transactWrite(ctx context.Context, items []types.TransactWriteItem) error {
	if len(items) > maxTransactItems {
		return fmt.Errorf("%w: %d items, the limit is %d", ErrTooManyItems, len(items), maxTransactItems)
	}
	backoff := 10 * time.Millisecond
	for attempt := 0; ; attempt++ {
		_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		if err == nil || !isTransactionConflict(err) || IsCondCheckFailed(err) || attempt == conflictRetries {
			return err
		}
		wait := backoff/2 + time.Duration(rand.Int64N(int64(backoff)))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		backoff = min(2*backoff, time.Second)
	}
}
