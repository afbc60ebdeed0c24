package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// client speaks GraphQL over HTTP as a front end does.
type client struct {
	t      *testing.T
	url    string
	header string
}

type response struct {
	Data   json.RawMessage
	Errors []struct {
		Message    string
		Extensions map[string]any
	}
}

func (c client) do(query string, vars map[string]any) response {
	c.t.Helper()
	status, _, out := c.post(query, vars)
	require.Equal(c.t, http.StatusOK, status)
	return out
}

// post sends an operation and returns the HTTP status, the Retry-After
// header and the decoded body, whatever the status.
func (c client) post(query string, vars map[string]any) (int, string, response) {
	c.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, c.url+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if c.header != "" {
		req.Header.Set("Authorization", c.header)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(c.t, err)
	defer res.Body.Close()
	var out response
	require.NoError(c.t, json.NewDecoder(res.Body).Decode(&out))
	return res.StatusCode, res.Header.Get("Retry-After"), out
}

func (c client) must(out any, query string, vars map[string]any) {
	c.t.Helper()
	res := c.do(query, vars)
	require.Empty(c.t, res.Errors, query)
	if out != nil {
		require.NoError(c.t, json.Unmarshal(res.Data, out))
	}
}

func server(t *testing.T) (*httptest.Server, *store.Store) {
	s := store.New(dynamotest.Client(t), dynamotest.Table(t), store.Options{CursorSecret: []byte("e2e")})
	srv := httptest.NewServer(httpapi.New(httpapi.Config{Store: s, BotToken: apitest.BotToken, CORSOrigins: []string{"https://app.example"}}))
	t.Cleanup(srv.Close)
	return srv, s
}

// TestScenario: three users create a group, join, add expenses of every
// split type, page through them two at a time, settle, delete an expense and
// read their own views.
func TestScenario(t *testing.T) {
	srv, s := server(t)
	token, err := auth.NewToken()
	require.NoError(t, err)
	_, err = s.CreateToken(context.Background(), store.Token{Hash: auth.HashToken(token), UserID: "111", Name: "Alice Smith"})
	require.NoError(t, err)
	alice := client{t, srv.URL, "Bearer " + token}                                          // a script with an access token
	bob := client{t, srv.URL, "tma " + apitest.InitData(222, "Bob", "Jones", "bob", now())} // a Mini App user

	var created struct {
		CreateGroup  struct{ ID string }
		CreateInvite struct{ Secret string }
	}
	alice.must(&created, `mutation { createGroup(input: {title: "Roommates", currency: "USD"}) { id } }`, nil)
	group := created.CreateGroup.ID
	alice.must(&created, `mutation($g: ID!) { createInvite(groupId: $g, input: {maxUses: 2}) { secret } }`, map[string]any{"g": group})
	// Carol opens the invite link: the Mini App starts with the invite as its
	// start parameter, and she joins in one call without naming it.
	carol := client{t, srv.URL, "tma " + apitest.InitDataStartParam(333, "Carol", "White", "", now(), created.CreateInvite.Secret)}
	for _, c := range []client{bob, bob} { // Bob joins twice: the second spends no use
		c.must(nil, `mutation($i: String!) { joinGroup(invite: $i) { id } }`, map[string]any{"i": created.CreateInvite.Secret})
	}
	carol.must(nil, `mutation { joinGroup { id } }`, nil)

	add := func(c client, in map[string]any) string {
		in["groupId"] = group
		var out struct{ CreateExpense struct{ ID, Amount string } }
		c.must(&out, `mutation($in: CreateExpenseInput!) { createExpense(input: $in) { id amount } }`, map[string]any{"in": in})
		return out.CreateExpense.ID
	}
	everyone := []any{map[string]any{"userId": "111"}, map[string]any{"userId": "222"}, map[string]any{"userId": "333"}}
	ids := []string{
		add(alice, map[string]any{"amount": "90.00", "description": "Groceries", "splitType": "EQUAL", "splits": everyone}),
		add(bob, map[string]any{"amount": "50.00", "description": "Internet", "splitType": "EXACT", "splits": []any{
			map[string]any{"userId": "111", "amount": "20.00"}, map[string]any{"userId": "333", "amount": "30.00"}}}),
		add(carol, map[string]any{"amount": "200.00", "description": "Cleaning", "splitType": "PERCENTAGE", "splits": []any{
			map[string]any{"userId": "111", "percentage": "50"}, map[string]any{"userId": "222", "percentage": "25"}, map[string]any{"userId": "333", "percentage": "25"}}}),
		add(alice, map[string]any{"amount": "10.00", "description": "Snacks", "splitType": "EQUAL", "splits": everyone}),
		add(bob, map[string]any{"amount": "7.00", "description": "Coffee", "splitType": "EQUAL", "splits": everyone[:2]}),
	}

	// Page through two at a time: every expense exactly once, newest first.
	var seen []string
	var after any
	for {
		var page struct {
			Group struct {
				MemberCount int
				Expenses    struct {
					Edges    []struct{ Node struct{ ID string } }
					PageInfo struct {
						HasNextPage bool
						EndCursor   string
					}
				}
			}
		}
		carol.must(&page, `query($g: ID!, $after: String) { group(id: $g) { memberCount expenses(first: 2, after: $after) {
			edges { node { id } } pageInfo { hasNextPage endCursor } } } }`, map[string]any{"g": group, "after": after})
		require.Equal(t, 3, page.Group.MemberCount)
		for _, e := range page.Group.Expenses.Edges {
			seen = append(seen, e.Node.ID)
		}
		if !page.Group.Expenses.PageInfo.HasNextPage {
			break
		}
		after = page.Group.Expenses.PageInfo.EndCursor
	}
	require.Equal(t, []string{ids[4], ids[3], ids[2], ids[1], ids[0]}, seen)

	// Carol settles with Alice; Alice confirms.
	var st struct{ CreateSettlement struct{ ID, Status string } }
	carol.must(&st, `mutation($g: ID!) { createSettlement(input: {groupId: $g, toUserId: "111", amount: "40.00"}) { id status } }`, map[string]any{"g": group})
	require.Equal(t, "PENDING", st.CreateSettlement.Status)
	var done struct {
		UpdateSettlement struct{ Status, CompletedAt string }
	}
	alice.must(&done, `mutation($id: ID!) { updateSettlement(id: $id, input: {status: COMPLETED}) { status completedAt } }`, map[string]any{"id": st.CreateSettlement.ID})
	require.Equal(t, "COMPLETED", done.UpdateSettlement.Status)

	// Bob deletes his coffee; Carol may not delete Alice's snacks.
	bob.must(nil, `mutation($id: ID!) { deleteExpense(id: $id) }`, map[string]any{"id": ids[4]})
	res := carol.do(`mutation($id: ID!) { deleteExpense(id: $id) }`, map[string]any{"id": ids[3]})
	require.Equal(t, "FORBIDDEN", res.Errors[0].Extensions["code"])

	// Their own views.
	const me = `{ me { id name
		groups { nodes { title memberCount } }
		expensesPaid { nodes { description } }
		owes { nodes { amount expense { description } payer { name } } }
		settlements { nodes { amount status to { name } } }
		activity { nodes { __typename ... on Expense { description } ... on Settlement { amount } } } } }`
	type view struct {
		Me struct {
			ID, Name string
			Groups   struct {
				Nodes []struct {
					Title       string
					MemberCount int
				}
			}
			ExpensesPaid struct {
				Nodes []struct{ Description string }
			}
			Owes struct {
				Nodes []struct {
					Amount  string
					Expense struct{ Description string }
					Payer   struct{ Name string }
				}
			}
			Settlements struct {
				Nodes []struct {
					Amount, Status string
					To             struct{ Name string }
				}
			}
			Activity struct {
				Nodes []struct {
					Typename    string `json:"__typename"`
					Description string
					Amount      string
				}
			}
		}
	}
	var a, b, c view
	alice.must(&a, me, nil)
	bob.must(&b, me, nil)
	carol.must(&c, me, nil)

	require.Equal(t, "Alice Smith", a.Me.Name)
	require.Equal(t, "Roommates", a.Me.Groups.Nodes[0].Title)
	require.Equal(t, 3, a.Me.Groups.Nodes[0].MemberCount)
	require.Equal(t, []struct{ Description string }{{"Snacks"}, {"Groceries"}}, a.Me.ExpensesPaid.Nodes)
	// Alice owes on Bob's internet and Carol's cleaning; Bob's coffee is gone.
	require.Len(t, a.Me.Owes.Nodes, 2)
	require.Equal(t, "100.00", a.Me.Owes.Nodes[0].Amount)
	require.Equal(t, "Cleaning", a.Me.Owes.Nodes[0].Expense.Description)
	require.Equal(t, "20.00", a.Me.Owes.Nodes[1].Amount)
	require.Equal(t, "Bob Jones", a.Me.Owes.Nodes[1].Payer.Name)

	require.Equal(t, "222", b.Me.ID)
	require.Equal(t, "Bob Jones", b.Me.Name)
	require.Equal(t, []struct{ Description string }{{"Internet"}}, b.Me.ExpensesPaid.Nodes)

	require.Equal(t, "Carol White", c.Me.Name)
	require.Len(t, c.Me.Settlements.Nodes, 1)
	require.Equal(t, "40.00", c.Me.Settlements.Nodes[0].Amount)
	require.Equal(t, "COMPLETED", c.Me.Settlements.Nodes[0].Status)
	require.Equal(t, "Alice Smith", c.Me.Settlements.Nodes[0].To.Name)
	require.Len(t, c.Me.Activity.Nodes, 2)
	require.Equal(t, "Settlement", c.Me.Activity.Nodes[0].Typename, "newest first")
	require.Equal(t, "Expense", c.Me.Activity.Nodes[1].Typename)
	require.Equal(t, "Cleaning", c.Me.Activity.Nodes[1].Description)
	// Carol's shares: groceries, internet, snacks.
	require.Len(t, c.Me.Owes.Nodes, 3)
}
