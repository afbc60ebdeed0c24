package commands

import (
	"bytes"
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/internal/testkit/s3test"
	"github.com/fracti/api/internal/testkit/servertest"
	"github.com/fracti/api/money"
	"github.com/fracti/api/objectstore"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func TestVerify(t *testing.T) {
	table, db, s, g := servertest.VerifiedGroup(t)
	ctx := context.Background()
	other, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "U", Currency: money.MustCurrency("USD"), Creator: store.NewMember{UserID: "1", Name: "A"}})
	require.NoError(t, err)

	var out bytes.Buffer
	require.NoError(t, call(t, verifyCommand, nil, &out))
	require.Contains(t, out.String(), "2 groups verified, 0 with drift")

	// Corrupt one balance behind the API's back: verify must notice.
	_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(table),
		Key:                       map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "GROUP#" + g.ID}, "SK": &types.AttributeValueMemberS{Value: "LEDGER#USD"}},
		UpdateExpression:          aws.String("ADD #p :one"),
		ExpressionAttributeNames:  map[string]string{"#p": "p:1"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "0.01"}},
	})
	require.NoError(t, err)
	out.Reset()
	err = call(t, verifyCommand, []string{"--group", g.ID}, &out)
	require.ErrorIs(t, err, errDrift)
	require.Contains(t, out.String(), "DRIFT")
	require.Contains(t, out.String(), "user 1 paid")
	require.Contains(t, out.String(), "nets add up to 0.01")

	out.Reset()
	require.NoError(t, call(t, verifyCommand, []string{"--group", other.ID}, &out))
	require.Error(t, run("verify", "--group", g.ID), "the command fails, so the process exits non-zero")
}

// TestVerifyFindsAnEditedActivityEvent: events 1–2 are the group's creation
// and a join, 3–5 three expenses. Changing any one of them behind the API's
// back, even by a cent, breaks the chain at that event, and verify says which.
func TestVerifyFindsAnEditedActivityEvent(t *testing.T) {
	table, db, _, g := servertest.VerifiedGroup(t)
	ctx := context.Background()
	var out bytes.Buffer
	require.NoError(t, call(t, verifyCommand, []string{"--group", g.ID}, &out))

	key := func(sk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "GROUP#" + g.ID}, "SK": &types.AttributeValueMemberS{Value: sk}}
	}
	// Dropping the newest event leaves the ledger's head pointing past the log.
	_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key("EVENT#000000000005")})
	require.NoError(t, err)
	out.Reset()
	require.ErrorIs(t, call(t, verifyCommand, []string{"--group", g.ID}, &out), errDrift)
	require.Contains(t, out.String(), "the ledger's head says 5 events, the log holds 4")

	// The second expense's amount, 3.33, becomes 3.34 in its event: the
	// first broken link is that event.
	_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(table), Key: key("EVENT#000000000004"),
		UpdateExpression:          aws.String("SET changes[0].#after = :v"),
		ExpressionAttributeNames:  map[string]string{"#after": "after"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "3.34"}},
	})
	require.NoError(t, err)
	out.Reset()
	require.ErrorIs(t, call(t, verifyCommand, []string{"--group", g.ID}, &out), errDrift)
	require.Contains(t, out.String(), "activity event 4: its hash does not match its content")
}

// A placeholder claimed by a user who joined later leaves no drift: every
// step of the claim kept the stored balances exact.
func TestVerifyAfterAClaim(t *testing.T) {
	_, _, s, g := servertest.VerifiedGroup(t)
	ctx := context.Background()
	usd := money.MustCurrency("USD")
	ph, err := s.AddPlaceholder(ctx, g.ID, "C", "1")
	require.NoError(t, err)
	for _, cents := range []int64{900, 301} {
		parts, _ := money.SplitEqual(money.NewAmount(cents, usd), 3)
		_, err := s.CreateExpense(ctx, g.Title, store.Expense{GroupID: g.ID, PayerID: ph.UserID, PayerName: ph.Name, Amount: money.NewAmount(cents, usd),
			Description: "x", SplitType: store.SplitEqual, Splits: []store.Split{{UserID: "1", Amount: parts[0]}, {UserID: "2", Amount: parts[1]}, {UserID: ph.UserID, Amount: parts[2]}}}, "")
		require.NoError(t, err)
	}
	claimer, _, err := s.JoinGroup(ctx, g.ID, store.NewMember{UserID: "3", Name: "Carol"})
	require.NoError(t, err)
	_, err = s.ClaimPlaceholder(ctx, g.ID, ph.UserID, claimer)
	require.NoError(t, err)

	var out bytes.Buffer
	require.NoError(t, call(t, verifyCommand, []string{"--group", g.ID}, &out))
	require.Contains(t, out.String(), "1 groups verified, 0 with drift")
}

// TestVerifyAfterAnErasure: a member who owes erases their data; the books
// and the activity chain still verify with the command, in a group written
// today and in one written by the first version and migrated (its log
// resealed), and an amount changed afterwards is still caught.
func TestVerifyAfterAnErasure(t *testing.T) {
	table, db, s, g := servertest.VerifiedGroup(t)
	ctx := context.Background()
	old := servertest.FirstVersionGroup(t, db, table)
	var out bytes.Buffer
	require.NoError(t, call(t, migrateCommand, nil, &out))
	require.NoError(t, call(t, rebuildSummariesCommand, nil, &out)) // the first version kept no summaries

	for _, user := range []string{"2", "3"} {
		res, err := s.EraseUser(ctx, user)
		require.NoError(t, err)
		require.Empty(t, res.Pending)
	}
	out.Reset()
	err := call(t, verifyCommand, nil, &out)
	require.NoError(t, err, out.String())
	require.Contains(t, out.String(), "group "+g.ID+": ok")
	require.Contains(t, out.String(), "group "+old+": ok")
	require.Contains(t, out.String(), "2 groups verified, 0 with drift")

	ms, err := s.UserMemberships(ctx, "2")
	require.NoError(t, err)
	require.Len(t, ms, 2, "both groups")
	for _, m := range ms {
		require.Equal(t, store.ErasedName, m.Name)
	}

	// The first expense's event, changed behind the API's back.
	_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(table),
		Key:                       map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "GROUP#" + g.ID}, "SK": &types.AttributeValueMemberS{Value: "EVENT#000000000003"}},
		UpdateExpression:          aws.String("SET #a = :x"),
		ExpressionAttributeNames:  map[string]string{"#a": "at"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":x": &types.AttributeValueMemberS{Value: "2020-01-01T00:00:00.000Z"}},
	})
	require.NoError(t, err)
	out.Reset()
	require.Error(t, call(t, verifyCommand, []string{"--group", g.ID}, &out))
	require.Contains(t, out.String(), "activity event 3: its hash does not match its content")
}

// With a bucket, verify holds it to the receipts the group's expenses
// record: a missing object and an object no receipt records are drift; an
// upload still pending is not.
func TestVerifyReceipts(t *testing.T) {
	_, _, s, g := servertest.VerifiedGroup(t)
	ctx := context.Background()
	bucket := s3test.Bucket(t)
	t.Setenv("S3_BUCKET", bucket)
	objects, err := objectstore.New(s3test.Options(t, bucket))
	require.NoError(t, err)

	page, err := s.ListExpenses(ctx, g.ID, store.PageArgs{First: 1})
	require.NoError(t, err)
	e := page.Items[0]
	up, err := s.CreateUpload(ctx, store.Upload{ID: s.NewUploadID(store.ReceiptPrefix), GroupID: g.ID, ExpenseID: e.ID, ContentType: "image/jpeg", Size: 3, UserID: e.PayerID})
	require.NoError(t, err)
	_, err = s.AddReceipt(ctx, e, g.Title, store.Receipt{ID: up.ID, ContentType: "image/jpeg", Size: 3, Thumbnail: true, UploadedBy: e.PayerID, UploadedAt: up.CreatedAt}, e.PayerID)
	require.NoError(t, err)
	key, thumb := store.ReceiptObjectKey(g.ID, e.ID, up.ID), store.ReceiptThumbnailKey(g.ID, e.ID, up.ID)
	for _, k := range []string{key, thumb} {
		require.NoError(t, objects.Put(ctx, k, "image/jpeg", []byte("abc")))
	}
	// A pending upload's object is not drift.
	pending, err := s.CreateUpload(ctx, store.Upload{ID: s.NewUploadID(store.ReceiptPrefix), GroupID: g.ID, ExpenseID: e.ID, ContentType: "image/jpeg", Size: 3, UserID: e.PayerID})
	require.NoError(t, err)
	require.NoError(t, objects.Put(ctx, store.ReceiptObjectKey(g.ID, e.ID, pending.ID), "image/jpeg", []byte("abc")))

	var out bytes.Buffer
	require.NoError(t, call(t, verifyCommand, []string{"--group", g.ID}, &out), out.String())
	require.Contains(t, out.String(), "group "+g.ID+": ok")

	orphan := store.ReceiptObjectKey(g.ID, e.ID, store.ReceiptPrefix+"0123456789abcdef0123456789abcdef")
	require.NoError(t, objects.Put(ctx, orphan, "image/jpeg", []byte("abc")))
	require.NoError(t, objects.Delete(ctx, thumb))
	out.Reset()
	require.ErrorIs(t, call(t, verifyCommand, []string{"--group", g.ID}, &out), errDrift)
	require.Contains(t, out.String(), "object "+orphan+": no expense records it")
	require.Contains(t, out.String(), "receipt "+up.ID+"'s thumbnail: object "+thumb+" is missing")
}
