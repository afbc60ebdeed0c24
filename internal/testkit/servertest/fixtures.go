package servertest

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// VerifiedGroup is a group on a fresh local table (LocalTable): A creates
// it, B joins, and A pays 10.00, 3.33 and 0.07 split between them.
func VerifiedGroup(t *testing.T) (table string, db *dynamodb.Client, s *store.Store, g store.Group) {
	table = LocalTable(t)
	ctx := context.Background()
	db = dynamotest.Client(t)
	s = store.New(db, table, store.Options{})
	usd := money.MustCurrency("USD")
	g, _, err := s.CreateGroup(ctx, store.NewGroup{Title: "T", Currency: usd, Creator: store.NewMember{UserID: "1", Name: "A"}})
	require.NoError(t, err)
	_, _, err = s.JoinGroup(ctx, g.ID, store.NewMember{UserID: "2", Name: "B"})
	require.NoError(t, err)
	for _, cents := range []int64{1000, 333, 7} {
		parts, _ := money.SplitEqual(money.NewAmount(cents, usd), 2)
		_, err := s.CreateExpense(ctx, g.Title, store.Expense{GroupID: g.ID, PayerID: "1", PayerName: "A", Amount: money.NewAmount(cents, usd),
			Description: "x", SplitType: store.SplitEqual, Splits: []store.Split{{UserID: "1", Amount: parts[0]}, {UserID: "2", Amount: parts[1]}}}, "")
		require.NoError(t, err)
	}
	return table, db, s, g
}

// FirstVersionGroup writes a group in the data model's first version's
// shape (no ledger, balances, versions, GSI3 keys or participant records):
// three members and an expense split between them, as `migrate` finds it.
// It returns the group's id.
func FirstVersionGroup(t *testing.T, db *dynamodb.Client, table string) string {
	t.Helper()
	ctx := context.Background()
	const groupID, expenseID = "0a0b0c0d-0000-4000-8000-00000000000a", "0a0b0c0d-e000-4000-8000-000000000001"
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	split := func(user, amount string) types.AttributeValue {
		return &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"userId": s(user), "userName": s("U" + user), "amount": n(amount)}}
	}
	pk := "GROUP#" + groupID
	member := func(user string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": s(pk), "SK": s("USER#" + user), "GSI1PK": s("USER#" + user), "GSI1SK": s(pk),
			"id": s(user), "telegramId": n(user), "name": s("U" + user), "joinedAt": s("2023-05-01T10:00:00.000Z")}
	}
	for _, item := range []map[string]types.AttributeValue{
		{"PK": s(pk), "SK": s("METADATA"), "id": s(groupID), "title": s("Old"), "currency": s("USD"), "createdAt": s("2023-05-01T10:00:00.000Z"), "memberCount": n("3")},
		member("1"), member("2"), member("3"),
		{"PK": s(pk), "SK": s("TX#2023-05-02T10:00:00.000Z#" + expenseID), "GSI2PK": s("EXPENSE#" + expenseID), "GSI2SK": s(groupID),
			"id": s(expenseID), "groupId": s(groupID), "payerId": s("1"), "payerName": s("U1"), "amount": n("10"), "currency": s("USD"),
			"description": s("Taxi"), "splitType": s("equal"), "createdAt": s("2023-05-02T10:00:00.000Z"),
			"splits": &types.AttributeValueMemberL{Value: []types.AttributeValue{split("1", "3.34"), split("2", "3.33"), split("3", "3.33")}}},
	} {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
		require.NoError(t, err)
	}
	return groupID
}
