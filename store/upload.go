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

// UploadLifetime is how long a pending upload may be confirmed: the bucket's
// lifecycle rule expires an unconfirmed object after a day, and TTL its
// record.
const UploadLifetime = 24 * time.Hour

// Upload is a file a member was given a presigned URL for and has not
// confirmed yet: a receipt for an expense, or a picture for the group or one
// of its placeholders. It remembers what was announced, which the confirm
// holds the stored object to.
type Upload struct {
	ID          string // rcp_<hex> for a receipt, avt_<hex> for a picture
	GroupID     string
	ExpenseID   string // a receipt's expense
	MemberID    string // a picture's placeholder; "" for the group's own
	ContentType string
	Size        int64
	UserID      string // who asked for it
	CreatedAt   time.Time
}

// IsReceipt reports whether the upload brings a receipt (else a picture).
func (u *Upload) IsReceipt() bool { return u.ExpenseID != "" }

// uploadRecord is the GROUP#<groupId> / UPLOAD#<uploadId> item, gone when
// its upload is confirmed (in the same transaction) or expires (TTL).
type uploadRecord struct {
	itemKey
	ID            string `dynamodbav:"id"`
	ExpenseID     string `dynamodbav:"expenseId,omitempty"`
	MemberID      string `dynamodbav:"memberId,omitempty"`
	ContentType   string `dynamodbav:"contentType"`
	Size          int64  `dynamodbav:"size"`
	UserID        string `dynamodbav:"userId"`
	CreatedAt     string `dynamodbav:"createdAt"`
	TTL           int64  `dynamodbav:"ttl"`
	FormatVersion int    `dynamodbav:"formatVersion"`
}

// NewUploadID is a fresh id for an upload of a receipt (ReceiptPrefix) or
// of a picture (AvatarUploadPrefix).
func (s *Store) NewUploadID(prefix string) string { return prefixedID(prefix, s.newID()) }

// CreateUpload records a pending upload (u.ID from NewUploadID), stamped
// now; it expires after UploadLifetime.
func (s *Store) CreateUpload(ctx context.Context, u Upload) (Upload, error) {
	u.CreatedAt = s.stamp()
	av, err := attributevalue.MarshalMap(uploadRecord{
		itemKey: itemKey{PK: groupPK(u.GroupID), SK: uploadSK(u.ID)},
		ID:      u.ID, ExpenseID: u.ExpenseID, MemberID: u.MemberID, ContentType: u.ContentType, Size: u.Size,
		UserID: u.UserID, CreatedAt: formatTime(u.CreatedAt), TTL: u.CreatedAt.Add(UploadLifetime).Unix(),
		FormatVersion: formatCurrent,
	})
	if err != nil {
		return Upload{}, fmt.Errorf("encode upload: %w", err)
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: av, ConditionExpression: aws.String(condItemAbsent)})
	if IsCondCheckFailed(err) {
		return Upload{}, conflictf("an upload with this id already exists")
	}
	if err != nil {
		return Upload{}, fmt.Errorf("create upload: %w", err)
	}
	return u, nil
}

// GetUpload reads a pending upload of the group (strongly consistent: it is
// confirmed moments after it is made); nil when there is none, or it has
// expired (TTL may not have deleted it yet).
func (s *Store) GetUpload(ctx context.Context, groupID, uploadID string) (*Upload, error) {
	item, found, err := s.getItem(ctx, groupPK(groupID), uploadSK(uploadID), true)
	if err != nil || !found {
		return nil, err
	}
	var r uploadRecord
	if err := attributevalue.UnmarshalMap(item, &r); err != nil {
		return nil, fmt.Errorf("decode upload: %w", err)
	}
	created, err := parseTime(r.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("upload %s createdAt: %w", r.ID, err)
	}
	if !s.now().Before(created.Add(UploadLifetime)) {
		return nil, nil
	}
	return &Upload{
		ID: r.ID, GroupID: groupID, ExpenseID: r.ExpenseID, MemberID: r.MemberID, ContentType: r.ContentType,
		Size: r.Size, UserID: r.UserID, CreatedAt: created,
	}, nil
}

// DeleteUpload forgets a pending upload (one whose object was refused).
func (s *Store) DeleteUpload(ctx context.Context, groupID, uploadID string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: tableKey(groupPK(groupID), uploadSK(uploadID))})
	if err != nil {
		return fmt.Errorf("delete upload: %w", err)
	}
	return nil
}

// uploadConsumed is the transaction's delete of a pending upload's record,
// on condition that it is still pending: how a confirmation happens once.
func (s *Store) uploadConsumed(groupID, uploadID string) types.TransactWriteItem {
	return types.TransactWriteItem{Delete: &types.Delete{
		TableName: &s.table, Key: tableKey(groupPK(groupID), uploadSK(uploadID)),
		ConditionExpression: aws.String(condItemExists),
	}}
}
