package store_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// conflict is what DynamoDB answers when another transaction touched the same
// items at the same moment; DynamoDB Local never does.
func conflict() error {
	return &types.TransactionCanceledException{
		Message: aws.String("Transaction cancelled"),
		CancellationReasons: []types.CancellationReason{
			{Code: aws.String("None")}, {Code: aws.String("TransactionConflict")},
		},
	}
}

func TestTransactionConflictsAreRetried(t *testing.T) {
	fault := dynamotest.NewFault(func(op string, n int) error {
		if op == "TransactWriteItems" && n >= 2 && n <= 4 { // the group is created, then the expense conflicts 3 times
			return conflict()
		}
		return nil
	})
	f := newFixture(t, fault.Option())
	g, _, err := f.CreateGroup(ctx, store.NewGroup{Title: "T", Currency: usd, Creator: user("1")})
	require.NoError(t, err)
	e, err := f.CreateExpense(ctx, g.Title, equalExpense(g, "1", "5.00", "1"), "")
	require.NoError(t, err)
	got, err := f.getExpense(e.ID)
	require.NoError(t, err)
	require.Equal(t, e.ID, got.ID)
}

func TestTransactionConflictGivesUpEventually(t *testing.T) {
	fault := dynamotest.NewFault(func(op string, n int) error {
		if op == "TransactWriteItems" && n >= 2 {
			return conflict()
		}
		return nil
	})
	f := newFixture(t, fault.Option())
	g, _, err := f.CreateGroup(ctx, store.NewGroup{Title: "T", Currency: usd, Creator: user("1")})
	require.NoError(t, err)
	_, err = f.CreateExpense(ctx, g.Title, equalExpense(g, "1", "5.00", "1"), "")
	require.Error(t, err)
	require.NotErrorIs(t, err, store.ErrNotFound)
}

func TestIsCondCheckFailed(t *testing.T) {
	require.True(t, store.IsCondCheckFailed(&types.ConditionalCheckFailedException{}))
	require.True(t, store.IsCondCheckFailed(&types.TransactionCanceledException{
		CancellationReasons: []types.CancellationReason{{Code: aws.String("None")}, {Code: aws.String("ConditionalCheckFailed")}},
	}))
	require.False(t, store.IsCondCheckFailed(conflict()))
	require.False(t, store.IsCondCheckFailed(nil))
}
