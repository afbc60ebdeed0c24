package graph_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/stretchr/testify/require"
)

const eraseMyData = `mutation($c: String!) { eraseMyData(confirm: $c) { groups tokensRevoked itemsErased pending pendingGroups } }`

// erasePayload is what eraseMyData answers.
type erasePayload struct {
	Groups, TokensRevoked, ItemsErased, PendingGroups int
	Pending                                           bool
}

const groupBooks = `query($g: ID!) { group(id: $g) {
	members { nodes { id name username wallet avatarUrl } }
	balances { member { id name } net currency }
	debts(simplify: false) { from { id name } to { id name } amount currency }
	expenses { nodes { amount payers { member { id name } amount } splits { member { id name } amount } } }
	historyHead
} }`

// books is what another member reads of the group.
type books struct {
	Group struct {
		Members struct {
			Nodes []struct {
				ID, Name                    string
				Username, Wallet, AvatarURL *string
			}
		}
		Balances []struct {
			Member        struct{ ID, Name string }
			Net, Currency string
		}
		Debts []struct {
			From, To         struct{ ID, Name string }
			Amount, Currency string
		}
		Expenses struct {
			Nodes []struct {
				Amount string
				Payers []struct {
					Member struct{ ID, Name string }
					Amount string
				}
				Splits []struct {
					Member struct{ ID, Name string }
					Amount string
				}
			}
		}
	}
}

// Bob erases his data: the others then read the group with Bob as "Former
// member" and every amount, balance and debt as before; the chain verifies;
// his token no longer works; signing in again he has no groups, and the
// group's id alone does not take him back.
func TestEraseMyData(t *testing.T) {
	api := apitest.New(t)
	alice := api.User("111", "Alice")
	bob := api.TelegramUser(222, "Bob", "Smith", "bobsmith")
	carol := api.User("333", "Carol")
	group := alice.CreateGroup("Trip")
	bob.Join(group)
	carol.Join(group)
	bob.Must(nil, `mutation($g: ID!, $w: String!) { updateWallet(groupId: $g, wallet: $w) { id } }`,
		"g", group, "w", "EQBvI0aFLnw2QbZgjMPCLRdtRHxhUyinQudg6sdiohIwg5jL")
	alice.Expense(group, "30.00", "111", "222", "333")
	bob.Expense(group, "12.00", "222", "333")
	bob.Settle(group, "111", "5.00")
	bobToken := api.WithHeader("Bearer " + createAccessToken(t, bob, map[string]any{"name": "bot", "scopes": []string{"READ", "WRITE"}}).Token)
	bobToken.Must(nil, `{ me { id } }`)

	var before books
	alice.Must(&before, groupBooks, "g", group)

	res := bob.Fails("BAD_USER_INPUT", eraseMyData, "c", "erase")
	require.Contains(t, res.Errors[0].Message, `must be exactly "ERASE"`)

	var out struct{ EraseMyData erasePayload }
	bob.Must(&out, eraseMyData, "c", "ERASE")
	require.Equal(t, 1, out.EraseMyData.Groups)
	require.Equal(t, 1, out.EraseMyData.TokensRevoked)
	require.False(t, out.EraseMyData.Pending)

	var after books
	alice.Must(&after, groupBooks, "g", group)
	for _, m := range after.Group.Members.Nodes {
		require.NotEqual(t, "222", m.ID, "a former member is not listed among members")
	}
	named := func(b books) (names []string, amounts []string) {
		for _, bl := range b.Group.Balances {
			names, amounts = append(names, bl.Member.Name), append(amounts, bl.Member.ID+" "+bl.Net+" "+bl.Currency)
		}
		for _, d := range b.Group.Debts {
			names = append(names, d.From.Name, d.To.Name)
			amounts = append(amounts, d.From.ID+">"+d.To.ID+" "+d.Amount+" "+d.Currency)
		}
		for _, e := range b.Group.Expenses.Nodes {
			for _, p := range e.Payers {
				names, amounts = append(names, p.Member.Name), append(amounts, p.Member.ID+" paid "+p.Amount)
			}
			for _, s := range e.Splits {
				names, amounts = append(names, s.Member.Name), append(amounts, s.Member.ID+" owes "+s.Amount)
			}
		}
		return names, amounts
	}
	namesBefore, amountsBefore := named(before)
	namesAfter, amountsAfter := named(after)
	require.Equal(t, amountsBefore, amountsAfter, "amounts, balances and debts unchanged")
	require.Contains(t, namesBefore, "Bob Smith")
	require.NotContains(t, namesAfter, "Bob Smith")
	require.Contains(t, namesAfter, "Former member")
	require.Contains(t, namesAfter, "Carol")

	var member struct {
		Group struct {
			Activity struct {
				Nodes []struct {
					Type    string
					Changes []struct{ Field, Before, After *string }
				}
			}
		}
	}
	alice.Must(&member, `query($g: ID!) { group(id: $g) { activity(first: 100) { nodes { type changes { field before after } } } } }`, "g", group)
	require.Equal(t, "MEMBER_ERASED", member.Group.Activity.Nodes[0].Type)
	for _, n := range member.Group.Activity.Nodes {
		for _, c := range n.Changes {
			for _, v := range []*string{c.Before, c.After} {
				if v != nil {
					require.NotContains(t, *v, "Bob")
					require.NotContains(t, *v, "EQBvI0aF")
				}
			}
		}
	}
	broken, err := api.Store.VerifyChain(context.Background(), group)
	require.NoError(t, err)
	require.Empty(t, broken)

	bobToken.Fails("UNAUTHENTICATED", `{ me { id } }`)

	again := api.TelegramUser(222, "Bob", "Smith", "bobsmith")
	var me struct {
		Me struct {
			Name   string
			Groups struct{ Nodes []struct{ ID string } }
		}
	}
	again.Must(&me, `{ me { name groups { nodes { id } } } }`)
	require.Empty(t, me.Me.Groups.Nodes, "a fresh sign-in starts with no groups")
	var v struct{ Group struct{ Version int } }
	alice.Must(&v, `query($g: ID!) { group(id: $g) { version } }`, "g", group)
	alice.Must(nil, `mutation($g: ID!, $v: Int!) { updateGroup(id: $g, input: {joinByIdAllowed: true, expectedVersion: $v}) { id } }`,
		"g", group, "v", v.Group.Version)
	again.Fails("NOT_FOUND", `mutation($g: ID!) { joinGroup(groupId: $g) { id } }`, "g", group)
	again.Join(group) // a new invite takes him back
	again.Must(&me, `{ me { name groups { nodes { id } } } }`)
	require.Len(t, me.Me.Groups.Nodes, 1)
}

// An erasure cut short answers pending, and calling it again finishes it.
func TestEraseMyDataResumes(t *testing.T) {
	armed, failed := false, false
	fault := dynamotest.NewFault(func(op string, _ int) error {
		if op == "UpdateItem" && armed && !failed {
			failed = true
			return errors.New("injected: connection lost")
		}
		return nil
	})
	api := apitest.NewWithClientOptions(t, []func(*dynamodb.Options){fault.Option()})
	alice := api.User("111", "Alice")
	bob := api.User("222", "Bob")
	group := alice.CreateGroup("Trip")
	bob.Join(group)
	alice.Expense(group, "30.00", "111", "222")

	armed = true
	var out struct{ EraseMyData erasePayload }
	bob.Must(&out, eraseMyData, "c", "ERASE")
	require.True(t, out.EraseMyData.Pending)
	require.Equal(t, 1, out.EraseMyData.PendingGroups)

	done, err := api.Store.ResumeErasures(context.Background(), time.Now().Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, 1, done, "the erasures job finishes it")
	var b books
	alice.Must(&b, groupBooks, "g", group)
	var names []string
	for _, e := range b.Group.Expenses.Nodes {
		for _, s := range e.Splits {
			names = append(names, s.Member.Name)
		}
	}
	require.Equal(t, []string{"Alice", "Former member"}, names)
}

// TestErasingTheOnlyOwnerHandsTheGroupOver: a group whose only owner erases
// their data keeps an owner (its longest-standing admin, else member), even
// while archived; the erasure is on the activity log as the hand-over and
// the erasure.
func TestErasingTheOnlyOwnerHandsTheGroupOver(t *testing.T) {
	api := apitest.New(t)
	ann, ben, cat := api.User("301", "Ann"), api.User("302", "Ben"), api.User("303", "Cat")
	g := ann.CreateGroup("Flat")
	ben.Join(g)
	cat.Join(g)
	ann.Must(nil, `mutation($g: ID!) { setMemberRole(groupId: $g, userId: "303", role: ADMIN) { id } }`, "g", g)
	ann.Expense(g, "9.00", "301", "302", "303") // balances stay as they are
	ann.Must(nil, `mutation($g: ID!) { archiveGroup(id: $g) { id } }`, "g", g)

	var out struct{ EraseMyData erasePayload }
	ann.Must(&out, eraseMyData, "c", "ERASE")
	require.False(t, out.EraseMyData.Pending)

	var read struct {
		Group struct {
			ViewerRole string
			Members    struct {
				Nodes []struct{ UserID, Role string }
			}
			Activity struct{ Nodes []struct{ Type string } }
		}
	}
	cat.Must(&read, `query($g: ID!) { group(id: $g) { viewerRole members { nodes { userId role } } activity(first: 2) { nodes { type } } } }`, "g", g)
	require.Equal(t, "OWNER", read.Group.ViewerRole, "the admin, not the longer-standing member, takes the group")
	require.Equal(t, []struct{ UserID, Role string }{{"302", "MEMBER"}, {"303", "OWNER"}}, read.Group.Members.Nodes)
	require.Equal(t, []struct{ Type string }{{"MEMBER_ERASED"}, {"OWNERSHIP_TRANSFERRED"}}, read.Group.Activity.Nodes)
	// The new owner may unarchive it and carry on.
	cat.Must(nil, `mutation($g: ID!) { unarchiveGroup(id: $g) { id } }`, "g", g)
}
