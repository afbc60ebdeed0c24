package receipts

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/fracti/api/media"
	"github.com/fracti/api/store"
)

// receiptKinds are what a receipt may be.
func receiptKinds(k media.Kind) bool {
	switch k {
	case media.JPEG, media.PNG, media.WebP, media.HEIC, media.PDF:
		return true
	}
	return false
}

// errExpenseDeleted refuses a receipt for a deleted expense (CONFLICT).
var errExpenseDeleted = errors.Join(store.ErrConflict, errors.New("the expense is deleted: restore it to add a receipt"))

// thumbnailed are the kinds that get a thumbnail.
func thumbnailed(k media.Kind) bool { return k == media.JPEG || k == media.PNG || k == media.WebP }

// CreateReceiptUpload lets userID, a member who can see e, upload a receipt
// for it: checked before any URL is made (the type, the size, an expense
// that is live and has room), recorded as a pending upload, and presigned
// for exactly that type and length under the key the server chose.
func (s *Service) CreateReceiptUpload(ctx context.Context, e *store.Expense, userID, contentType string, size int64) (Ticket, error) {
	if !s.Configured() {
		return Ticket{}, ErrNotConfigured
	}
	kind, err := s.announced(contentType, size, receiptKinds)
	if err != nil {
		return Ticket{}, err
	}
	if e.DeletedAt != nil {
		return Ticket{}, errExpenseDeleted
	}
	if len(e.Receipts) >= store.MaxReceiptsPerExpense {
		return Ticket{}, invalidf("expenseId", "the expense has %d receipts, the most it holds: delete one first", len(e.Receipts))
	}
	up, err := s.store.CreateUpload(ctx, store.Upload{
		ID: s.store.NewUploadID(store.ReceiptPrefix), GroupID: e.GroupID, ExpenseID: e.ID,
		ContentType: string(kind), Size: size, UserID: userID,
	})
	if err != nil {
		return Ticket{}, err
	}
	return s.presignPut(ctx, up.ID, store.ReceiptObjectKey(e.GroupID, e.ID, up.ID), kind, size)
}

// ConfirmReceipt attaches the receipt uploaded by uploadID to e on behalf of
// actor, once the stored object proves to be what was announced: its size,
// and its type by its magic bytes. An image gets its width and height and
// a JPEG thumbnail beside it (not HEIC), a PDF its page count. A refused
// object is deleted. Confirming twice returns the receipt attached the
// first time. It returns the receipt and the expense as it now is.
func (s *Service) ConfirmReceipt(ctx context.Context, e *store.Expense, groupTitle, actor, uploadID string) (store.Receipt, *store.Expense, error) {
	if !s.Configured() {
		return store.Receipt{}, nil, ErrNotConfigured
	}
	if r := e.Receipt(uploadID); r != nil {
		return *r, e, nil
	}
	up, err := s.store.GetUpload(ctx, e.GroupID, uploadID)
	if err != nil {
		return store.Receipt{}, nil, err
	}
	if up == nil || !up.IsReceipt() || up.ExpenseID != e.ID {
		return store.Receipt{}, nil, invalidf("uploadId", "no pending upload %s for this expense: it expired, or was confirmed or refused already", uploadID)
	}
	if e.DeletedAt != nil {
		return store.Receipt{}, nil, errExpenseDeleted
	}
	key := store.ReceiptObjectKey(e.GroupID, e.ID, up.ID)
	thumbKey := store.ReceiptThumbnailKey(e.GroupID, e.ID, up.ID)
	data, info, err := s.inspect(ctx, up, key)
	if err != nil {
		return store.Receipt{}, nil, err
	}
	r := store.Receipt{
		ID: up.ID, GroupID: e.GroupID, ExpenseID: e.ID, ContentType: string(info.Kind), Size: up.Size,
		Width: info.Width, Height: info.Height, Pages: info.Pages, UploadedBy: up.UserID, UploadedAt: time.Now().UTC(),
	}
	if thumbnailed(info.Kind) {
		thumb, _, _, err := media.Thumbnail(data, info, s.opts.ThumbnailSide)
		switch {
		case errors.Is(err, media.ErrNoThumbnail):
		case err != nil:
			s.forget(ctx, up, key)
			return store.Receipt{}, nil, invalidf("uploadId", "the file was refused: %v", err)
		default:
			if err := s.objects.Put(ctx, thumbKey, string(media.JPEG), thumb); err != nil {
				return store.Receipt{}, nil, storageError(err)
			}
			r.Thumbnail = true
		}
	}
	// Before the receipt is recorded: an object still tagged pending is
	// deleted by the lifecycle rule after a day.
	if err := s.objects.ClearTags(ctx, key); err != nil {
		return store.Receipt{}, nil, storageError(err)
	}
	next, err := s.attach(ctx, *e, groupTitle, r, actor)
	if err != nil {
		s.forget(ctx, up, key, thumbKey) // recorded nowhere: it must not stay
		return store.Receipt{}, nil, err
	}
	return *next.Receipt(r.ID), next, nil
}

// attach records r on e, reading e again when someone else changed it
// meanwhile (a receipt's place does not depend on the rest of it), or when
// a concurrent confirm of the same upload got there first.
func (s *Service) attach(ctx context.Context, e store.Expense, groupTitle string, r store.Receipt, actor string) (*store.Expense, error) {
	for attempt := 0; ; attempt++ {
		next, err := s.store.AddReceipt(ctx, e, groupTitle, r, actor)
		if err == nil {
			return &next, nil
		}
		var stale *store.VersionConflict
		gone := errors.Is(err, store.ErrUploadGone)
		if !(errors.As(err, &stale) || gone) || attempt == 3 {
			return nil, err
		}
		current, readErr := s.store.CurrentExpense(ctx, e.Ref())
		switch {
		case readErr != nil:
			return nil, readErr
		case current == nil:
			return nil, err
		case current.Receipt(r.ID) != nil:
			return current, nil
		case gone:
			return nil, err
		}
		e = *current
	}
}

// DeleteReceipt detaches a receipt from e on behalf of actor and deletes
// its objects. Who may is the caller's to check (the uploader, or whoever
// may edit the expense).
func (s *Service) DeleteReceipt(ctx context.Context, e *store.Expense, groupTitle, receiptID, actor string) (*store.Expense, error) {
	for attempt := 0; ; attempt++ {
		next, err := s.store.RemoveReceipt(ctx, *e, groupTitle, receiptID, actor)
		var stale *store.VersionConflict
		if errors.As(err, &stale) && attempt < 3 {
			if e, err = s.store.CurrentExpense(ctx, e.Ref()); err != nil || e == nil {
				return nil, orNotFound(err)
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if s.Configured() {
			keys := []string{store.ReceiptObjectKey(e.GroupID, e.ID, receiptID), store.ReceiptThumbnailKey(e.GroupID, e.ID, receiptID)}
			if err := s.objects.Delete(context.WithoutCancel(ctx), keys...); err != nil {
				// Recorded nowhere now: `verify` reports what is left.
				s.opts.Log.WarnContext(ctx, "delete a receipt's objects", "receipt", receiptID, "error", err)
			}
		}
		return &next, nil
	}
}

func orNotFound(err error) error {
	if err != nil {
		return err
	}
	return store.ErrNotFound
}

// URL mints a receipt's download, valid for DownloadTTL, served as its
// checked type: the caller checks that the viewer is a member.
func (s *Service) URL(ctx context.Context, r *store.Receipt) (string, error) {
	return s.download(ctx, store.ReceiptObjectKey(r.GroupID, r.ExpenseID, r.ID), media.Kind(r.ContentType), receiptFileName(r)+media.Kind(r.ContentType).Extension())
}

// ThumbnailURL mints a download of a receipt's JPEG thumbnail ("" without
// one), as URL does.
func (s *Service) ThumbnailURL(ctx context.Context, r *store.Receipt) (string, error) {
	if !r.Thumbnail {
		return "", nil
	}
	return s.download(ctx, store.ReceiptThumbnailKey(r.GroupID, r.ExpenseID, r.ID), media.JPEG, receiptFileName(r)+"-thumbnail"+media.JPEG.Extension())
}

// receiptFileName is the start of a receipt's downloads' file names.
func receiptFileName(r *store.Receipt) string {
	return "receipt-" + strings.TrimPrefix(r.ID, store.ReceiptPrefix)[:8]
}
