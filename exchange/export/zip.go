package export

import (
	"archive/zip"
	"context"
	"fmt"
	"io"

	"github.com/fracti/api/media"
	"github.com/fracti/api/store"
)

// Objects opens stored files: the receipts a zip export carries.
type Objects interface {
	// Open streams the object at key, with its size.
	Open(ctx context.Context, key string) (io.ReadCloser, int64, error)
}

// ReceiptFile is where a zip export holds a receipt:
// receipts/<expenseId>/<receiptId>.<ext>.
func ReceiptFile(r *store.Receipt) string {
	return "receipts/" + r.ExpenseID + "/" + r.ID + media.Kind(r.ContentType).Extension()
}

// Zip writes the group as a zip archive: the JSON document and the CSV
// (as their own exports are named), then every receipt of its live
// expenses, each streamed from storage into its entry (stored, not
// compressed again: pictures and PDFs are compressed already), so that
// memory stays flat however many there are. Without objects (a server
// without storage, where nothing could be uploaded) it holds the two
// documents alone.
func (x Export) Zip(ctx context.Context, w io.Writer, objects Objects) error {
	zw := zip.NewWriter(w)
	modified := x.Now.UTC()
	entry := func(name string, method uint16) (io.Writer, error) {
		return zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: modified})
	}
	for _, part := range []struct {
		ext   string
		write func(context.Context, io.Writer) error
	}{{"json", x.JSON}, {"csv", x.CSV}} {
		f, err := entry(x.Filename(part.ext), zip.Deflate)
		if err != nil {
			return err
		}
		if err := part.write(ctx, f); err != nil {
			return err
		}
	}
	expenses := &reader[store.Expense]{list: x.Store.ListExpensesOldestFirst, groupID: x.Group.ID}
	for objects != nil && !expenses.done {
		page, err := expenses.nextPage(ctx)
		if err != nil {
			return err
		}
		for i := range page {
			for _, r := range page[i].Receipts {
				if err := x.zipReceipt(ctx, entry, objects, &r); err != nil {
					return err
				}
			}
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if x.Flush != nil {
		x.Flush()
	}
	return nil
}

// zipReceipt copies one receipt's object into its entry.
func (x Export) zipReceipt(ctx context.Context, entry func(string, uint16) (io.Writer, error), objects Objects, r *store.Receipt) error {
	body, _, err := objects.Open(ctx, store.ReceiptObjectKey(r.GroupID, r.ExpenseID, r.ID))
	if err != nil {
		return fmt.Errorf("receipt %s: %w", r.ID, err)
	}
	defer body.Close()
	f, err := entry(ReceiptFile(r), zip.Store)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, body); err != nil {
		return fmt.Errorf("receipt %s: %w", r.ID, err)
	}
	if x.Flush != nil {
		x.Flush()
	}
	return nil
}
