package commands

import (
	"bytes"
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/internal/testkit/servertest"
	"github.com/stretchr/testify/require"
)

// TestRebuildSummaries: verify reports a spending summary that no longer
// matches the expenses, `rebuild-summaries --group` rewrites it, and run
// again over every group it changes nothing.
func TestRebuildSummaries(t *testing.T) {
	table, db, _, g := servertest.VerifiedGroup(t)
	ctx := context.Background()
	day := "SPEND#" + mustDay(t, db, table, g.ID) + "#USD"
	_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(table),
		Key:                       map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "GROUP#" + g.ID}, "SK": &types.AttributeValueMemberS{Value: day}},
		UpdateExpression:          aws.String("ADD #t :one"),
		ExpressionAttributeNames:  map[string]string{"#t": "total"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
	})
	require.NoError(t, err)

	var out bytes.Buffer
	require.ErrorIs(t, call(t, verifyCommand, []string{"--group", g.ID}, &out), errDrift)
	require.Contains(t, out.String(), "total=1341, the expenses say count=3")

	out.Reset()
	require.NoError(t, call(t, rebuildSummariesCommand, []string{"--group", g.ID}, &out))
	require.Contains(t, out.String(), "1 groups rebuilt, 1 summaries rewritten")
	out.Reset()
	require.NoError(t, call(t, verifyCommand, []string{"--group", g.ID}, &out))
	require.Contains(t, out.String(), "0 with drift")
	out.Reset()
	require.NoError(t, call(t, rebuildSummariesCommand, nil, &out))
	require.Contains(t, out.String(), ", 0 summaries rewritten")
}

// mustDay is the day of the group's one spending summary.
func mustDay(t *testing.T, db *dynamodb.Client, table, groupID string) string {
	out, err := db.Query(context.Background(), &dynamodb.QueryInput{
		TableName:              aws.String(table),
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :s)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: "GROUP#" + groupID}, ":s": &types.AttributeValueMemberS{Value: "SPEND#"},
		},
	})
	require.NoError(t, err)
	require.Len(t, out.Items, 1)
	return out.Items[0]["day"].(*types.AttributeValueMemberS).Value
}
