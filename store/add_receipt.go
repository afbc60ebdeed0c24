package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ErrUploadGone means the upload a receipt or picture was to come from is
// not pending any more: it was confirmed already, or it expired.
// It is invalid input: the upload's id names nothing pending.
var ErrUploadGone = fmt.Errorf("%w: the upload was confirmed already or has expired", ErrInvalidInput)

// AddReceipt attaches r, brought by the pending upload r.ID, to the live
// expense e (as read, at its version) on behalf of actor: the next version
// of the expense with its revision and a RECEIPT_ADDED event, the upload's
// record deleted, in one transaction on condition that the upload is still
// pending (ErrUploadGone), that actor is a member (ErrNotFound) and that the
// expense has not changed since it was read (a VersionConflict: read it
// again and retry, the receipt's place does not depend on the rest).
func (s *Store) AddReceipt(ctx context.Context, e Expense, groupTitle string, r Receipt, actor string) (Expense, error) {
	if len(e.Receipts) >= MaxReceiptsPerExpense {
		return Expense{}, fmt.Errorf("%w: an expense holds at most %d receipts", ErrInvalidInput, MaxReceiptsPerExpense)
	}
	if e.Receipt(r.ID) != nil {
		return e, nil
	}
	next := e
	next.Receipts = append(slices.Clone(e.Receipts), r)
	return s.editReceipts(ctx, e, next, groupTitle, actor, EventReceiptAdded, s.uploadConsumed(e.GroupID, r.ID))
}

// RemoveReceipt detaches the receipt with the id from the live expense e (as
// read) on behalf of actor, as AddReceipt adds one, with a RECEIPT_DELETED
// event; ErrNotFound if e has no such receipt. Its objects are the
// caller's to delete once this succeeded.
func (s *Store) RemoveReceipt(ctx context.Context, e Expense, groupTitle, receiptID, actor string) (Expense, error) {
	if e.Receipt(receiptID) == nil {
		return Expense{}, notFoundf("receipt %s", receiptID)
	}
	next := e
	next.Receipts = slices.DeleteFunc(slices.Clone(e.Receipts), func(r Receipt) bool { return r.ID == receiptID })
	return s.editReceipts(ctx, e, next, groupTitle, actor, EventReceiptDeleted)
}

// editReceipts writes next, e with other receipts, as e's next version,
// with more items in the transaction; actor must be a current member.
func (s *Store) editReceipts(ctx context.Context, e, next Expense, groupTitle, actor string, event EventType, more ...types.TransactWriteItem) (Expense, error) {
	items := append(more, s.memberCheck(e.GroupID, actor, memberCurrent))
	out, err := s.editExpense(ctx, e, next, groupTitle, actor, expenseEdit{event: event, items: items})
	var refused errEditItemRefused
	switch {
	case errors.As(err, &refused) && refused.i < len(more):
		return Expense{}, ErrUploadGone
	case errors.As(err, &refused):
		return Expense{}, notFoundf("group %s", e.GroupID)
	}
	return out, err
}
