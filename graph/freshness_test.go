package graph_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Mutations run one after another in one operation, sharing the request's
// loaders: each must show what the writes before it left, never a value
// cached before them.

func TestTwoExpensesInOneOperationShowTheBalancesAfterEach(t *testing.T) {
	_, group, alice, _, _ := trio(t)
	var out struct {
		First, Second struct {
			Group struct{ Balances []balanceRow }
		}
	}
	alice.Must(&out, `mutation($g: ID!) {
		first: createExpense(input: {groupId: $g, amount: "30.00", description: "Taxi", splitType: EQUAL,
			splits: [{userId: "111"}, {userId: "222"}, {userId: "333"}]}) { group { balances { currency net member { userId } } } }
		second: createExpense(input: {groupId: $g, amount: "60.00", description: "Dinner", splitType: EQUAL,
			splits: [{userId: "111"}, {userId: "222"}, {userId: "333"}]}) { group { balances { currency net member { userId } } } }
	}`, "g", group)
	require.Equal(t, map[string]string{"USD 111": "20.00", "USD 222": "-10.00", "USD 333": "-10.00"}, netsOf(out.First.Group.Balances))
	require.Equal(t, map[string]string{"USD 111": "60.00", "USD 222": "-30.00", "USD 333": "-30.00"}, netsOf(out.Second.Group.Balances))
}

func TestADeletedExpenseLeavesTheBalancesInTheSameOperation(t *testing.T) {
	_, group, alice, _, _ := trio(t)
	taxi := alice.Expense(group, "30.00", "111", "222", "333")
	var out struct {
		Before struct {
			Group struct{ Balances []balanceRow }
		}
		After struct {
			Group struct{ Balances []balanceRow }
		}
	}
	// The first mutation loads the balances and the expense; the delete must
	// drop both from the request's cache.
	alice.Must(&out, `mutation($g: ID!, $e: ID!) {
		before: updateWallet(groupId: $g, wallet: "") { group { balances { currency net member { userId } } } }
		deleteExpense(id: $e)
		after: updateWallet(groupId: $g, wallet: "") { group { balances { currency net member { userId } } } }
	}`, "g", group, "e", taxi)
	require.Equal(t, map[string]string{"USD 111": "20.00", "USD 222": "-10.00", "USD 333": "-10.00"}, netsOf(out.Before.Group.Balances))
	require.Equal(t, map[string]string{"USD 111": "0.00", "USD 222": "0.00", "USD 333": "0.00"}, netsOf(out.After.Group.Balances))
}

func TestAJoinInTheSameOperationShowsInTheGroupAndItsBalances(t *testing.T) {
	api, group, alice, _, _ := trio(t)
	dan := api.User("444", "Dan")
	alice.Expense(group, "30.00", "111", "222", "333")
	var out struct {
		JoinGroup struct {
			Group struct {
				MemberCount int
				Balances    []balanceRow
			}
		}
	}
	dan.Must(&out, `mutation($i: String!) { joinGroup(invite: $i) { group { memberCount balances { currency net member { userId } } } } }`, "i", alice.Invite(group))
	require.Equal(t, 4, out.JoinGroup.Group.MemberCount)
	require.Equal(t, map[string]string{"USD 111": "20.00", "USD 222": "-10.00", "USD 333": "-10.00", "USD 444": "0.00"}, netsOf(out.JoinGroup.Group.Balances))
}
