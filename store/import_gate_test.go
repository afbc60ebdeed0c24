package store_test

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/exchange"
	"github.com/fracti/api/internal/dynamotest"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// groupSeen is everything a group's members can read of it: its lists,
// balances, spending, activity and sync log, and user 1's own lists.
type groupSeen struct {
	Expenses, Settlements, Members, Events []string
	Changes, MemberCount                   int
	Nets                                   map[string]map[string]string
	Spending                               []spendView
	UserExpenses, UserShares               []string
	UserSettlements, UserActivity          []string
}

func (f fixture) seen(groupID string) groupSeen {
	t := f.t
	t.Helper()
	var v groupSeen
	for _, e := range all(t, 100, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListExpenses(ctx, groupID, a) }) {
		v.Expenses = append(v.Expenses, e.ID)
	}
	for _, s := range all(t, 100, func(a store.PageArgs) (store.Page[store.Settlement], error) {
		return f.ListSettlements(ctx, groupID, a)
	}) {
		v.Settlements = append(v.Settlements, s.ID)
	}
	for _, m := range all(t, 100, func(a store.PageArgs) (store.Page[store.Member], error) { return f.ListMembers(ctx, groupID, a) }) {
		v.Members = append(v.Members, m.UserID)
	}
	for _, e := range all(t, 100, func(a store.PageArgs) (store.Page[store.Event], error) { return f.ListEvents(ctx, groupID, a) }) {
		v.Events = append(v.Events, string(e.Type))
	}
	changes, err := f.ListChanges(ctx, groupID, "", store.MaxPageSize)
	require.NoError(t, err)
	v.Changes = len(changes.Events)
	g, err := f.getGroup(groupID)
	require.NoError(t, err)
	v.MemberCount = g.MemberCount
	gbs, err := f.GetBalances(ctx, []string{groupID})
	require.NoError(t, err)
	v.Nets = map[string]map[string]string{}
	for _, b := range gbs[0].Books {
		v.Nets[b.Currency.Code()] = map[string]string{}
		for u, n := range b.Nets() {
			if !n.IsZero() {
				v.Nets[b.Currency.Code()][u] = n.String()
			}
		}
	}
	v.Spending = f.spending(groupID, "")
	for _, e := range all(t, 100, func(a store.PageArgs) (store.Page[store.Expense], error) { return f.ListUserExpenses(ctx, "1", a) }) {
		v.UserExpenses = append(v.UserExpenses, e.ID)
	}
	for _, s := range all(t, 100, func(a store.PageArgs) (store.Page[store.Share], error) { return f.ListUserShares(ctx, "1", a) }) {
		v.UserShares = append(v.UserShares, s.ExpenseID)
	}
	for _, s := range all(t, 100, func(a store.PageArgs) (store.Page[store.Settlement], error) {
		return f.ListUserSettlements(ctx, "1", a)
	}) {
		v.UserSettlements = append(v.UserSettlements, s.ID)
	}
	for _, a := range all(t, 100, func(a store.PageArgs) (store.Page[store.Activity], error) { return f.ListUserActivity(ctx, "1", a) }) {
		if a.Expense != nil {
			v.UserActivity = append(v.UserActivity, a.Expense.ID)
		} else {
			v.UserActivity = append(v.UserActivity, a.Settlement.ID)
		}
	}
	return v
}

// importedItems lists, straight from the table, the ids of a group's
// expenses, settlements and comments that carry an import's mark, by the
// prefix of their sort key.
func importedItems(t *testing.T, f fixture, groupID string) map[string][]string {
	t.Helper()
	raw := dynamotest.Client(t)
	out := map[string][]string{}
	var start map[string]types.AttributeValue
	for {
		page, err := raw.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(f.Table()),
			KeyConditionExpression:    aws.String("PK = :pk"),
			FilterExpression:          aws.String("attribute_exists(imp)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "GROUP#" + groupID}},
			ExclusiveStartKey:         start,
		})
		require.NoError(t, err)
		for _, it := range page.Items {
			sk := it["SK"].(*types.AttributeValueMemberS).Value
			kind, _, _ := strings.Cut(sk, "#")
			id, _ := it["id"].(*types.AttributeValueMemberS)
			if id != nil {
				out[kind] = append(out[kind], id.Value)
			} else {
				out[kind] = append(out[kind], sk)
			}
		}
		if start = page.LastEvaluatedKey; len(start) == 0 {
			return out
		}
	}
}

// TestImportIntoAGroupIsSeenWholeOrNotAtAll: an import into a group with
// an expense of its own fails at each of its transactions in turn. After
// each failure the members see exactly what they saw before (lists, items
// by id, balances, spending, activity, sync log, user lists), although
// the table holds the batches that landed; a member's write meanwhile
// counts as usual; running the import again shows all of it at once, with
// one GROUP_IMPORTED event, the file's effect on the balances, and no drift.
func TestImportIntoAGroupIsSeenWholeOrNotAtAll(t *testing.T) {
	var fail, calls atomic.Int64
	fault := dynamotest.NewFault(func(op string, _ int) error {
		if op == "TransactWriteItems" && fail.Load() > 0 && calls.Add(1) == fail.Load() {
			return errors.New("injected: connection reset")
		}
		return nil
	})
	f := newFixture(t, fault.Option())
	p := importPlan(120)
	for n := 1; ; n++ {
		g := f.group("1", "2")
		f.expense(g, "2", "30.00", "1", "2")
		before := f.seen(g.ID)
		in := importInput(p, fmt.Sprintf("whole-%d", n))
		in.GroupID, in.Members = g.ID, map[string]string{"Alice": "1"}

		calls.Store(0)
		fail.Store(int64(n))
		_, err := f.ImportGroup(ctx, in)
		fail.Store(0)
		if err == nil {
			require.Greater(t, n, 3, "the plan takes several batches")
			break
		}
		require.Equal(t, before, f.seen(g.ID), "transaction %d failed: nothing of the import is seen", n)
		hidden := importedItems(t, f, g.ID)
		if n > 1 {
			require.NotEmpty(t, hidden["TX"], "the batches before %d are in the table", n)
		}
		for _, id := range hidden["TX"] {
			_, err := f.getExpense(id)
			require.ErrorIs(t, err, store.ErrNotFound, "expense %s by id", id)
			comments, err := f.ListComments(ctx, g.ID, id, store.PageArgs{First: 10})
			require.NoError(t, err)
			require.Empty(t, comments.Items)
		}
		for _, id := range hidden["SETTLE"] {
			_, err := f.getSettlement(id)
			require.ErrorIs(t, err, store.ErrNotFound, "settlement %s by id", id)
		}
		for _, sk := range hidden["USER"] {
			_, err := f.getMember(g.ID, strings.TrimPrefix(sk, "USER#"))
			require.ErrorIs(t, err, store.ErrNotFound, "placeholder %s", sk)
		}
		requireNoDrift(t, f, g.ID)
		_, err = f.RebuildSpending(ctx, g.ID)
		require.NoError(t, err)

		f.expense(g, "1", "12.00", "1", "2") // a member's write meanwhile
		mid := f.seen(g.ID)
		res, err := f.ImportGroup(ctx, in)
		require.NoError(t, err)
		after := f.seen(g.ID)
		require.Len(t, after.Expenses, 122)
		require.Len(t, after.Settlements, len(p.Settlements))
		require.Len(t, after.Members, 4, "Bob and Carol join as placeholders")
		require.Equal(t, 4, after.MemberCount)
		require.Equal(t, append([]string{"group_imported"}, mid.Events...), after.Events, "one event for the whole import, newest first")
		require.Equal(t, mid.Changes+1, after.Changes)
		requireNoDrift(t, f, g.ID)
		requireImportEffect(t, mid, after, res, p.Balances)

		// Imported items are ordinary ones now: an edit and a deletion keep
		// the books and the summaries (the day's own item and the import's
		// part of it add up), and a rebuild finds nothing to change.
		e, err := f.getExpense(importedItems(t, f, g.ID)["TX"][0])
		require.NoError(t, err)
		next := e
		next.Description, next.SpentAt = "Moved", e.SpentAt.AddDate(0, 1, 0)
		_, err = f.UpdateExpense(ctx, e, next, g.Title, "1")
		require.NoError(t, err)
		e, err = f.getExpense(after.Expenses[len(after.Expenses)/2])
		require.NoError(t, err)
		_, err = f.DeleteExpense(ctx, e, "1")
		require.NoError(t, err)
		requireNoDrift(t, f, g.ID)
		rebuilt, err := f.RebuildSpending(ctx, g.ID)
		require.NoError(t, err)
		require.Zero(t, rebuilt)
	}
}

// requireImportEffect: from before to after, each person's net in each
// currency moved by what the file says their balance is.
func requireImportEffect(t *testing.T, before, after groupSeen, res store.ImportResult, want []exchange.Balance) {
	t.Helper()
	ids := map[string]string{}
	for _, m := range res.Members {
		ids[m.Name] = m.MemberID
	}
	net := func(v groupSeen, cur money.Currency, id string) money.Amount {
		s, ok := v.Nets[cur.Code()][id]
		if !ok {
			return money.Zero(cur)
		}
		a, err := money.ParseAmount(s, cur)
		require.NoError(t, err)
		return a
	}
	require.NotEmpty(t, want)
	for _, w := range want {
		cur := w.Amount.Currency()
		moved := net(after, cur, ids[w.Name]).Sub(net(before, cur, ids[w.Name]))
		require.Zero(t, w.Amount.Cmp(moved), "%s in %s moved %s, the file says %s", w.Name, cur.Code(), moved, w.Amount)
	}
}

// TestImportedItemsCostOneRecordReadPerInstance: another instance reading
// an imported group's expenses reads the import's record once, with its
// first page; after that, and for a group no import wrote to, a page is
// one Query. The instance that imported reads no record at all.
func TestImportedItemsCostOneRecordReadPerInstance(t *testing.T) {
	calls := &dynamotest.Counter{}
	f := newFixture(t, calls.Option())
	other := store.New(dynamotest.Client(t, calls.Option()), f.Table(), store.Options{CursorSecret: []byte("k")})
	g := f.group("1", "2")
	plain := f.group("1", "2")
	f.expense(plain, "1", "10.00", "1", "2")
	in := importInput(importPlan(30), "cost")
	in.GroupID = g.ID
	_, err := f.ImportGroup(ctx, in)
	require.NoError(t, err)

	page := func(s *store.Store, groupID string) map[string]int {
		calls.Reset()
		p, err := s.ListExpenses(ctx, groupID, store.PageArgs{First: 20})
		require.NoError(t, err)
		require.NotEmpty(t, p.Items)
		return calls.ByOperation()
	}
	require.Equal(t, map[string]int{"Query": 1}, page(f.Store, g.ID), "the importer knows its import is complete")
	require.Equal(t, map[string]int{"Query": 1, "BatchGetItem": 1}, page(other, g.ID), "the first page reads the record")
	require.Equal(t, map[string]int{"Query": 1}, page(other, g.ID), "and never again")
	require.Equal(t, map[string]int{"Query": 1}, page(other, plain.ID))
}
