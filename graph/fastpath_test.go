package graph_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/fracti/api/graph"
	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/internal/testkit/screens"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// The fast path (graph/fastpath.go) must answer exactly as gqlgen's generic
// executor: the same bytes, the same errors. These tests run the same
// operations against two servers over the same table, one with the fast
// path and one without (FAST_MARSHAL=false), and compare the bodies.

// fastGroup is a group with what the fast path must get right: members with
// and without their optional fields, names that need escaping, a
// placeholder, a member who left, expenses in several currencies with
// several payers and every split type, a settlement.
func fastGroup(t *testing.T, api *apitest.API) (*apitest.User, string) {
	ctx := context.Background()
	alice := api.User("111", "Alice")
	group := alice.CreateGroup("Fast \"path\" \\ trip")
	bob := api.TelegramUser(222, "Bob", "Bé", "bob_b")
	bob.Join(group)
	for _, m := range []store.NewMember{
		{UserID: "333", Name: "Zoë \"Z\" \\ <b>&amp;</b>\n\ttab \u0001 \u2028", Username: "zoe", AvatarURL: "/avatars/333.jpg"},
		{UserID: "444", Name: "Dan", Username: ""},
		{UserID: "555", Name: "Eve (leaves)"},
	} {
		_, _, err := api.Store.JoinGroup(ctx, group, m)
		require.NoError(t, err)
	}
	_, err := api.Store.UpdateWallet(ctx, group, "444", "EQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG")
	require.NoError(t, err)
	_, err = api.Store.LeaveGroup(ctx, group, "555", "")
	require.NoError(t, err)
	var ph struct{ AddPlaceholderMember struct{ UserID string } }
	alice.Must(&ph, `mutation($g: ID!) { addPlaceholderMember(groupId: $g, name: "Grandma") { userId } }`, "g", group)
	p := ph.AddPlaceholderMember.UserID

	expense := func(input string, vars ...any) {
		alice.Must(nil, `mutation($g: ID!) { createExpense(input: {groupId: $g, `+input+`}) { id } }`, append([]any{"g", group}, vars...)...)
	}
	expense(`amount: "30.00", description: "Dinner", splitType: EQUAL, splits: [{userId: "111"}, {userId: "222"}, {userId: "333"}]`)
	expense(`amount: "100.00", currency: "EUR", description: "Hotel", category: "lodging", splitType: EXACT,
		payers: [{userId: "111", amount: "60.00"}, {userId: "222", amount: "40.00"}],
		splits: [{userId: "111", amount: "50.00"}, {userId: "333", amount: "25.00"}, {userId: "` + p + `", amount: "25.00"}]`)
	expense(`amount: "1500", currency: "JPY", description: "Ramen", payerId: "333", splitType: PERCENTAGE,
		splits: [{userId: "111", percentage: "33.3"}, {userId: "333", percentage: "66.7"}]`)
	expense(`amount: "2.500000000", currency: "TON", description: "Gift", payerId: "222", splitType: SHARES,
		spentAt: "2026-01-02T03:04:05.678Z", splits: [{userId: "444", shares: "2"}, {userId: "222", shares: "1.5"}, {userId: "111", shares: "1"}]`)
	expense(`amount: "7.77", description: "Taxi \"night\"", payers: [{userId: "444", amount: "3.00"}, {userId: "333", amount: "4.77"}],
		splitType: EQUAL, splits: [{userId: "444"}, {userId: "222"}]`)
	alice.Settle(group, "222", "5.00")
	return alice, group
}

// selGen writes random selection sets over the types the fast path writes.
type selGen struct {
	r         *rand.Rand
	fragments []string
	aliases   int
	// directives counts @include and @skip: an operation may have 30.
	directives int
	vars       map[string]bool
}

// genType is a type's fields: scalars, objects (field → type) and fields
// the fast path leaves to the generic path (asked for now and then).
type genType struct {
	node        bool
	scalars     []string
	objects     map[string]string
	unsupported []string
}

var genTypes = map[string]genType{
	"Member": {node: true, scalars: []string{"id", "userId", "name", "username", "wallet", "avatarUrl", "joinedAt", "leftAt", "placeholder"},
		unsupported: []string{"claimedBy { id }", "group { id }", "balances { net }"}},
	"Expense": {node: true, scalars: []string{"id", "amount", "currency", "description", "category", "splitType", "createdAt", "spentAt", "spentOn", "version", "deletedAt"},
		objects:     map[string]string{"payer": "Member", "payers": "Payment", "splits": "Split"},
		unsupported: []string{"restorableUntil", "originalAmount", "rate", "group { title }"}},
	"Payment":           {scalars: []string{"id", "userId", "amount"}, objects: map[string]string{"member": "Member"}},
	"Split":             {scalars: []string{"id", "userId", "amount", "percentage", "shares"}, objects: map[string]string{"member": "Member"}},
	"Balance":           {scalars: []string{"id", "currency", "paid", "owed", "sent", "received", "net"}, objects: map[string]string{"member": "Member"}},
	"Debt":              {scalars: []string{"id", "amount", "currency"}, objects: map[string]string{"from": "Member", "to": "Member"}, unsupported: []string{"parts { amount }"}},
	"PageInfo":          {scalars: []string{"hasNextPage", "hasPreviousPage", "startCursor", "endCursor"}},
	"MemberConnection":  {objects: map[string]string{"nodes": "Member", "edges": "MemberEdge", "pageInfo": "PageInfo"}},
	"MemberEdge":        {scalars: []string{"cursor"}, objects: map[string]string{"node": "Member"}},
	"ExpenseConnection": {objects: map[string]string{"nodes": "Expense", "edges": "ExpenseEdge", "pageInfo": "PageInfo"}},
	"ExpenseEdge":       {scalars: []string{"cursor"}, objects: map[string]string{"node": "Expense"}},
}

// groupLists are the Group fields the fast path writes, each response key
// with its own arguments (one key, one set of arguments, as GraphQL requires).
var groupLists = []struct{ key, field, args, typ, needs string }{
	{"members", "members", "(first: 50)", "MemberConnection", ""},
	{"m2", "members", "(first: 2)", "MemberConnection", ""},
	{"mAfter", "members", "(first: 3, after: $mc)", "MemberConnection", "mc"},
	{"expenses", "expenses", "(first: 20)", "ExpenseConnection", ""},
	{"e2", "expenses", "(first: 2)", "ExpenseConnection", ""},
	{"eAfter", "expenses", "(first: 2, after: $ec)", "ExpenseConnection", "ec"},
	{"eFound", "expenses", `(first: 2, filter: {minAmount: "1"})`, "ExpenseConnection", ""},
	{"eDays", "expenses", `(first: 3, filter: {from: "2000-01-01"})`, "ExpenseConnection", ""},
	{"balances", "balances", "", "Balance", ""},
	{"debts", "debts", "", "Debt", ""},
	{"pairwise", "debts", "(simplify: false)", "Debt", ""},
	{"dv", "debts", "(simplify: $t)", "Debt", "t"},
	{"dIn", "debts", `(in: "XTS")`, "Debt", ""}, // an error: no such currency
}

func (g *selGen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

// directive is now and then an @include or @skip, with a variable or a literal.
func (g *selGen) directive() string {
	if g.directives >= 25 || g.r.IntN(5) != 0 {
		return ""
	}
	g.directives++
	name := g.pick([]string{"include", "skip"})
	arg := g.pick([]string{"true", "false", "$t", "$f"})
	if strings.HasPrefix(arg, "$") {
		g.vars[arg[1:]] = true
	}
	return fmt.Sprintf(" @%s(if: %s)", name, arg)
}

// alias is now and then an alias for a field, one per field name (so that
// the same response key always names the same field).
func (g *selGen) alias(field string) string {
	if g.aliases >= 15 || g.r.IntN(5) != 0 {
		return ""
	}
	g.aliases++
	return field + g.pick([]string{"A", "B"}) + ": "
}

// selection is a random selection set for typ, depth levels of objects deep at most.
func (g *selGen) selection(typ string, depth int) string {
	t := genTypes[typ]
	var b strings.Builder
	n := 1 + g.r.IntN(4)
	for range n {
		switch k := g.r.IntN(20); {
		case k < 2: // __typename
			b.WriteString(g.alias("__typename") + "__typename" + g.directive() + " ")
		case k < 4 && depth > 0: // an inline fragment
			cond := g.pick([]string{"", " on " + typ})
			if t.node && g.r.IntN(3) == 0 {
				b.WriteString("... on Node" + g.directive() + " { " + g.alias("id") + "id } ")
				continue
			}
			b.WriteString("..." + cond + g.directive() + " { " + g.selection(typ, depth-1) + "} ")
		case k < 5 && depth > 0: // a named fragment
			i := len(g.fragments)
			name := fmt.Sprintf("F%d", i)
			g.fragments = append(g.fragments, "") // reserve the name: fragments nest
			body := g.selection(typ, depth-1)
			g.fragments[i] = fmt.Sprintf("fragment %s on %s { %s}", name, typ, body)
			b.WriteString("..." + name + g.directive() + " ")
		case k < 6 && len(t.unsupported) > 0 && g.r.IntN(4) == 0:
			b.WriteString(g.pick(t.unsupported) + " ")
		case k < 13 && len(t.objects) > 0 && depth > 0:
			names := make([]string, 0, len(t.objects))
			for f := range t.objects {
				names = append(names, f)
			}
			slicesSort(names)
			f := g.pick(names)
			b.WriteString(g.alias(f) + f + g.directive() + " { " + g.selection(t.objects[f], depth-1) + "} ")
		case len(t.scalars) > 0:
			f := g.pick(t.scalars)
			b.WriteString(g.alias(f) + f + g.directive() + " ")
		default:
			b.WriteString("__typename ")
		}
	}
	return b.String()
}

// operation is a random query of a group's lists, and the variables it uses.
func (g *selGen) operation() (string, []string) {
	g.fragments, g.aliases, g.directives, g.vars = nil, 0, 0, map[string]bool{}
	var b strings.Builder
	for range 1 + g.r.IntN(3) {
		l := groupLists[g.r.IntN(len(groupLists))]
		if l.needs != "" {
			g.vars[l.needs] = true
		}
		key := ""
		if l.key != l.field {
			key = l.key + ": "
		}
		b.WriteString(key + l.field + l.args + g.directive() + " { " + g.selection(l.typ, 4) + "} ")
	}
	var decl []string
	var names []string
	for _, v := range []struct{ name, typ string }{{"t", "Boolean!"}, {"f", "Boolean!"}, {"mc", "String"}, {"ec", "String"}} {
		if g.vars[v.name] {
			decl = append(decl, "$"+v.name+": "+v.typ)
			names = append(names, v.name)
		}
	}
	op := "query Q($g: ID!" + strings.Join(append([]string{""}, decl...), ", ") + ") { group(id: $g) { id " + b.String() + "} }"
	for _, f := range g.fragments {
		op += "\n" + f
	}
	return op, names
}

func slicesSort(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// requestIDs are the one part of an error that differs between two requests.
var requestIDs = regexp.MustCompile(`"requestId":"[0-9a-f]+"`)

// refused is an operation that did not run: the generator wrote it wrong.
var refused = regexp.MustCompile(`_FAILED"|LIMIT_EXCEEDED"`)

// TestFastPathAnswersAsTheGenericPath compares thousands of random selection
// sets over a group's lists, byte for byte.
func TestFastPathAnswersAsTheGenericPath(t *testing.T) {
	fast := apitest.New(t)
	generic := fast.Twin(apitest.GenericMarshal())
	alice, group := fastGroup(t, fast)
	var page struct {
		Group struct {
			Members, Expenses struct{ PageInfo struct{ EndCursor string } }
		}
	}
	alice.Must(&page, `query($g: ID!) { group(id: $g) { members(first: 2) { pageInfo { endCursor } } expenses(first: 1) { pageInfo { endCursor } } } }`, "g", group)
	values := map[string]any{"t": true, "f": false, "mc": page.Group.Members.PageInfo.EndCursor, "ec": page.Group.Expenses.PageInfo.EndCursor}

	n := 2000
	if testing.Short() {
		n = 300
	}
	g := &selGen{r: rand.New(rand.NewPCG(27, 5))}
	written0, fellBack0 := graph.FastPathCounts()
	ran := 0
	for i := range n {
		op, names := g.operation()
		vars := map[string]any{"g": group}
		for _, v := range names {
			vars[v] = values[v]
		}
		want := requestIDs.ReplaceAll(alice.On(generic).Raw(op, vars), []byte(`"requestId":"-"`))
		got := requestIDs.ReplaceAll(alice.Raw(op, vars), []byte(`"requestId":"-"`))
		require.Equal(t, string(want), string(got), "operation %d:\n%s\nvariables: %v", i, op, vars)
		if !refused.Match(want) {
			ran++
		}
	}
	written, fellBack := graph.FastPathCounts()
	written, fellBack = written-written0, fellBack-fellBack0
	t.Logf("%d operations (%d ran): %d list fields written by the fast path, %d by the generic path", n, ran, written, fellBack)
	require.Greater(t, ran, n*98/100, "the operations are valid")
	require.Greater(t, written, 2*fellBack, "most lists take the fast path")
	require.Positive(t, fellBack, "the fallback is exercised")
}

// TestFastPathSwitch: the group screen's lists take the fast path by
// default, and none does with FAST_MARSHAL=false; the answer is the same.
func TestFastPathSwitch(t *testing.T) {
	fast := apitest.New(t)
	generic := fast.Twin(apitest.GenericMarshal())
	alice, group := fastGroup(t, fast)
	vars := map[string]any{"g": group}

	w0, f0 := graph.FastPathCounts()
	want := alice.On(generic).Raw(screens.Group, vars)
	w1, f1 := graph.FastPathCounts()
	require.Equal(t, [2]int64{w0, f0}, [2]int64{w1, f1}, "switched off, nothing takes the fast path")

	got := alice.Raw(screens.Group, vars)
	w2, f2 := graph.FastPathCounts()
	require.Equal(t, int64(4), w2-w1, "members, expenses, balances and debts are written fast")
	require.Equal(t, f1, f2)
	require.Equal(t, string(want), string(got))
	require.NotContains(t, string(got), `"errors"`)
}
