package store_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

const erasedWallet = "EQBvI0aFLnw2QbZgjMPCLRdtRHxhUyinQudg6sdiohIwg5jL"

// history gives group g (members 1 to 4) a long history in which member 2
// takes every part: expenses they paid and share in (one edited, one
// deleted), settlements both ways, comments, a wallet set and changed, a
// placeholder they claim, and many expenses among the others. It returns
// the placeholder's id.
func history(t *testing.T, f fixture, g store.Group) string {
	t.Helper()
	_, err := f.UpdateWallet(ctx, g.ID, "2", erasedWallet)
	require.NoError(t, err)
	ph, err := f.AddPlaceholder(ctx, g.ID, "Bobby (guest)", "1")
	require.NoError(t, err)
	guest := f.expense(g, "1", "9.00", "1", ph.UserID, "3")
	_ = guest
	for i := range 30 {
		payer := []string{"1", "2", "3", "4"}[i%4]
		f.expense(g, payer, fmt.Sprintf("%d.00", 10+i), "1", "2", "3", "4")
	}
	e := f.expense(g, "2", "40.00", "2", "3")
	next := e
	next.Description = "Dinner, edited"
	next.Splits = append([]store.Split(nil), e.Splits...)
	_, err = f.UpdateExpense(ctx, e, next, g.Title, "2")
	require.NoError(t, err)
	d := f.expense(g, "3", "12.00", "2", "3")
	_, err = f.DeleteExpense(ctx, d, "3")
	require.NoError(t, err)
	f.settle(g, "2", "1", "5.00", store.SettlementCompleted)
	f.settle(g, "3", "2", "2.50", store.SettlementPending)
	_, err = f.AddComment(ctx, e.Ref(), store.Comment{AuthorID: "2", AuthorName: "User 2", Body: "I paid this one"})
	require.NoError(t, err)
	_, err = f.AddComment(ctx, e.Ref(), store.Comment{AuthorID: "3", AuthorName: "User 3", Body: "thanks"})
	require.NoError(t, err)
	me, err := f.getMember(g.ID, "2")
	require.NoError(t, err)
	_, err = f.ClaimPlaceholder(ctx, g.ID, ph.UserID, me)
	require.NoError(t, err)
	_, err = f.UpdateWallet(ctx, g.ID, "2", "")
	require.NoError(t, err)
	_, err = f.UpdateWallet(ctx, g.ID, "2", erasedWallet)
	require.NoError(t, err)
	return ph.UserID
}

// personal lists the raw items of the table that still hold one of the
// person's values, by key.
func personal(t *testing.T, f fixture, values ...string) []string {
	t.Helper()
	var found []string
	var start map[string]types.AttributeValue
	for {
		out, err := dynamotestClient(t).Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(f.Table()), ExclusiveStartKey: start})
		require.NoError(t, err)
		for _, item := range out.Items {
			var plain map[string]any
			require.NoError(t, attributevalue.UnmarshalMap(item, &plain))
			text := fmt.Sprint(plain)
			for _, v := range values {
				if strings.Contains(text, v) {
					found = append(found, fmt.Sprintf("%s %s holds %q", keyOf(item, "PK"), keyOf(item, "SK"), v))
				}
			}
		}
		if start = out.LastEvaluatedKey; start == nil {
			return found
		}
	}
}

func keyOf(item map[string]types.AttributeValue, attr string) string {
	v, _ := item[attr].(*types.AttributeValueMemberS)
	if v == nil {
		return ""
	}
	return v.Value
}

func TestEraseUser(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2", "3", "4")
	other := f.group("2", "3")
	f.expense(other, "3", "8.00", "2", "3")
	left := f.group("2", "4")
	_, err := f.LeaveGroup(ctx, left.ID, "2", "") // a former membership
	require.NoError(t, err)
	history(t, f, g)
	_, err = f.CreateToken(ctx, store.Token{Hash: "h2", ID: "tok2", UserID: "2", Name: "User 2", Username: "u2", Label: "bot", CreatedAt: time.Now()})
	require.NoError(t, err)
	require.NoError(t, f.PutUserProfile(ctx, store.UserProfile{UserID: "2", Name: "User 2", Username: "u2"}))
	_, err = f.CreateExpense(ctx, g.Title, equalExpense(g, "2", "3.00", "2", "4"), "idem-2")
	require.NoError(t, err)
	_, err = f.AddUsage(ctx, "2", "2024-01-20", 3, 1)
	require.NoError(t, err)
	require.NoError(t, f.SetDirectMessages(ctx, "2", false))
	require.NoError(t, f.QueueDigestLine(ctx, "daily", store.DigestLine{UserID: "2", GroupID: g.ID, Seq: 3, Text: "User 2 paid"}))
	before, err := f.GetBalances(ctx, []string{g.ID, other.ID})
	require.NoError(t, err)
	require.NotEmpty(t, personal(t, f, "User 2", erasedWallet, "Bobby (guest)"))

	res, err := f.EraseUser(ctx, "2")
	require.NoError(t, err)
	require.Equal(t, 3, res.Groups)
	require.Equal(t, 1, res.Tokens)
	require.Equal(t, []string{"h2"}, res.TokenHashes)
	require.Empty(t, res.Pending)

	// Nothing personal is left anywhere: names, username, wallet, the
	// claimed placeholder's name; the numeric id stays in keys (docs/privacy.md).
	require.Empty(t, personal(t, f, "User 2", erasedWallet, "Bobby (guest)", "username:u2"))
	for _, gid := range []string{g.ID, other.ID, left.ID} {
		m, err := f.getMember(gid, "2")
		require.NoError(t, err)
		require.Equal(t, store.ErasedName, m.Name)
		require.Empty(t, m.Username+m.Wallet+m.AvatarURL+m.Language)
		require.False(t, m.Active())
		require.NotNil(t, m.ErasedAt)
	}
	groups, err := f.ListUserGroups(ctx, "2", store.PageArgs{First: 10})
	require.NoError(t, err)
	require.Empty(t, groups.Items)
	tokens, err := f.ListUserTokens(ctx, "2")
	require.NoError(t, err)
	require.Empty(t, tokens)
	_, err = f.GetUserProfile(ctx, "2")
	require.ErrorIs(t, err, store.ErrNotFound)
	lines, err := f.ListDigestLines(ctx, "daily")
	require.NoError(t, err)
	require.Empty(t, lines)

	// The amounts stay: balances as they were, the books still add up.
	after, err := f.GetBalances(ctx, []string{g.ID, other.ID})
	require.NoError(t, err)
	for i := range before {
		require.Len(t, after[i].Books, len(before[i].Books))
		for j, b := range before[i].Books {
			require.Equal(t, nets(b.Nets()), nets(after[i].Books[j].Nets()))
		}
	}
	rebuilt, err := f.RecomputeBalances(ctx, g.ID)
	require.NoError(t, err)
	require.Empty(t, rebuilt.Problems)
	require.Equal(t, nets(rebuilt.Books[usd].Nets()), nets(after[0].Books[0].Nets()), "kept balances equal a recomputation")

	// Every group's chain still verifies, and the activity shows "Former member".
	for _, gid := range []string{g.ID, other.ID, left.ID} {
		broken, err := f.VerifyChain(ctx, gid)
		require.NoError(t, err)
		require.Empty(t, broken, gid)
	}
	events := all(t, 100, func(a store.PageArgs) (store.Page[store.Event], error) { return f.ListEvents(ctx, g.ID, a) })
	require.Equal(t, store.EventMemberErased, events[0].Type, "newest first")
	var shown strings.Builder
	for _, ev := range events {
		for _, c := range ev.Changes {
			for _, v := range []*string{c.Before, c.After} {
				if v != nil {
					shown.WriteString(*v + "\n")
				}
			}
		}
	}
	require.Contains(t, shown.String(), store.ErasedName+": ", "payers and splits")
	require.Contains(t, shown.String(), "(erased)", "the wallet")
	require.NotContains(t, shown.String(), "User 2")
	require.Contains(t, shown.String(), "User 3", "the others keep their names")

	// A former member can be named by no new expense; joining by id is refused.
	_, err = f.CreateExpense(ctx, g.Title, equalExpense(g, "1", "3.00", "1", "2"), "")
	require.ErrorIs(t, err, store.ErrNotFound)
	open := true
	_, err = f.UpdateGroup(ctx, g, store.GroupChange{JoinByIDAllowed: &open}, "1")
	require.NoError(t, err)
	_, _, err = f.JoinGroupByID(ctx, g.ID, user("2"))
	require.ErrorIs(t, err, store.ErrNotFound)

	// Erasing again finds nothing left to do.
	res, err = f.EraseUser(ctx, "2")
	require.NoError(t, err)
	require.Zero(t, res.Groups+res.Tokens+res.Items)

	// Tampering with an amount afterwards is still caught.
	tamperEvent(t, f, g.ID, 5, "SET changes[0].#a = :v", "999.00")
	broken, err := f.VerifyChain(ctx, g.ID)
	require.NoError(t, err)
	require.Contains(t, broken, "activity event 5: its hash does not match its content")
}

// nets are a book's nonzero balances as strings.
func nets(m map[string]money.Amount) map[string]string {
	out := map[string]string{}
	for id, a := range m {
		if !a.IsZero() {
			out[id] = a.String()
		}
	}
	return out
}

// tamperEvent changes event seq of the group behind the store's back.
func tamperEvent(t *testing.T, f fixture, groupID string, seq int, update, value string) {
	t.Helper()
	_, err := dynamotestClient(t).UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(f.Table()),
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "GROUP#" + groupID},
			"SK": &types.AttributeValueMemberS{Value: fmt.Sprintf("EVENT#%012d", seq)},
		},
		UpdateExpression:          aws.String(update),
		ExpressionAttributeNames:  map[string]string{"#a": "after"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: value}},
	})
	require.NoError(t, err)
}

// An erasure cut short (here: the first rewrite of an item of the group
// fails) leaves its ERASURE record; the job's ResumeErasures finishes it,
// and meanwhile the tokens are already gone and the membership erased.
func TestEraseUserResumes(t *testing.T) {
	failed := false
	fault := dynamotest.NewFault(func(op string, _ int) error {
		if op == "UpdateItem" && !failed && armed {
			failed = true
			return errors.New("injected: connection lost")
		}
		return nil
	})
	f := newFixture(t, fault.Option())
	g := f.group("1", "2", "3", "4")
	history(t, f, g)
	_, err := f.CreateToken(ctx, store.Token{Hash: "h2", ID: "tok2", UserID: "2", Name: "User 2", CreatedAt: time.Now()})
	require.NoError(t, err)

	armed = true
	defer func() { armed = false }()
	res, err := f.EraseUser(ctx, "2")
	require.Error(t, err)
	require.Equal(t, []string{g.ID}, res.Pending)
	require.Equal(t, 1, res.Tokens, "the tokens go first")
	m, err := f.getMember(g.ID, "2")
	require.NoError(t, err)
	require.Equal(t, store.ErasedName, m.Name, "the membership is erased before the group's items")
	require.NotEmpty(t, personal(t, f, "User 2"), "some items still name them")
	pending, err := f.PendingErasures(ctx, farFuture)
	require.NoError(t, err)
	require.Equal(t, []string{"2"}, pending)

	done, err := f.ResumeErasures(ctx, farFuture)
	require.NoError(t, err)
	require.Equal(t, 1, done)
	require.Empty(t, personal(t, f, "User 2", erasedWallet, "Bobby (guest)"))
	pending, err = f.PendingErasures(ctx, farFuture)
	require.NoError(t, err)
	require.Empty(t, pending)
	broken, err := f.VerifyChain(ctx, g.ID)
	require.NoError(t, err)
	require.Empty(t, broken)
}

// armed lets TestEraseUserResumes's fault fire only once the history is written.
var armed bool

// A user who erased their data and signs in again starts with no groups;
// a new invite brings them back into a group.
func TestEraseUserThenRejoinWithInvite(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	_, err := f.EraseUser(ctx, "2")
	require.NoError(t, err)
	groups, err := f.ListUserGroups(ctx, "2", store.PageArgs{First: 10})
	require.NoError(t, err)
	require.Empty(t, groups.Items)
	_, err = f.CreateInvite(ctx, store.Invite{GroupID: g.ID, CreatedBy: "1"}, 24*time.Hour, "secret-hash")
	require.NoError(t, err)
	m, _, joined, err := f.JoinWithInvite(ctx, "secret-hash", store.NewMember{UserID: "2", Name: "Bob Again"})
	require.NoError(t, err)
	require.True(t, joined)
	require.Equal(t, "Bob Again", m.Name)
	require.Nil(t, m.ErasedAt)
	formers, err := f.UserMemberships(ctx, "2")
	require.NoError(t, err)
	require.Len(t, formers, 1)
	require.True(t, formers[0].Active())
}

// farFuture is a time after every erasure a test begins.
var farFuture = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
