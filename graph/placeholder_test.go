package graph_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/money"
	"github.com/stretchr/testify/require"
)

const addPlaceholder = `mutation($g: ID!, $n: String!) { addPlaceholderMember(groupId: $g, name: $n) { id userId name placeholder claimedBy { id } } }`

// placeholderOf adds a placeholder to the group as u and returns its user id.
func placeholderOf(t *testing.T, u *apitest.User, group, name string) string {
	t.Helper()
	var out struct {
		AddPlaceholderMember struct {
			UserID      string
			Placeholder bool
		}
	}
	u.Must(&out, addPlaceholder, "g", group, "n", name)
	require.True(t, out.AddPlaceholderMember.Placeholder)
	require.True(t, strings.HasPrefix(out.AddPlaceholderMember.UserID, "ph_"))
	return out.AddPlaceholderMember.UserID
}

// sharedHistory is what Alice and Bob record with Carol, whoever stands for
// her: expenses in three currencies (one she paid, one she paid part of),
// one deleted, a completed settlement from her and a pending one to her.
func sharedHistory(t *testing.T, alice, bob *apitest.User, group, carol string) (deleted string) {
	t.Helper()
	expense := func(u *apitest.User, in map[string]any) string {
		in["groupId"] = group
		var out struct{ CreateExpense struct{ ID string } }
		u.Must(&out, `mutation($in: CreateExpenseInput!) { createExpense(input: $in) { id } }`, "in", in)
		return out.CreateExpense.ID
	}
	expense(alice, map[string]any{"amount": "90.00", "description": "Dinner", "splitType": "EQUAL",
		"splits": []map[string]any{{"userId": "111"}, {"userId": "222"}, {"userId": carol}}})
	expense(alice, map[string]any{"amount": "60.00", "currency": "EUR", "description": "Hotel", "payerId": carol, "splitType": "SHARES",
		"splits": []map[string]any{{"userId": "111", "shares": "1"}, {"userId": carol, "shares": "2"}}})
	expense(bob, map[string]any{"amount": "3.000000000", "currency": "TON", "description": "Boat", "splitType": "EXACT",
		"splits": []map[string]any{{"userId": "222", "amount": "1.000000000"}, {"userId": carol, "amount": "2.000000000"}}})
	expense(alice, map[string]any{"amount": "50.00", "description": "Tickets", "payers": []map[string]any{{"userId": "111", "amount": "20.00"}, {"userId": carol, "amount": "30.00"}},
		"splitType": "EQUAL", "splits": []map[string]any{{"userId": "111"}, {"userId": "222"}}})
	deleted = expense(alice, map[string]any{"amount": "10.00", "description": "Snacks", "splitType": "EQUAL",
		"splits": []map[string]any{{"userId": "111"}, {"userId": carol}}})
	alice.Must(nil, `mutation($id: ID!) { deleteExpense(id: $id) }`, "id", deleted)
	alice.Must(nil, `mutation($g: ID!, $c: ID!) { createSettlement(input: {groupId: $g, fromUserId: $c, amount: "10.00", status: COMPLETED}) { id } }`, "g", group, "c", carol)
	bob.Must(nil, `mutation($g: ID!, $c: ID!) { createSettlement(input: {groupId: $g, toUserId: $c, amount: "5.00", currency: "EUR"}) { id } }`, "g", group, "c", carol)
	return deleted
}

// moneyView is everything the members see of a group's money and of Dan's
// part in it, with the group's own ids left out so that two groups compare.
func moneyView(t *testing.T, alice, dan *apitest.User, group string) string {
	t.Helper()
	var g struct {
		Group struct {
			MemberCount int
			Members     struct {
				Nodes []struct {
					UserID, Name string
					Placeholder  bool
				}
			}
			Balances []struct {
				Currency, Paid, Owed, Sent, Received, Net string
				Member                                    struct{ UserID string }
			}
			Simplified []struct {
				Currency, Amount string
				From, To         struct{ UserID string }
			}
			Pairwise []struct {
				Currency, Amount string
				From, To         struct{ UserID string }
			}
			Expenses struct {
				Nodes []struct {
					Description, Amount, Currency string
					Payer                         struct{ UserID string }
					Payers                        []struct {
						Amount string
						Member struct{ UserID string }
					}
					Splits []struct {
						Amount string
						Member struct{ UserID, Name string }
					}
				}
			}
			Settlements struct {
				Nodes []struct {
					Amount, Currency, Status string
					From, To                 struct{ UserID string }
				}
			}
		}
	}
	alice.Must(&g, `query($g: ID!) { group(id: $g) { memberCount members { nodes { userId name placeholder } }
		balances { currency paid owed sent received net member { userId } }
		simplified: debts { currency amount from { userId } to { userId } }
		pairwise: debts(simplify: false) { currency amount from { userId } to { userId } }
		expenses { nodes { description amount currency payer { userId } payers { amount member { userId } } splits { amount member { userId name } } } }
		settlements { nodes { amount currency status from { userId } to { userId } } } } }`, "g", group)

	type nodes struct{ Nodes []map[string]any }
	var me struct {
		Me struct{ Owes, ExpensesPaid, Settlements, Activity nodes }
	}
	dan.Must(&me, `{ me {
		owes(first: 100) { nodes { description amount currency group { id } } }
		expensesPaid(first: 100) { nodes { description amount group { id } } }
		settlements(first: 100) { nodes { amount status group { id } } }
		activity(first: 100) { nodes { __typename ... on Expense { description amount group { id } } ... on Settlement { amount group { id } } } } } }`)
	// Only this group's part of Dan's lists.
	for _, list := range []*nodes{&me.Me.Owes, &me.Me.ExpensesPaid, &me.Me.Settlements, &me.Me.Activity} {
		list.Nodes = slices.DeleteFunc(list.Nodes, func(n map[string]any) bool {
			g, _ := n["group"].(map[string]any)
			return g["id"] != group
		})
	}
	out, err := json.MarshalIndent(map[string]any{"group": g.Group, "me": me.Me}, "", " ")
	require.NoError(t, err)
	return strings.ReplaceAll(string(out), group, "<group>")
}

// checkKept checks the group's kept balances against a recomputation from
// its expenses and settlements, and its activity chain.
func checkKept(t *testing.T, api *apitest.API, group string) {
	t.Helper()
	re, err := api.Store.RecomputeBalances(t.Context(), group)
	require.NoError(t, err)
	require.Empty(t, re.Problems)
	kept, err := api.Store.StoredBalances(t.Context(), group)
	require.NoError(t, err)
	for _, b := range kept.Books {
		r := re.Books[b.Currency]
		require.NotNil(t, r, b.Currency.Code())
		require.Empty(t, b.Diff(r), "no drift in %s", b.Currency.Code())
	}
	require.Len(t, kept.Books, len(re.Books))
	broken, err := api.Store.VerifyChain(t.Context(), group)
	require.NoError(t, err)
	require.Empty(t, broken)
}

// A placeholder with expenses in three currencies and settlements is claimed:
// balances, debts and the user's lists are as if the real user had been
// there from the start.
func TestClaimedPlaceholderIsAsIfTheUserHadBeenThere(t *testing.T) {
	api := apitest.New(t)
	alice, bob := api.User("111", "Alice"), api.User("222", "Bob")
	dan := api.User("444", "Dan")

	// From the start: Dan is a member.
	fromStart := alice.CreateGroup("Trip")
	bob.Join(fromStart)
	dan.Join(fromStart)
	fromStartDeleted := sharedHistory(t, alice, bob, fromStart, "444")

	// With a placeholder, claimed when Dan joins with the invite made for it.
	held := alice.CreateGroup("Trip")
	bob.Join(held)
	ph := placeholderOf(t, alice, held, "Dan (not here yet)")
	heldDeleted := sharedHistory(t, alice, bob, held, ph)
	checkKept(t, api, held)

	inv := newInvite(t, alice, held, map[string]any{"placeholderId": ph})
	require.Equal(t, 1, *inv.MaxUses, "an invite for a placeholder admits one")
	require.Equal(t, ph, inv.Placeholder.UserID)
	var joined struct {
		JoinGroup struct {
			UserID   string
			Balances []struct{ Currency, Net string }
		}
	}
	dan.Must(&joined, `mutation($i: String!) { joinGroup(invite: $i) { userId balances { currency net } } }`, "i", *inv.Secret)
	require.Equal(t, "444", joined.JoinGroup.UserID)

	require.Equal(t, moneyView(t, alice, dan, fromStart), moneyView(t, alice, dan, held))
	checkKept(t, api, held)

	// The deleted expense moved too: restored, it is Dan's.
	alice.Must(nil, `mutation($id: ID!) { restoreExpense(id: $id) { id } }`, "id", fromStartDeleted)
	alice.Must(nil, `mutation($id: ID!) { restoreExpense(id: $id) { id } }`, "id", heldDeleted)
	require.Equal(t, moneyView(t, alice, dan, fromStart), moneyView(t, alice, dan, held))
	checkKept(t, api, held)

	// The placeholder is a former member that names who claimed it; the
	// activity says what happened.
	var node struct {
		Node struct {
			Placeholder bool
			LeftAt      *string
			ClaimedBy   struct{ UserID string }
		}
	}
	alice.Must(&node, `query($id: ID!) { node(id: $id) { ... on Member { placeholder leftAt claimedBy { userId } } } }`, "id", held+":"+ph)
	require.True(t, node.Node.Placeholder)
	require.NotNil(t, node.Node.LeftAt)
	require.Equal(t, "444", node.Node.ClaimedBy.UserID)
	var log struct {
		Group struct {
			Activity struct {
				Nodes []struct {
					Type    string
					Actor   struct{ UserID string }
					Subject struct{ UserID string }
				}
			}
		}
	}
	alice.Must(&log, `query($g: ID!) { group(id: $g) { activity(first: 100) { nodes { type actor { userId } subject { ... on Member { userId } } } } } }`, "g", held)
	var types []string
	for _, n := range log.Group.Activity.Nodes {
		types = append(types, n.Type)
	}
	require.Contains(t, types, "PLACEHOLDER_ADDED")
	claimed := slices.Index(types, "PLACEHOLDER_CLAIMED")
	require.Positive(t, claimed)
	require.Equal(t, "444", log.Group.Activity.Nodes[claimed].Actor.UserID)
	require.Equal(t, ph, log.Group.Activity.Nodes[claimed].Subject.UserID)
	left := slices.Index(types, "MEMBER_LEFT")
	require.Less(t, left, claimed, "the placeholder leaves when the claim is done")
	require.Equal(t, ph, log.Group.Activity.Nodes[left].Subject.UserID)
}

func TestClaimPlaceholder(t *testing.T) {
	api := apitest.New(t)
	alice, bob, dan := api.User("111", "Alice"), api.User("222", "Bob"), api.User("444", "Dan")
	group := alice.CreateGroup("Trip")
	bob.Join(group)
	ph := placeholderOf(t, alice, group, "Carol")
	alice.Expense(group, "30.00", "111", "222", ph)
	const claim = `mutation($g: ID!, $p: ID!) { claimPlaceholder(groupId: $g, placeholderId: $p) { userId balances { currency net } } }`

	// Only a member claims, and only a placeholder.
	dan.Fails("NOT_FOUND", claim, "g", group, "p", ph)
	bob.Fails("NOT_FOUND", claim, "g", group, "p", "111")
	bob.Fails("NOT_FOUND", claim, "g", group, "p", "ph_00000000000000000000000000000000")

	dan.Join(group)
	var out struct {
		ClaimPlaceholder struct {
			UserID   string
			Balances []struct{ Currency, Net string }
		}
	}
	dan.Must(&out, claim, "g", group, "p", ph)
	require.Equal(t, "444", out.ClaimPlaceholder.UserID)
	require.Equal(t, []struct{ Currency, Net string }{{"USD", "-10.00"}}, out.ClaimPlaceholder.Balances)
	dan.Must(&out, claim, "g", group, "p", ph) // done already: nothing more happens
	bob.Fails("CONFLICT", claim, "g", group, "p", ph)

	// A claimed placeholder can no longer be named.
	res := alice.Fails("BAD_USER_INPUT", `mutation($g: ID!, $p: ID!) { createExpense(input: {groupId: $g, amount: "1.00", description: "x", splitType: EQUAL, splits: [{userId: $p}]}) { id } }`,
		"g", group, "p", ph)
	require.Equal(t, "input.splits[0].userId", res.Field())
	checkKept(t, api, group)
}

// When an expense names both the placeholder and the claimer, the claim
// stops there with CONFLICT; meanwhile balances show the placeholder's
// amounts as the claimer's, never a half-moved state, and once the expense
// is fixed, claiming again finishes.
func TestInterruptedClaimResumes(t *testing.T) {
	api := apitest.New(t)
	alice, dan := api.User("111", "Alice"), api.User("444", "Dan")
	group := alice.CreateGroup("Trip")
	dan.Join(group)
	ph := placeholderOf(t, alice, group, "Dan's placeholder")
	for i := range 3 {
		alice.Expense(group, fmt.Sprintf("%d.00", 10*(i+1)), "111", ph)
	}
	both := alice.Expense(group, "40.00", "111", "444", ph)
	for i := range 3 {
		alice.Expense(group, fmt.Sprintf("%d.00", 5*(i+1)), "111", ph)
	}
	var before struct {
		Group struct{ Balances []balanceRow }
	}
	alice.Must(&before, balancesQuery, "g", group)
	nets := netsOf(before.Group.Balances)
	require.Len(t, nets, 3)
	usd := money.MustCurrency("USD")
	amount := func(s string) money.Amount {
		a, err := money.ParseAmount(s, usd)
		require.NoError(t, err)
		return a
	}

	const claim = `mutation($g: ID!, $p: ID!) { claimPlaceholder(groupId: $g, placeholderId: $p) { userId } }`
	res := dan.Fails("CONFLICT", claim, "g", group, "p", ph)
	require.Contains(t, res.Errors[0].Message, "both on the expense")

	// Half the expenses have moved; the balances members see are the end state.
	merged := map[string]string{"USD 111": nets["USD 111"], "USD 444": amount(nets["USD 444"]).Add(amount(nets["USD "+ph])).String()}
	var during struct {
		Group struct{ Balances []balanceRow }
	}
	alice.Must(&during, balancesQuery, "g", group)
	require.Equal(t, merged, netsOf(during.Group.Balances))
	checkKept(t, api, group)

	// Take the placeholder off the shared expense; the claim then finishes.
	var e struct{ Expense struct{ Version int } }
	alice.Must(&e, `query($id: ID!) { expense(id: $id) { version } }`, "id", both)
	alice.Must(nil, `mutation($id: ID!, $v: Int!) { updateExpense(id: $id, input: {expectedVersion: $v, splitType: EQUAL, splits: [{userId: "111"}, {userId: "444"}]}) { id } }`,
		"id", both, "v", e.Expense.Version)
	dan.Must(nil, claim, "g", group, "p", ph)
	var after struct {
		Group struct{ Balances []balanceRow }
	}
	alice.Must(&after, balancesQuery, "g", group)
	final := netsOf(after.Group.Balances)
	require.Len(t, final, 2, "the placeholder is gone")
	require.True(t, amount(final["USD 111"]).Add(amount(final["USD 444"])).IsZero())
	require.NotEqual(t, merged, final, "the fixed expense changed the balances")
	checkKept(t, api, group)
}

// A placeholder on more expenses than one transaction can move is claimed
// in steps.
func TestLargeClaim(t *testing.T) {
	api := apitest.New(t)
	alice, dan := api.User("111", "Alice"), api.User("444", "Dan")
	group := alice.CreateGroup("Trip")
	ph := placeholderOf(t, alice, group, "Dan")
	const n = 40 // each moves a record, the expense, its revision and event: far over 100 items
	for range n {
		alice.Expense(group, "3.00", "111", ph)
	}
	dan.Join(group)
	dan.Must(nil, `mutation($g: ID!, $p: ID!) { claimPlaceholder(groupId: $g, placeholderId: $p) { id } }`, "g", group, "p", ph)

	var out struct {
		Me struct {
			Owes struct{ Nodes []struct{ Amount string } }
		}
	}
	dan.Must(&out, `{ me { owes(first: 100) { nodes { amount } } } }`)
	require.Len(t, out.Me.Owes.Nodes, n)
	var b struct {
		Group struct{ Balances []balanceRow }
	}
	alice.Must(&b, balancesQuery, "g", group)
	require.Equal(t, map[string]string{"USD 111": "60.00", "USD 444": "-60.00"}, netsOf(b.Group.Balances))
	checkKept(t, api, group)
}
