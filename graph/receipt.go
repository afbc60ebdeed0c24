package graph

import (
	"context"
	"errors"
	"strings"

	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/receipts"
	"github.com/fracti/api/store"
)

// The reasons (extensions.reason) of receipts and pictures refused as
// UNAVAILABLE: no bucket configured (asking again will not help), or the
// bucket out of reach (extensions.retryAfter says when to try again).
const (
	ReasonStorageNotConfigured = "STORAGE_NOT_CONFIGURED"
	ReasonStorageUnavailable   = "STORAGE_UNAVAILABLE"
)

// storageRetryAfter is when to ask again after the bucket could not be
// reached (the call itself gave up after a few seconds).
const storageRetryAfter = 5

// receiptError turns an error of the receipts service into what the client
// is told: invalid input names its argument, storage that is missing or
// out of reach is UNAVAILABLE with its reason.
func receiptError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, receipts.ErrNotConfigured):
		return withReason(codedError(CodeUnavailable, receipts.ErrNotConfigured.Error()), ReasonStorageNotConfigured)
	case errors.Is(err, receipts.ErrStorageUnavailable):
		return withRetryAfter(withReason(codedError(CodeUnavailable, receipts.ErrStorageUnavailable.Error()), ReasonStorageUnavailable), storageRetryAfter)
	case receipts.InvalidField(err) != "":
		field := receipts.InvalidField(err)
		return badInput(field, "%s", strings.TrimPrefix(err.Error(), field+": "))
	case errors.Is(err, store.ErrUploadGone):
		return badInput("uploadId", "%s", strings.TrimPrefix(err.Error(), store.ErrInvalidInput.Error()+": "))
	}
	return err
}

// receipts is the service, nil-safe: a server without it answers as one
// without a bucket.
func (r *Resolver) receipts() *receipts.Service {
	if r.Receipts == nil {
		return receipts.New(r.Store, nil, receipts.Options{})
	}
	return r.Receipts
}

// writableGroup is the group of a change that is not a ledger write (an
// upload): refused at once while the group is archived, as the ledger's
// condition refuses every write.
func writableGroup(g *store.Group) error {
	if g.ArchivedAt != nil {
		return store.ErrArchived
	}
	return nil
}

// ticket is a presigned upload as GraphQL shows it.
func ticket(t receipts.Ticket) (uploadID, url, method string, headers []model.HTTPHeader) {
	headers = make([]model.HTTPHeader, len(t.Headers))
	for i, h := range t.Headers {
		headers[i] = model.HTTPHeader{Name: h.Name, Value: h.Value}
	}
	return t.UploadID, t.URL, t.Method, headers
}

// receiptID is a receipt's GraphQL id: its expense's and its own.
func receiptID(r *store.Receipt) string { return r.ExpenseID + ":" + r.ID }

// parseReceiptID reads receiptID back.
func parseReceiptID(id string) (expenseID, receiptID string, ok bool) {
	expenseID, receiptID, ok = strings.Cut(id, ":")
	return expenseID, receiptID, ok && expenseID != "" && strings.HasPrefix(receiptID, store.ReceiptPrefix)
}

// receiptURLs mints a receipt's downloads for a current member of its
// group; nothing for anyone else, or without storage.
func (r *Resolver) receiptURLs(ctx context.Context, rc *store.Receipt) (url, thumbnail string, err error) {
	if ok, err := isMember(ctx, rc.GroupID); err != nil || !ok {
		return "", "", err
	}
	svc := r.receipts()
	if !svc.Configured() {
		return "", "", nil
	}
	url, thumbnail, err = svc.URLs(ctx, rc)
	return url, thumbnail, receiptError(err)
}

// avatarURL is a member's or group's picture for a current member: a
// stored one minted as a download, Telegram's as it is.
func (r *Resolver) avatarURL(ctx context.Context, groupID, path string) (*string, error) {
	if path == "" {
		return nil, nil
	}
	if !store.IsStoredAvatar(path) {
		return &path, nil
	}
	if ok, err := isMember(ctx, groupID); err != nil || !ok {
		return nil, err
	}
	svc := r.receipts()
	if !svc.Configured() {
		return nil, nil
	}
	url, err := svc.AvatarURL(ctx, path)
	if err != nil {
		return nil, receiptError(err)
	}
	return &url, nil
}

// avatarTarget is the group whose picture, or whose placeholder's, the
// viewer may change, with the path it has now.
func avatarTarget(ctx context.Context, groupID string, memberID *string) (g *store.Group, member, was string, err error) {
	if g, err = authorize(ctx, groupID, store.ActionEditGroup); err != nil {
		return nil, "", "", err
	}
	if err = writableGroup(g); err != nil {
		return nil, "", "", err
	}
	if memberID == nil || *memberID == "" {
		return g, "", g.AvatarURL, nil
	}
	m, err := loaders.Member(ctx, groupID, *memberID)
	if err != nil {
		return nil, "", "", err
	}
	if m == nil || !m.Active() || !m.Placeholder {
		return nil, "", "", badInput("memberId", "not a placeholder of this group: members who sign in with Telegram keep Telegram's photo")
	}
	return g, m.UserID, m.AvatarURL, nil
}

// positive is n, or null for zero (a dimension a file does not have).
func positive(n int) *int {
	if n <= 0 {
		return nil
	}
	return &n
}

// nonEmpty is s, or null for "".
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
