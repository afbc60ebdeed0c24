package store

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The activity events of receipts. Their subject is the expense, and their
// changes are its receipts before and after, as the revision records them.
const (
	EventReceiptAdded   EventType = "receipt_added"
	EventReceiptDeleted EventType = "receipt_deleted"
)

// FieldReceipts is the revision field that lists an expense's receipts.
const FieldReceipts = "receipts"

// MaxReceiptsPerExpense bounds the receipts one expense holds: they live on
// its item, which every edit rewrites.
const MaxReceiptsPerExpense = 10

// ReceiptPrefix starts a receipt's id (and its upload's): "rcp_" and 32 hex
// digits. AvatarUploadPrefix starts an avatar upload's.
const (
	ReceiptPrefix      = "rcp_"
	AvatarUploadPrefix = "avt_"
)

// ReceiptPurgeGrace is how long after its restore window a deleted expense
// with receipts keeps its tombstone (TTL): the purge job deletes the
// receipts' objects and then the tombstone itself once the window is over,
// and TTL, which would forget the objects, only catches what it missed.
const ReceiptPurgeGrace = 7 * 24 * time.Hour

// Receipt is a picture or PDF attached to an expense. Its bytes are an
// object in storage, named by the expense and the receipt's id; what the
// server learnt of them on confirmation is kept on the expense's item, so
// that every read of the expense has its receipts, and every change to them
// is a new version of the expense with its revision.
type Receipt struct {
	ID          string // rcp_<hex>: the id of the upload that brought it
	GroupID     string // the expense's, which locate its objects (not stored)
	ExpenseID   string
	ContentType string // by its magic bytes, never the uploader's word
	Size        int64  // bytes
	Width       int    // images: pixels as displayed; 0 otherwise
	Height      int
	Pages       int  // PDFs: pages; 0 otherwise
	Thumbnail   bool // a JPEG thumbnail is stored beside it
	UploadedBy  string
	UploadedAt  time.Time
}

// receiptRecord is a receipt as the expense's item holds it (short names:
// every edit of the expense writes them again).
type receiptRecord struct {
	ID          string `dynamodbav:"id"`
	ContentType string `dynamodbav:"type"`
	Size        int64  `dynamodbav:"size"`
	Width       int    `dynamodbav:"w,omitempty"`
	Height      int    `dynamodbav:"h,omitempty"`
	Pages       int    `dynamodbav:"pages,omitempty"`
	Thumbnail   bool   `dynamodbav:"thumb,omitempty"`
	UploadedBy  string `dynamodbav:"by"`
	UploadedAt  string `dynamodbav:"at"`
}

func receiptRecords(rs []Receipt) []receiptRecord {
	if len(rs) == 0 {
		return nil
	}
	out := make([]receiptRecord, len(rs))
	for i, r := range rs {
		out[i] = receiptRecord{
			ID: r.ID, ContentType: r.ContentType, Size: r.Size, Width: r.Width, Height: r.Height,
			Pages: r.Pages, Thumbnail: r.Thumbnail, UploadedBy: r.UploadedBy, UploadedAt: formatTime(r.UploadedAt),
		}
	}
	return out
}

func receiptsOf(groupID, expenseID string, rs []receiptRecord) ([]Receipt, error) {
	if len(rs) == 0 {
		return nil, nil
	}
	out := make([]Receipt, len(rs))
	for i, r := range rs {
		at, err := parseTime(r.UploadedAt)
		if err != nil {
			return nil, fmt.Errorf("expense %s receipt %s: %w", expenseID, r.ID, err)
		}
		out[i] = Receipt{
			ID: r.ID, GroupID: groupID, ExpenseID: expenseID, ContentType: r.ContentType, Size: r.Size, Width: r.Width, Height: r.Height,
			Pages: r.Pages, Thumbnail: r.Thumbnail, UploadedBy: r.UploadedBy, UploadedAt: at,
		}
	}
	return out, nil
}

// Receipt returns the expense's receipt with the id, nil when it has none.
func (e *Expense) Receipt(id string) *Receipt {
	for i := range e.Receipts {
		if e.Receipts[i].ID == id {
			return &e.Receipts[i]
		}
	}
	return nil
}

// receiptsDisplay is how a revision shows an expense's receipts: each one's
// id, type and size, in the order they were added ("rcp_…: image/jpeg,
// 245 KB; rcp_…: application/pdf, 3 pages"); absent without any.
func receiptsDisplay(rs []Receipt) (string, bool) {
	if len(rs) == 0 {
		return "", false
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.ID + ": " + r.ContentType + ", " + byteSize(r.Size)
		if r.Pages > 0 {
			parts[i] += ", " + plural(r.Pages, "page")
		}
		if r.Width > 0 {
			parts[i] += ", " + strconv.Itoa(r.Width) + "×" + strconv.Itoa(r.Height)
		}
	}
	return strings.Join(parts, "; "), true
}

// byteSize writes a size as people read it: bytes, KB or MB (of 1000).
func byteSize(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1000*1000:
		return strconv.FormatInt((n+500)/1000, 10) + " KB"
	default:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// ReceiptObjectKey is where a receipt's bytes are stored:
// receipts/<groupId>/<expenseId>/<receiptId>. Its thumbnail is beside it
// (ReceiptThumbnailKey). Storage keys are not table keys, but the store is
// where keys are written down.
func ReceiptObjectKey(groupID, expenseID, receiptID string) string {
	return ExpenseObjectPrefix(groupID, expenseID) + receiptID
}

// ReceiptThumbnailKey is where a receipt's JPEG thumbnail is stored.
func ReceiptThumbnailKey(groupID, expenseID, receiptID string) string {
	return ReceiptObjectKey(groupID, expenseID, receiptID) + ".thumb.jpg"
}

// ExpenseObjectPrefix is the storage prefix of every object of an expense's
// receipts.
func ExpenseObjectPrefix(groupID, expenseID string) string {
	return GroupReceiptsPrefix(groupID) + expenseID + "/"
}

// GroupReceiptsPrefix is the storage prefix of every receipt of a group.
func GroupReceiptsPrefix(groupID string) string { return "receipts/" + groupID + "/" }

// GroupAvatarsPrefix is the storage prefix of a group's pictures: its own
// and its placeholders'.
func GroupAvatarsPrefix(groupID string) string { return "avatars/" + groupID + "/" }

// AvatarObjectKey is where a picture uploaded for a member of a group (a
// placeholder), or for the group itself (memberID ""), is stored, re-encoded
// as JPEG: avatars/<groupId>/<userId>.jpg, or avatars/<groupId>/group.jpg.
// Seed 000 keeps avatars/<userId>.jpg; a placeholder's picture belongs to
// its group, so the group leads, and a deleted group's go with one prefix.
func AvatarObjectKey(groupID, memberID string) string {
	if memberID == "" {
		memberID = "group"
	}
	return GroupAvatarsPrefix(groupID) + memberID + ".jpg"
}

// AvatarUploadKey is where an avatar's upload lands before it is
// re-encoded: avatars/<groupId>/uploads/<uploadId>.
func AvatarUploadKey(groupID, uploadID string) string {
	return GroupAvatarsPrefix(groupID) + "uploads/" + uploadID
}

// IsStoredAvatar reports whether a member's or group's avatarUrl is a path
// in storage (an uploaded picture) rather than a URL (Telegram's photo).
func IsStoredAvatar(path string) bool { return strings.HasPrefix(path, "avatars/") }

// ParseReceiptObjectKey reads back a receipt's object key (or its
// thumbnail's): ok false for anything else under receipts/.
func ParseReceiptObjectKey(key string) (groupID, expenseID, receiptID string, thumbnail, ok bool) {
	rest, found := strings.CutPrefix(key, "receipts/")
	if !found {
		return "", "", "", false, false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return "", "", "", false, false
	}
	id, thumbnail := strings.CutSuffix(parts[2], ".thumb.jpg")
	return parts[0], parts[1], id, thumbnail, strings.HasPrefix(id, ReceiptPrefix)
}
