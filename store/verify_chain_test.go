package store_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

func TestVerifyChain(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2")
	e := f.expense(g, "1", "10.00", "1", "2")
	_, err := f.DeleteExpense(ctx, e, "2")
	require.NoError(t, err)
	broken, err := f.VerifyChain(ctx, g.ID)
	require.NoError(t, err)
	require.Empty(t, broken)

	db := dynamotestClient(t)
	key := map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "GROUP#" + g.ID}, "SK": &types.AttributeValueMemberS{Value: "EVENT#000000000003"},
	}
	for _, tc := range []struct {
		name, update, want string
	}{
		{"the actor", "SET actorId = :v", "activity event 3: its hash does not match its content"},
		{"the link", "SET prevHash = :v", "activity event 3: its previous hash does not match event 2's hash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName: aws.String(f.Table()), Key: key, UpdateExpression: aws.String(tc.update),
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "2"}},
			})
			require.NoError(t, err)
			broken, err := f.VerifyChain(ctx, g.ID)
			require.NoError(t, err)
			require.Contains(t, broken, tc.want)
		})
	}
}

// TestVerifyChainHeadMustReachTheLog: events the ledger's head does not
// reach (a head removed, or events appended behind the ledger's back) are a
// broken chain, not writes still landing.
func TestVerifyChainHeadMustReachTheLog(t *testing.T) {
	f := newFixture(t)
	g := f.group("1", "2") // events 1 and 2: the creation and a join
	f.expense(g, "1", "10.00", "1", "2")

	_, err := dynamotestClient(t).UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(f.Table()),
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "GROUP#" + g.ID}, "SK": &types.AttributeValueMemberS{Value: "LEDGER"},
		},
		UpdateExpression: aws.String("REMOVE events, head"),
	})
	require.NoError(t, err)
	broken, err := f.VerifyChain(ctx, g.ID)
	require.NoError(t, err)
	require.Equal(t, "activity: the ledger's head says 0 events, the log holds 3", broken)
}
