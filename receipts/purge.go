package receipts

import (
	"context"
	"fmt"
	"io"

	"github.com/fracti/api/store"
)

// PurgeGroupObjects deletes every receipt and picture of a group (the purge
// of a deleted group calls it before its items go).
func (s *Service) PurgeGroupObjects(ctx context.Context, groupID string) error {
	if !s.Configured() {
		return nil
	}
	for _, prefix := range []string{store.GroupReceiptsPrefix(groupID), store.GroupAvatarsPrefix(groupID)} {
		if _, err := s.objects.DeletePrefix(ctx, prefix); err != nil {
			return fmt.Errorf("delete %s: %w", prefix, err)
		}
	}
	return nil
}

// PurgeExpenseObjects deletes every receipt of one expense (the purge of a
// deleted expense's tombstone calls it first).
func (s *Service) PurgeExpenseObjects(ctx context.Context, groupID, expenseID string) error {
	if !s.Configured() {
		return nil
	}
	prefix := store.ExpenseObjectPrefix(groupID, expenseID)
	if _, err := s.objects.DeletePrefix(ctx, prefix); err != nil {
		return fmt.Errorf("delete %s: %w", prefix, err)
	}
	return nil
}

// PurgeDeletedReceipts runs the purge of deleted expenses' receipts whose
// restore window has passed (store.PurgeDeletedReceipts), when there is a
// bucket; it returns how many expenses it purged.
func (s *Service) PurgeDeletedReceipts(ctx context.Context) (int, error) {
	if !s.Configured() {
		return 0, nil // without a bucket nothing was ever uploaded
	}
	return s.store.PurgeDeletedReceipts(ctx, s)
}

// PurgeTarget is what PurgeDeletedGroupsWith should delete besides the
// items: nil without a bucket.
func (s *Service) PurgeTarget() store.PurgeObjects {
	if !s.Configured() {
		return nil
	}
	return s
}

// Open streams a stored object (a receipt, for the zip export).
func (s *Service) Open(ctx context.Context, key string) (io.ReadCloser, int64, error) {
	if !s.Configured() {
		return nil, 0, ErrNotConfigured
	}
	body, size, err := s.objects.Open(ctx, key)
	return body, size, storageError(err)
}
