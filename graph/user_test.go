package graph_test

import (
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/stretchr/testify/require"
)

func TestMe(t *testing.T) {
	api := apitest.New(t)
	var out struct {
		Me struct {
			ID, Name string
			Username *string
		}
	}
	api.TelegramUser(987654321, "Bob", "Jones", "bobj").Must(&out, `{ me { id name username } }`)
	require.Equal(t, "987654321", out.Me.ID)
	require.Equal(t, "Bob Jones", out.Me.Name)
	require.Equal(t, "bobj", *out.Me.Username)

	api.User("111", "Alice").Must(&out, `{ me { id name username } }`)
	require.Equal(t, "111", out.Me.ID)
	require.Nil(t, out.Me.Username)
}

func TestMyViews(t *testing.T) {
	api := apitest.New(t)
	alice, bob := api.User("111", "Alice"), api.User("222", "Bob")
	trip := alice.CreateGroup("Trip")
	flat := bob.CreateGroup("Flat")
	bob.Join(trip)
	alice.Join(flat)
	e1 := alice.Expense(trip, "30.00", "111", "222")
	s1 := alice.Settle(flat, "222", "2.00")
	e2 := alice.Expense(flat, "10.00", "111", "222")
	bob.Expense(flat, "8.00", "111", "222")
	bob.Settle(trip, "111", "1.00")

	var out struct {
		Me struct {
			Groups       struct{ Nodes []struct{ ID, Title string } }
			ExpensesPaid struct{ Nodes []struct{ ID string } }
			Settlements  struct{ Nodes []struct{ ID string } }
			Owes         struct {
				Nodes []struct {
					ID, Amount, Currency, TotalAmount, Description string
					Expense                                        struct{ ID string }
					Group                                          struct{ Title string }
					Payer                                          struct{ Name string }
				}
			}
			Activity struct {
				Nodes []struct {
					Typename string `json:"__typename"`
					ID       string
				}
			}
		}
	}
	alice.Must(&out, `{ me {
		groups { nodes { id title } }
		expensesPaid { nodes { id } }
		settlements { nodes { id } }
		owes { nodes { id amount currency totalAmount description expense { id } group { title } payer { name } } }
		activity { nodes { __typename ... on Expense { id } ... on Settlement { id } } }
	} }`)
	var titles []string
	for _, g := range out.Me.Groups.Nodes {
		titles = append(titles, g.Title)
	}
	require.ElementsMatch(t, []string{"Trip", "Flat"}, titles)
	require.Equal(t, []struct{ ID string }{{e2}, {e1}}, out.Me.ExpensesPaid.Nodes)
	require.Equal(t, []struct{ ID string }{{s1}}, out.Me.Settlements.Nodes)
	require.Len(t, out.Me.Owes.Nodes, 1)
	owe := out.Me.Owes.Nodes[0]
	require.Equal(t, "4.00", owe.Amount)
	require.Equal(t, "8.00", owe.TotalAmount)
	require.Equal(t, "Bob", owe.Payer.Name)
	require.Equal(t, "Flat", owe.Group.Title)
	require.Equal(t, owe.Expense.ID+":111", owe.ID)
	require.Len(t, out.Me.Activity.Nodes, 3)
	require.Equal(t, "Expense", out.Me.Activity.Nodes[0].Typename)
	require.Equal(t, e2, out.Me.Activity.Nodes[0].ID)
	require.Equal(t, "Settlement", out.Me.Activity.Nodes[1].Typename)
	require.Equal(t, s1, out.Me.Activity.Nodes[1].ID)
	require.Equal(t, e1, out.Me.Activity.Nodes[2].ID)
}
