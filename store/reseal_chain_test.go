package store_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// formatOneGroup is a group of four with a long history (60 expenses, a
// settlement, a wallet, a placeholder) whose log is then rewritten as the
// server wrote it before hash format 2: names in the changes, hashed.
func formatOneGroup(t *testing.T, f fixture) store.Group {
	t.Helper()
	g := f.group("1", "2", "3", "4")
	_, err := f.UpdateWallet(ctx, g.ID, "2", erasedWallet)
	require.NoError(t, err)
	_, err = f.AddPlaceholder(ctx, g.ID, "Eve", "1")
	require.NoError(t, err)
	for i := range 60 {
		f.expense(g, []string{"1", "2", "3", "4"}[i%4], fmt.Sprintf("%d.00", 10+i), "2", "3")
	}
	f.settle(g, "2", "1", "5.00", store.SettlementCompleted)
	require.NoError(t, f.ToFormat1ForTest(ctx, g.ID))
	return g
}

// eventTexts are every change value the group's activity shows.
func eventTexts(t *testing.T, f fixture, groupID string) []string {
	t.Helper()
	var out []string
	for _, ev := range all(t, 100, func(a store.PageArgs) (store.Page[store.Event], error) { return f.ListEvents(ctx, groupID, a) }) {
		for _, c := range ev.Changes {
			for _, v := range []*string{c.Before, c.After} {
				if v != nil {
					out = append(out, *v)
				}
			}
		}
	}
	return out
}

// A log in format 1 verifies as it is; the migration reseals it in format 2
// (CHAIN_RESEALED attests the old head), after which it verifies, an
// erasure leaves it verifying, and a changed amount is caught.
func TestResealFormatOneChain(t *testing.T) {
	f := newFixture(t)
	g := formatOneGroup(t, f)
	broken, err := f.VerifyChain(ctx, g.ID)
	require.NoError(t, err)
	require.Empty(t, broken, "format 1 verifies as format 1")
	require.Contains(t, eventTexts(t, f, g.ID), "User 2: 67.00", "format 1 holds names")
	oldHead, err := f.ChainHeadForTest(ctx, g.ID)
	require.NoError(t, err)

	_, err = f.Migrate(ctx, store.MigrateOptions{})
	require.NoError(t, err)
	broken, err = f.VerifyChain(ctx, g.ID)
	require.NoError(t, err)
	require.Empty(t, broken)
	page, err := f.ListEvents(ctx, g.ID, store.PageArgs{First: 1})
	require.NoError(t, err)
	last := page.Items[0]
	require.Equal(t, store.EventChainResealed, last.Type)
	require.Equal(t, oldHead, *last.Changes[0].After, "the old head is attested")
	require.Equal(t, "1", last.ActorID, "the group's creator")
	require.Contains(t, eventTexts(t, f, g.ID), "User 2: 67.00", "clients see the same strings")
	again, err := f.ResealChain(ctx, g.ID)
	require.NoError(t, err)
	require.Zero(t, again, "a second run changes nothing")

	_, err = f.EraseUser(ctx, "2")
	require.NoError(t, err)
	broken, err = f.VerifyChain(ctx, g.ID)
	require.NoError(t, err)
	require.Empty(t, broken)
	texts := eventTexts(t, f, g.ID)
	require.Contains(t, texts, store.ErasedName+": 67.00")
	for _, v := range texts {
		require.NotContains(t, v, "User 2")
		require.NotContains(t, v, erasedWallet)
	}

	tamperEvent(t, f, g.ID, 10, "SET changes[0].#a = :v", "999.00")
	broken, err = f.VerifyChain(ctx, g.ID)
	require.NoError(t, err)
	require.Contains(t, broken, "activity event 10: its hash does not match its content")
}

// An erasure in a group whose log is still in format 1 reseals it first.
func TestEraseUserResealsFirst(t *testing.T) {
	f := newFixture(t)
	g := formatOneGroup(t, f)
	_, err := f.EraseUser(ctx, "2")
	require.NoError(t, err)
	broken, err := f.VerifyChain(ctx, g.ID)
	require.NoError(t, err)
	require.Empty(t, broken)
	require.Empty(t, personal(t, f, "User 2", erasedWallet))
}

// A reseal cut short after its first batch leaves one seam, which verify
// accepts where the ledger says it is; the next run finishes it, and a write
// made meanwhile (after the old head) is linked in.
func TestResealResumes(t *testing.T) {
	var armed, failed bool
	var first int
	fault := dynamotest.NewFault(func(op string, n int) error {
		if op != "TransactWriteItems" || !armed || failed {
			return nil
		}
		if first == 0 {
			first = n
		} else if n == first+1 {
			failed = true
			return errors.New("injected: connection lost")
		}
		return nil
	})
	f := newFixture(t, fault.Option())
	g := formatOneGroup(t, f)
	armed = true
	_, err := f.ResealChain(ctx, g.ID)
	require.Error(t, err)
	at, _, err := f.ResealProgressForTest(ctx, g.ID)
	require.NoError(t, err)
	require.Equal(t, int64(store.ResealBatch), at)
	broken, err := f.VerifyChain(ctx, g.ID)
	require.NoError(t, err)
	require.Empty(t, broken, "the seam is accepted")

	_, err = f.UpdateWallet(ctx, g.ID, "3", erasedWallet)
	require.NoError(t, err)
	n, err := f.ResealChain(ctx, g.ID)
	require.NoError(t, err)
	require.Positive(t, n)
	broken, err = f.VerifyChain(ctx, g.ID)
	require.NoError(t, err)
	require.Empty(t, broken)
	at, from, err := f.ResealProgressForTest(ctx, g.ID)
	require.NoError(t, err)
	require.Zero(t, at)
	require.Empty(t, from, "attested and cleared")

	// A seam anywhere else is a break.
	_, err = dynamotestClient(t).UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(f.Table()),
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "GROUP#" + g.ID}, "SK": &types.AttributeValueMemberS{Value: "EVENT#000000000020"},
		},
		UpdateExpression:          aws.String("SET prevHash = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "00"}},
	})
	require.NoError(t, err)
	broken, err = f.VerifyChain(ctx, g.ID)
	require.NoError(t, err)
	require.Contains(t, broken, "activity event 20: its previous hash does not match")
}
