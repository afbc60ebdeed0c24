package graph_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/stretchr/testify/require"
)

const addCommentMutation = `mutation($e: ID!, $b: String!) { addComment(expenseId: $e, body: $b) {
	id body createdAt deletedAt author { userId name } expense { id } } }`

// commentResult is a Comment as the operations here select it.
type commentResult struct {
	ID        string
	Body      *string
	CreatedAt string
	DeletedAt *string
	Author    struct{ UserID, Name string }
	Expense   struct{ ID string }
}

// addComment has u comment on the expense and returns the comment.
func addComment(t *testing.T, u *apitest.User, expense, body string) commentResult {
	t.Helper()
	var out struct{ AddComment commentResult }
	u.Must(&out, addCommentMutation, "e", expense, "b", body)
	return out.AddComment
}

// commentsOf reads a page of the expense's comments as u sees them.
func commentsOf(t *testing.T, u *apitest.User, expense string, first int, after *string) (nodes []commentResult, end *string, more bool) {
	t.Helper()
	var out struct {
		Expense struct {
			Comments struct {
				Edges []struct {
					Cursor string
					Node   commentResult
				}
				PageInfo struct {
					HasNextPage bool
					EndCursor   *string
				}
			}
		}
	}
	u.Must(&out, `query($e: ID!, $n: Int, $a: String) { expense(id: $e) { comments(first: $n, after: $a) {
		edges { cursor node { id body createdAt deletedAt author { userId name } expense { id } } }
		pageInfo { hasNextPage endCursor } } } }`, "e", expense, "n", first, "a", after)
	for _, e := range out.Expense.Comments.Edges {
		nodes = append(nodes, e.Node)
	}
	return nodes, out.Expense.Comments.PageInfo.EndCursor, out.Expense.Comments.PageInfo.HasNextPage
}

func TestAddCommentAndListThem(t *testing.T) {
	api, group, alice, bob, _ := trio(t)
	expense := alice.Expense(group, "30.00", "111", "222", "333")

	first := addComment(t, bob, expense, "  Was the tip included?  ")
	require.Regexp(t, `^cmt_[0-9a-f]{32}$`, first.ID)
	require.Equal(t, "Was the tip included?", *first.Body, "trimmed")
	require.Nil(t, first.DeletedAt)
	require.Equal(t, "222", first.Author.UserID)
	require.Equal(t, "Bob", first.Author.Name)
	require.Equal(t, expense, first.Expense.ID)
	want := []commentResult{first}
	for i := range 4 {
		want = append(want, addComment(t, alice, expense, fmt.Sprintf("Yes, %d%%", 10+i)))
	}

	// Oldest first, page by page, for every member.
	var got []commentResult
	var after *string
	for pages := 0; ; pages++ {
		require.Less(t, pages, 5)
		nodes, end, more := commentsOf(t, bob, expense, 2, after)
		got = append(got, nodes...)
		if !more {
			break
		}
		require.Len(t, nodes, 2)
		after = end
	}
	require.Equal(t, want, got)

	// Another expense has its own thread, and refuses this one's cursors.
	other := alice.Expense(group, "5.00", "111")
	nodes, _, _ := commentsOf(t, alice, other, 10, nil)
	require.Empty(t, nodes)
	_, end, _ := commentsOf(t, alice, expense, 1, nil)
	alice.Fails("BAD_USER_INPUT", `query($e: ID!, $a: String) { expense(id: $e) { comments(after: $a) { nodes { id } } } }`, "e", other, "a", *end)
	alice.Fails("BAD_USER_INPUT", `query($e: ID!) { expense(id: $e) { comments(first: 101) { nodes { id } } } }`, "e", expense)

	// node(id) finds a comment for members only.
	var node struct {
		Node *struct {
			Typename string `json:"__typename"`
			ID, Body string
		}
	}
	bob.Must(&node, `query($id: ID!) { node(id: $id) { __typename ... on Comment { id body } } }`, "id", first.ID)
	require.Equal(t, "Comment", node.Node.Typename)
	require.Equal(t, first.ID, node.Node.ID)
	api.User("666", "Mallory").Must(&node, `query($id: ID!) { node(id: $id) { __typename ... on Comment { id body } } }`, "id", first.ID)
	require.Nil(t, node.Node)
}

func TestDeleteComment(t *testing.T) {
	api, group, alice, bob, _ := trio(t)
	mallory := api.User("666", "Mallory")
	expense := alice.Expense(group, "30.00", "111", "222")
	c := addComment(t, bob, expense, "Typo: it was 20")

	const del = `mutation($id: ID!) { deleteComment(id: $id) }`
	// Another member may not; an outsider cannot tell it exists.
	alice.Fails("FORBIDDEN", del, "id", c.ID)
	res := mallory.Fails("NOT_FOUND", del, "id", c.ID)
	require.Contains(t, res.Errors[0].Message, "not found")
	mallory.Fails("NOT_FOUND", del, "id", "cmt_00000000000000000000000000000000")
	var node struct{ Node *struct{ ID string } }
	mallory.Must(&node, `query($id: ID!) { node(id: $id) { id } }`, "id", c.ID)
	require.Nil(t, node.Node)

	var out struct{ DeleteComment string }
	bob.Must(&out, del, "id", c.ID)
	require.Equal(t, c.ID, out.DeleteComment)

	// A tombstone stays in its place: no body, deletedAt set.
	nodes, _, _ := commentsOf(t, alice, expense, 10, nil)
	require.Len(t, nodes, 1)
	require.Equal(t, c.ID, nodes[0].ID)
	require.Nil(t, nodes[0].Body)
	require.NotNil(t, nodes[0].DeletedAt)
	require.Equal(t, "222", nodes[0].Author.UserID)

	// Deleting twice is a conflict, and records nothing more.
	before := activityTypes(t, alice, group)
	bob.Fails("CONFLICT", del, "id", c.ID)
	require.Equal(t, before, activityTypes(t, alice, group))
}

func TestAddCommentRefusesBadBodies(t *testing.T) {
	_, group, alice, _, _ := trio(t)
	expense := alice.Expense(group, "30.00", "111", "222")
	before := activityTypes(t, alice, group)
	for name, body := range map[string]string{
		"empty":           "",
		"blank":           "   ",
		"invisible":       "\u200b\u200b",
		"a line break":    "two\nlines",
		"a NUL":           "a\x00b",
		"a bidi override": "\u202egnp.exe",
		"too long":        strings.Repeat("é", 1001),
	} {
		t.Run(name, func(t *testing.T) {
			res := alice.Fails("BAD_USER_INPUT", addCommentMutation, "e", expense, "b", body)
			require.Equal(t, "body", res.Field())
			if strings.Contains(body, "\n") {
				// The name rules say no line breaks: the answer says so.
				require.Contains(t, res.Errors[0].Message, "line breaks")
			}
		})
	}
	// 1000 characters (not bytes) are fine.
	long := addComment(t, alice, expense, strings.Repeat("é", 1000))
	require.Len(t, []rune(*long.Body), 1000)

	nodes, _, _ := commentsOf(t, alice, expense, 10, nil)
	require.Len(t, nodes, 1, "nothing was written for the refused ones")
	require.Equal(t, append([]string{"COMMENT_ADDED"}, before...), activityTypes(t, alice, group))
}

func TestAddCommentNeedsALiveExpenseAndAMember(t *testing.T) {
	api, group, alice, bob, carol := trio(t)
	mallory := api.User("666", "Mallory")
	expense := alice.Expense(group, "30.00", "111", "222")
	c := addComment(t, bob, expense, "Thanks!")

	// Outsiders, and a member who left, see no expense.
	mallory.Fails("NOT_FOUND", addCommentMutation, "e", expense, "b", "hi")
	mallory.Fails("NOT_FOUND", addCommentMutation, "e", "7d9c1f4e-0000-4000-8000-000000000000", "b", "hi")
	carol.Must(nil, `mutation($g: ID!) { leaveGroup(groupId: $g) }`, "g", group)
	carol.Fails("NOT_FOUND", addCommentMutation, "e", expense, "b", "hi")

	// A deleted expense takes no comments but keeps its own, which show
	// again once it is restored.
	alice.Must(nil, `mutation($id: ID!) { deleteExpense(id: $id) }`, "id", expense)
	bob.Fails("CONFLICT", addCommentMutation, "e", expense, "b", "hi")
	alice.Must(nil, `mutation($id: ID!) { restoreExpense(id: $id) { id } }`, "id", expense)
	nodes, _, _ := commentsOf(t, bob, expense, 10, nil)
	require.Equal(t, []commentResult{c}, nodes)
	addComment(t, bob, expense, "Back again")
}

// activityTypes lists the group's activity event types, newest first.
func activityTypes(t *testing.T, u *apitest.User, group string) []string {
	t.Helper()
	var out struct {
		Group struct {
			Activity struct{ Nodes []struct{ Type string } }
		}
	}
	u.Must(&out, `query($g: ID!) { group(id: $g) { activity(first: 100) { nodes { type } } } }`, "g", group)
	var types []string
	for _, n := range out.Group.Activity.Nodes {
		types = append(types, n.Type)
	}
	return types
}

func TestCommentsInTheActivity(t *testing.T) {
	_, group, alice, bob, _ := trio(t)
	expense := alice.Expense(group, "30.00", "111", "222")
	kept := addComment(t, bob, expense, "Thanks!")
	gone := addComment(t, alice, expense, "Oops")
	alice.Must(nil, `mutation($id: ID!) { deleteComment(id: $id) }`, "id", gone.ID)

	var out struct {
		Group struct {
			Activity struct {
				Nodes []struct {
					Type    string
					Actor   struct{ UserID string }
					Changes []any
					Subject *struct {
						Typename  string `json:"__typename"`
						ID        string
						Body      *string
						DeletedAt *string
						Expense   struct{ ID string }
					}
				}
			}
		}
	}
	bob.Must(&out, `query($g: ID!) { group(id: $g) { activity(first: 3) { nodes { type actor { userId } changes { field }
		subject { __typename ... on Comment { id body deletedAt expense { id } } } } } } }`, "g", group)
	evs := out.Group.Activity.Nodes
	require.Len(t, evs, 3)
	require.Equal(t, []string{"COMMENT_DELETED", "COMMENT_ADDED", "COMMENT_ADDED"}, []string{evs[0].Type, evs[1].Type, evs[2].Type})
	require.Equal(t, []string{"111", "111", "222"}, []string{evs[0].Actor.UserID, evs[1].Actor.UserID, evs[2].Actor.UserID})
	for _, ev := range evs {
		require.Empty(t, ev.Changes, "the text is never copied into the log")
		require.Equal(t, "Comment", ev.Subject.Typename)
		require.Equal(t, expense, ev.Subject.Expense.ID)
	}
	// Both events of the deleted comment show its tombstone, never its text.
	require.Equal(t, gone.ID, evs[0].Subject.ID)
	require.Equal(t, gone.ID, evs[1].Subject.ID)
	require.Nil(t, evs[1].Subject.Body)
	require.NotNil(t, evs[1].Subject.DeletedAt)
	require.Equal(t, kept.ID, evs[2].Subject.ID)
	require.Equal(t, "Thanks!", *evs[2].Subject.Body)
}

func TestGroupEventsDeliversComments(t *testing.T) {
	requireCommentEvents(t, apitest.New(t, apitest.Live()))
}

// requireCommentEvents: Ben, subscribed to his group's events, gets Ann's
// COMMENT_ADDED and COMMENT_DELETED, each with its comment as subject.
func requireCommentEvents(t *testing.T, api *apitest.API) {
	t.Helper()
	ann, ben := api.User("1001", "Ann"), api.User("1002", "Ben")
	g := ann.CreateGroup("Dinner")
	ben.Join(g)
	exp := ann.Expense(g, "30.00", "1001", "1002")

	c := dial(t, api, ben)
	const sub = `subscription($g: ID!) { groupEvents(groupId: $g) { type actor { name } subject { __typename ... on Comment { id body } } } }`
	require.NoError(t, c.Subscribe(context.Background(), "1", sub, map[string]any{"g": g}))
	waitSubscribed(t, api, 1)

	added := addComment(t, ann, exp, "Who had the dessert?")
	// deleteComment finds the comment by id, through GSI2: with gsi2Lags,
	// only once the index caught up.
	indexCaughtUp.Store(true)
	ann.Must(nil, `mutation($id: ID!) { deleteComment(id: $id) }`, "id", added.ID)
	indexCaughtUp.Store(false)
	for _, want := range []string{"COMMENT_ADDED", "COMMENT_DELETED"} {
		var ev liveEvent
		for ev.Type != want { // the expense's event, recorded just before, may come first
			ev = nextEvent(t, c, "1", "groupEvents")
		}
		require.Equal(t, "Ann", ev.Actor.Name)
		require.Equal(t, "Comment", ev.Subject.Typename, want)
		require.Equal(t, added.ID, ev.Subject.ID, want)
	}
}

// commentOperations are the comment fields and mutations for the
// authorization matrix (auth_test.go).
func commentOperations(expense, comment string) []operation {
	isNull := func(field string) func(t *testing.T, data string) {
		return func(t *testing.T, data string) { require.JSONEq(t, `{"`+field+`":null}`, data) }
	}
	return []operation{
		{name: "expense comments", query: `query($id: ID!) { expense(id: $id) { comments { nodes { id body author { userId } expense { id } } } } }`,
			vars: []any{"id", expense}, hidden: isNull("expense")},
		{name: "node comment", query: `query($id: ID!) { node(id: $id) { ... on Comment { id body } } }`, vars: []any{"id", comment}, hidden: isNull("node")},
		{name: "addComment", query: `mutation($e: ID!) { addComment(expenseId: $e, body: "hi") { id } }`, vars: []any{"e", expense}, nonMember: "NOT_FOUND"},
		{name: "deleteComment", query: `mutation($id: ID!) { deleteComment(id: $id) }`, vars: []any{"id", comment}, nonMember: "NOT_FOUND"},
	}
}

func TestCommentsOfAPageOfExpensesCostPerComment(t *testing.T) {
	_, group, alice, _, _ := trio(t)
	const q = `query($g: ID!, $n: Int) { group(id: $g) { expenses(first: $n) { nodes { id
		comments(first: $n) { nodes { id body createdAt author { name } } } } } } }`
	// Each expense's thread is a Query of its own: a page of expenses
	// asking for full pages of comments multiplies, and is refused before
	// anything is read.
	alice.Fails("COMPLEXITY_LIMIT_EXCEEDED", q, "g", group, "n", 100)
	alice.Must(nil, q, "g", group, "n", 20)
}

// A page of activity whose events are comments reads every subject by its
// key (an event carries the comment's expense and time): one BatchGetItem
// for them all in the wave after the page of events; the authors are
// members already read.
func TestCommentSubjectsAreLookedUpInOneWave(t *testing.T) {
	api := apitest.NewWithLatency(t, latency)
	alice, bob := api.User("111", "Alice"), api.User("222", "Bob")
	group := alice.CreateGroup("Trip")
	bob.Join(group)
	expense := alice.Expense(group, "30.00", "111", "222")
	for i := range 10 {
		addComment(t, bob, expense, fmt.Sprint("comment ", i))
	}
	var out struct {
		Group struct {
			Activity struct {
				Nodes []struct {
					Type    string
					Subject struct {
						Body   string
						Author struct{ Name string }
					}
				}
			}
		}
	}
	calls, waves := cost(t, api, alice, &out, `query($g: ID!) { group(id: $g) { activity(first: 10) { nodes { type
		subject { ... on Comment { id body author { name } } } } } } }`, "g", group)
	require.Len(t, out.Group.Activity.Nodes, 10)
	for i, n := range out.Group.Activity.Nodes {
		require.Equal(t, "COMMENT_ADDED", n.Type)
		require.Equal(t, fmt.Sprint("comment ", 9-i), n.Subject.Body)
		require.Equal(t, "Bob", n.Subject.Author.Name)
	}
	require.Equal(t, map[string]int{"BatchGetItem": 2, "Query": 2}, calls, "no GSI2 look-up per comment")
	require.Equal(t, 2, waves, "the page of events, then every lookup at once")
}

// An expense deleted and purged after its restore window (the table's TTL
// removes its tombstone) leaves its comments: they still answer, with a
// null expense, as the events of a purged expense have a null subject.
func TestCommentOutlivesItsPurgedExpense(t *testing.T) {
	api, group, alice, bob, _ := trio(t)
	expense := alice.Expense(group, "30.00", "111", "222")
	c := addComment(t, bob, expense, "Thanks!")
	alice.Must(nil, `mutation($id: ID!) { deleteExpense(id: $id) }`, "id", expense)
	purgeDeletedExpenses(t, api, group)

	var node struct {
		Node struct {
			ID      string
			Body    string
			Expense *struct{ ID string }
		}
	}
	bob.Must(&node, `query($id: ID!) { node(id: $id) { ... on Comment { id body expense { id } } } }`, "id", c.ID)
	require.Equal(t, c.ID, node.Node.ID)
	require.Equal(t, "Thanks!", node.Node.Body)
	require.Nil(t, node.Node.Expense)

	var out struct {
		Group struct {
			Activity struct {
				Nodes []struct {
					Type    string
					Subject *struct{ Expense *struct{ ID string } }
				}
			}
		}
	}
	bob.Must(&out, `query($g: ID!) { group(id: $g) { activity(first: 2) { nodes { type subject { ... on Comment { expense { id } } } } } } }`, "g", group)
	require.Equal(t, []string{"EXPENSE_DELETED", "COMMENT_ADDED"}, []string{out.Group.Activity.Nodes[0].Type, out.Group.Activity.Nodes[1].Type})
	require.NotNil(t, out.Group.Activity.Nodes[1].Subject)
	require.Nil(t, out.Group.Activity.Nodes[1].Subject.Expense)
}

// purgeDeletedExpenses removes the group's deleted expenses from the table,
// as its TTL does once their restore window has passed.
func purgeDeletedExpenses(t *testing.T, api *apitest.API, group string) {
	t.Helper()
	db, table := dynamotest.Client(t), api.Store.Table()
	out, err := db.Query(t.Context(), &dynamodb.QueryInput{
		TableName:              &table,
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :sk)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: "GROUP#" + group}, ":sk": &types.AttributeValueMemberS{Value: "DELETED#"},
		},
	})
	require.NoError(t, err)
	require.NotEmpty(t, out.Items)
	for _, item := range out.Items {
		_, err := db.DeleteItem(t.Context(), &dynamodb.DeleteItemInput{TableName: &table, Key: map[string]types.AttributeValue{"PK": item["PK"], "SK": item["SK"]}})
		require.NoError(t, err)
	}
}

func TestAddCommentWithAnIdempotencyKey(t *testing.T) {
	_, group, alice, bob, _ := trio(t)
	expense := alice.Expense(group, "30.00", "111", "222")
	const add = `mutation($e: ID!, $b: String!, $k: String) { addComment(expenseId: $e, body: $b, idempotencyKey: $k) {
		id body createdAt deletedAt author { userId name } expense { id } } }`
	var first, again struct{ AddComment commentResult }
	bob.Must(&first, add, "e", expense, "b", "Thanks!", "k", "retry-1")
	before := activityTypes(t, alice, group)
	// A retry (a lost answer) returns the same comment and adds nothing.
	bob.Must(&again, add, "e", expense, "b", "Thanks!", "k", "retry-1")
	require.Equal(t, first, again)
	bob.Fails("CONFLICT", add, "e", expense, "b", "Thanks a lot!", "k", "retry-1")
	res := bob.Fails("BAD_USER_INPUT", add, "e", expense, "b", "Thanks!", "k", "with space")
	require.Equal(t, "idempotencyKey", res.Field())
	require.Equal(t, before, activityTypes(t, alice, group))
	nodes, _, _ := commentsOf(t, alice, expense, 10, nil)
	require.Equal(t, []commentResult{first.AddComment}, nodes)
}

// indexCaughtUp turns gsi2Lags off.
var indexCaughtUp atomic.Bool

// gsi2Lags answers every look-up of a comment in GSI2 with nothing, as
// DynamoDB's index does for a moment after a write.
func gsi2Lags(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
		return st.Initialize.Add(middleware.InitializeMiddlewareFunc("GSI2Lag",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				if q, ok := in.Parameters.(*dynamodb.QueryInput); ok && aws.ToString(q.IndexName) == "GSI2" && commentLookup(q) && !indexCaughtUp.Load() {
					return middleware.InitializeOutput{Result: &dynamodb.QueryOutput{}}, middleware.Metadata{}, nil
				}
				return next.HandleInitialize(ctx, in)
			}), middleware.Before)
	})
}

// TestCommentEventsCarryTheirCommentWhileTheIndexLags: a live subscriber
// gets COMMENT_ADDED and COMMENT_DELETED with their comment even while
// GSI2 has not caught up: the events locate it by its key.
func TestCommentEventsCarryTheirCommentWhileTheIndexLags(t *testing.T) {
	requireCommentEvents(t, apitest.NewWithClientOptions(t, []func(*dynamodb.Options){gsi2Lags}, apitest.Live()))
}

func commentLookup(q *dynamodb.QueryInput) bool {
	pk, _ := q.ExpressionAttributeValues[":pk"].(*types.AttributeValueMemberS)
	return pk != nil && strings.HasPrefix(pk.Value, "COMMENT#")
}
