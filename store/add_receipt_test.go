package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// upload records a pending receipt upload for e by user.
func (f fixture) upload(e store.Expense, user string) store.Upload {
	f.t.Helper()
	up, err := f.CreateUpload(ctx, store.Upload{
		ID: f.NewUploadID(store.ReceiptPrefix), GroupID: e.GroupID, ExpenseID: e.ID,
		ContentType: "image/jpeg", Size: 1234, UserID: user,
	})
	require.NoError(f.t, err)
	return up
}

func receiptOf(up store.Upload) store.Receipt {
	return store.Receipt{ID: up.ID, ContentType: up.ContentType, Size: up.Size, Width: 640, Height: 480, Thumbnail: true,
		UploadedBy: up.UserID, UploadedAt: up.CreatedAt}
}

func TestAddAndRemoveReceipt(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	e := f.expense(g, "1", "10.00", "1", "2")
	up := f.upload(e, "2")
	require.Len(t, up.ID, len(store.ReceiptPrefix)+32)
	pending, err := f.GetUpload(ctx, g.ID, up.ID)
	require.NoError(t, err)
	require.Equal(t, up.ExpenseID, pending.ExpenseID)
	require.True(t, pending.IsReceipt())

	next, err := f.AddReceipt(ctx, e, g.Title, receiptOf(up), "2")
	require.NoError(t, err)
	require.Equal(t, e.Version+1, next.Version)
	require.Len(t, next.Receipts, 1)

	// Read back from the item, with the expense's group and id.
	read, err := f.getExpense(e.ID)
	require.NoError(t, err)
	require.Len(t, read.Receipts, 1)
	r := read.Receipts[0]
	require.Equal(t, up.ID, r.ID)
	require.Equal(t, g.ID, r.GroupID)
	require.Equal(t, e.ID, r.ExpenseID)
	require.Equal(t, 640, r.Width)
	require.True(t, r.Thumbnail)
	require.Equal(t, "2", r.UploadedBy)

	// The upload is gone with the confirmation: confirming again is refused.
	gone, err := f.GetUpload(ctx, g.ID, up.ID)
	require.NoError(t, err)
	require.Nil(t, gone)
	_, err = f.AddReceipt(ctx, read, g.Title, receiptOf(f.upload(e, "2")), "2")
	require.NoError(t, err)
	read, err = f.getExpense(e.ID)
	require.NoError(t, err)
	_, err = f.AddReceipt(ctx, read, g.Title, store.Receipt{ID: store.ReceiptPrefix + "00000000000000000000000000000000", UploadedAt: time.Now()}, "2")
	require.ErrorIs(t, err, store.ErrUploadGone, "no such upload is pending")

	// The revision and the event name the receipts before and after.
	revs, err := f.ListRevisions(ctx, g.ID, e.ID)
	require.NoError(t, err)
	require.Equal(t, store.FieldReceipts, revs[0].Changes[0].Field)
	require.Contains(t, *revs[0].Changes[0].After, "image/jpeg, 1 KB, 640×480")
	events, err := f.ListEvents(ctx, g.ID, store.PageArgs{First: 1})
	require.NoError(t, err)
	require.Equal(t, store.EventReceiptAdded, events.Items[0].Type)

	// An edit of the expense's fields keeps its receipts.
	edit := read
	edit.Description = "Dinner and drinks"
	edited, err := f.UpdateExpense(ctx, read, edit, g.Title, "1")
	require.NoError(t, err)
	require.Len(t, edited.Receipts, 2)

	removed, err := f.RemoveReceipt(ctx, edited, g.Title, up.ID, "1")
	require.NoError(t, err)
	require.Len(t, removed.Receipts, 1)
	require.Nil(t, removed.Receipt(up.ID))
	_, err = f.RemoveReceipt(ctx, removed, g.Title, up.ID, "1")
	require.ErrorIs(t, err, store.ErrNotFound)
	events, err = f.ListEvents(ctx, g.ID, store.PageArgs{First: 1})
	require.NoError(t, err)
	require.Equal(t, store.EventReceiptDeleted, events.Items[0].Type)

	// A non-member cannot attach one.
	_, err = f.AddReceipt(ctx, removed, g.Title, receiptOf(f.upload(e, "9")), "9")
	require.ErrorIs(t, err, store.ErrNotFound)

	broken, err := f.VerifyChain(ctx, g.ID)
	require.NoError(t, err)
	require.Empty(t, broken)
	f.noDrift(g.ID)
}

// Two confirmations of the same upload at once: one receipt, and the loser
// is told the upload is gone.
func TestAddReceiptOnce(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	e := f.expense(g, "1", "10.00", "1", "2")
	up := f.upload(e, "1")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = f.AddReceipt(context.Background(), e, g.Title, receiptOf(up), "1")
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		}
	}
	require.Equal(t, 1, ok, "%v", errs)
	read, err := f.getExpense(e.ID)
	require.NoError(t, err)
	require.Len(t, read.Receipts, 1)
}

// An upload expires after UploadLifetime even before TTL deletes it.
func TestUploadExpires(t *testing.T) {
	f := newSeriesFixture(t)
	g := f.group("1")
	e := f.expense(g, "1", "10.00", "1")
	up := f.upload(e, "1")
	f.clock.Add(store.UploadLifetime + time.Second)
	gone, err := f.GetUpload(ctx, g.ID, up.ID)
	require.NoError(t, err)
	require.Nil(t, gone)
}

// purged records what the purge asked storage to delete.
type purged struct {
	mu       sync.Mutex
	groups   []string
	expenses []string
}

func (p *purged) PurgeGroupObjects(_ context.Context, groupID string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.groups = append(p.groups, groupID)
	return nil
}

func (p *purged) PurgeExpenseObjects(_ context.Context, _, expenseID string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.expenses = append(p.expenses, expenseID)
	return nil
}

// A deleted expense with receipts is listed for the purge, which deletes
// its objects and then its tombstone once the restore window is over; one
// restored meanwhile, or without receipts, is not touched.
func TestPurgeDeletedReceipts(t *testing.T) {
	f := newSeriesFixture(t)
	g := f.group("1", "2")
	withReceipt := func() store.Expense {
		e := f.expense(g, "1", "10.00", "1", "2")
		next, err := f.AddReceipt(ctx, e, g.Title, receiptOf(f.upload(e, "1")), "1")
		require.NoError(t, err)
		return next
	}
	doomed, restored, plain := withReceipt(), withReceipt(), f.expense(g, "1", "5.00", "1", "2")
	for _, e := range []store.Expense{doomed, restored, plain} {
		_, err := f.DeleteExpense(ctx, e, "1")
		require.NoError(t, err)
	}
	tomb, err := f.getExpense(restored.ID)
	require.NoError(t, err)
	_, err = f.RestoreExpense(ctx, tomb, g.Title, "1")
	require.NoError(t, err)

	p := &purged{}
	n, err := f.PurgeDeletedReceipts(ctx, p)
	require.NoError(t, err)
	require.Zero(t, n, "nothing within the restore window")

	f.clock.Add(store.RestoreWindow + time.Hour)
	n, err = f.PurgeDeletedReceipts(ctx, p)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, []string{doomed.ID}, p.expenses)
	_, err = f.getExpense(doomed.ID)
	require.ErrorIs(t, err, store.ErrNotFound, "its tombstone went after its objects")
	back, err := f.getExpense(restored.ID)
	require.NoError(t, err)
	require.Len(t, back.Receipts, 1, "a restored expense keeps its receipts")

	n, err = f.PurgeDeletedReceipts(ctx, p)
	require.NoError(t, err)
	require.Zero(t, n, "found once")
}
