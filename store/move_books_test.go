package store_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// A group whose book is still where the previous format kept it
// (BALANCES#USD, ledger without booksBeside) shows the same balances before,
// while and after the migration moves it, including amounts written beside
// the ledger in between; the migration leaves one book, and a second run
// changes nothing.
func TestMigrationMovesBooksBesideTheLedger(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	g := f.group("1", "2", "3")
	f.expense(g, "1", "30.00", "1", "2", "3")
	f.settle(g, "2", "1", "5.00", store.SettlementCompleted)
	want := f.nets(g.ID)

	// Put the book back where the previous format kept it.
	db := dynamotestClient(t)
	pk := sAttr("GROUP#" + g.ID)
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(f.Table()), Key: map[string]types.AttributeValue{"PK": pk, "SK": sAttr("LEDGER#USD")}})
	require.NoError(t, err)
	require.NotNil(t, out.Item)
	old := out.Item
	old["SK"] = sAttr("BALANCES#USD")
	putItems(t, f, old)
	_, err = db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(f.Table()), Key: map[string]types.AttributeValue{"PK": pk, "SK": sAttr("LEDGER#USD")}})
	require.NoError(t, err)
	_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(f.Table()), Key: map[string]types.AttributeValue{"PK": pk, "SK": sAttr("LEDGER")},
		UpdateExpression: aws.String("REMOVE booksBeside")})
	require.NoError(t, err)
	require.Equal(t, want, f.nets(g.ID), "read from the old place")

	// A write now lands beside the ledger; reads add both places up.
	f.expense(g, "3", "9.00", "1", "3")
	want = f.nets(g.ID)
	require.Equal(t, map[string]string{"1": "10.50", "2": "-5.00", "3": "-5.50"}, want)

	res, err := f.Migrate(ctx, store.MigrateOptions{Segments: 2})
	require.NoError(t, err)
	require.Equal(t, 3, res.Changed, "the ledger marked, the old book deleted, the sum put beside the ledger")
	require.Equal(t, want, f.nets(g.ID))
	gone, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(f.Table()), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"PK": pk, "SK": sAttr("BALANCES#USD")}})
	require.NoError(t, err)
	require.Nil(t, gone.Item)
	kept, err := f.StoredBalances(ctx, g.ID)
	require.NoError(t, err)
	re, err := f.RecomputeBalances(ctx, g.ID)
	require.NoError(t, err)
	require.True(t, kept.Book(kept.Books[0].Currency).Equal(re.Books[kept.Books[0].Currency]))

	again, err := f.Migrate(ctx, store.MigrateOptions{Segments: 2, Restart: true})
	require.NoError(t, err)
	require.Zero(t, again.Changed)
}
