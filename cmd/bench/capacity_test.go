package main

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

// Item sizes as AWS documents them: names and values in bytes, numbers by
// significant digits, 3 bytes and 1 per element for lists and maps.
func TestItemSize(t *testing.T) {
	for _, tc := range []struct {
		name string
		item item
		want int
	}{
		{"strings", item{"PK": s("GROUP#1"), "SK": s("USER#2")}, 2 + 7 + 2 + 6},
		{"utf-8 bytes", item{"n": s("Zoë")}, 1 + 4},
		{"numbers by significant digits", item{"a": n("10.00"), "b": n("12345"), "c": n("-0.5")}, (1 + 2) + (1 + 4) + (1 + 2)},
		{"a list", item{"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("ab"), s("c")}}}, 1 + 3 + (1 + 2) + (1 + 1)},
		{"a map", item{"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": s("vv")}}}, 1 + 3 + (1 + 1 + 2)},
		{"a string set", item{"ss": &types.AttributeValueMemberSS{Value: []string{"101", "7"}}}, 2 + 4},
		{"no item", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) { require.Equal(t, tc.want, itemSize(tc.item)) })
	}
}

// The rules give what DynamoDB Local reports for the writes it accounts
// item by item (single-item writes): on the table by the item's size, and
// on an index only when the item is in it.
func TestWriteUnitsAsDynamoDBReportsThem(t *testing.T) {
	ctx := context.Background()
	table := dynamotest.Table(t)
	db := dynamotest.Client(t)
	for _, tc := range []struct {
		name  string
		pad   int
		index bool
	}{
		{"small, no index", 100, false},
		{"small, in GSI1", 100, true},
		{"1.5 KB, in GSI1", 1500, true},
		{"3 KB, in GSI1", 3000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			it := item{"PK": s("CAP#" + tc.name), "SK": s("X"), "pad": s(strings.Repeat("x", tc.pad))}
			if tc.index {
				it["GSI1PK"], it["GSI1SK"] = s("CAP"), s(tc.name)
			}
			out, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: it, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
			require.NoError(t, err)
			_, reportedWrite := reported(out)
			require.Equal(t, reportedWrite, written{op: "Put", key: it}.cost(nil, it).units())
		})
	}
}

// The raw side's replay writes exactly what the server wrote: the items a
// store write leaves in a group, renamed, are the items its replay leaves in
// the group's copy.
func TestReplayWritesTheSameItems(t *testing.T) {
	ctx := context.Background()
	table := dynamotest.Table(t)
	db := dynamotest.Client(t, recorderOption)
	setup := store.New(dynamotest.Client(t), table, store.Options{})
	s := store.New(db, table, store.Options{})
	usd := money.MustCurrency("USD")
	alice, bob := person{"101", "Alice", "alice"}, person{"102", "Bob", "bob"}
	g, _, err := setup.CreateGroup(ctx, store.NewGroup{Title: "Trip", Currency: usd, Creator: newMember(alice)})
	require.NoError(t, err)
	_, _, err = setup.JoinGroup(ctx, g.ID, newMember(bob))
	require.NoError(t, err)

	r := newRenamer()
	copyID, err := copyPartition(ctx, dynamotest.Client(t), table, r, g.ID)
	require.NoError(t, err)
	require.Len(t, copyID, len(g.ID))
	require.NotEqual(t, g.ID, copyID)

	rec := &recording{}
	e := equalExpense(&seedGroup{id: g.ID}, alice, []person{alice, bob}, money.NewAmount(1000, usd), "Dinner")
	_, err = s.CreateExpense(withRecording(ctx, rec), "Trip", e, "")
	require.NoError(t, err)
	require.NotEmpty(t, rec.writes)
	raw := dynamotest.Client(t)
	for _, w := range rec.writes {
		renamed, err := r.write(w)
		require.NoError(t, err)
		require.NoError(t, replayWrite(ctx, raw, renamed))
	}

	original, replayed := partition(t, raw, table, g.ID), partition(t, raw, table, copyID)
	require.Len(t, replayed, len(original))
	for k, it := range original {
		got, ok := replayed[r.str(k)]
		require.True(t, ok, "no copy of %s", k)
		require.True(t, sameItem(r.item(it), got), "%s differs", k)
		require.Equal(t, itemSize(it), itemSize(got), "%s has another size", k)
	}
}

// partition is a group's items by sort key.
func partition(t *testing.T, db *dynamodb.Client, table, groupID string) map[string]item {
	out, err := db.Query(context.Background(), &dynamodb.QueryInput{
		TableName: &table, KeyConditionExpression: ptr("PK = :pk"), ConsistentRead: ptr(true),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s("GROUP#" + groupID)},
	})
	require.NoError(t, err)
	items := map[string]item{}
	for _, it := range out.Items {
		items[stringAttr(it, "SK")] = it
	}
	return items
}
