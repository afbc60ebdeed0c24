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

// mintsFor reports whether a receipt's or picture's URLs are minted for the
// viewer: a current member of the group, on a server with storage.
func (r *Resolver) mintsFor(ctx context.Context, groupID string) (bool, error) {
	if !r.Receipts.Configured() {
		return false, nil
	}
	return isMember(ctx, groupID)
}

// receiptURL is a download minted by mint for a viewer mintsFor allows,
// null for anyone else.
func (r *Resolver) receiptURL(ctx context.Context, rc *store.Receipt, mint func(context.Context, *store.Receipt) (string, error)) (*string, error) {
	if ok, err := r.mintsFor(ctx, rc.GroupID); err != nil || !ok {
		return nil, err
	}
	url, err := mint(ctx, rc)
	return nonEmpty(url), receiptError(err)
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
	if ok, err := r.mintsFor(ctx, groupID); err != nil || !ok {
		return nil, err
	}
	url, err := r.Receipts.AvatarURL(ctx, path)
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
