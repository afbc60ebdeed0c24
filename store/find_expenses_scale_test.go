package store_test

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/freetext"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// What a filtered page costs in a group of 10,000 expenses (the figures of
// docs/performance.md). The expenses are written straight to the table,
// each with its day item, in the shape CreateExpense writes them: a
// thousand days of ten expenses each, recorded in another order than
// spent, in ten categories (ten expenses in a row share one); one of them
// says "unicorn". The figures are exact: the data and the reads are
// deterministic.
func TestFindExpensesAtTenThousand(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 10,000 expenses")
	}
	t.Parallel()
	calls := &dynamotest.Counter{}
	f := newFixture(t, calls.Option())
	g := f.group("1", "2")
	const n = 10_000
	first := time.Date(2021, 1, 1, 12, 0, 0, 0, time.UTC)
	items := make([]map[string]types.AttributeValue, 0, 2*n)
	for i := range n {
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		created := first.Add(time.Duration(i) * time.Hour).Format("2006-01-02T15:04:05.000Z")
		spentOn := first.AddDate(0, 0, i*7919%1000).Format(store.DayLayout)
		desc := "expense " + strconv.Itoa(i)
		if i == 17 {
			desc = "unicorn"
		}
		split := func(user string) types.AttributeValue {
			return &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"userId": sAttr(user), "userName": sAttr("User " + user), "amount": nAttr("5")}}
		}
		pk := "GROUP#" + g.ID
		items = append(items, map[string]types.AttributeValue{
			"PK": sAttr(pk), "SK": sAttr("TX#" + created + "#" + id), "GSI2PK": sAttr("EXPENSE#" + id), "GSI2SK": sAttr(g.ID),
			"GSI3PK": sAttr("USER#1"), "GSI3SK": sAttr("TX#" + created + "#" + id),
			"id": sAttr(id), "groupId": sAttr(g.ID), "payerId": sAttr("1"), "payerName": sAttr("User 1"), "amount": nAttr("10"), "currency": sAttr("USD"),
			"description": sAttr(desc), "category": sAttr("c" + strconv.Itoa(i/10%10)), "splitType": sAttr("equal"), "createdAt": sAttr(created),
			"spentAt": sAttr(spentOn + "T12:00:00.000Z"), "spentOn": sAttr(spentOn), "version": nAttr("1"), "formatVersion": nAttr("2"),
			"splits": &types.AttributeValueMemberL{Value: []types.AttributeValue{split("1"), split("2")}},
		}, map[string]types.AttributeValue{"PK": sAttr(pk), "SK": sAttr("DAY#" + spentOn + "#" + created + "#" + id)})
	}
	db := dynamotestClient(t)
	var wg sync.WaitGroup
	work := make(chan []map[string]types.AttributeValue)
	for range 8 {
		wg.Go(func() {
			for batch := range work {
				reqs := make([]types.WriteRequest, len(batch))
				for i, it := range batch {
					reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
				}
				for len(reqs) > 0 {
					out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{f.Table(): reqs}})
					if err != nil {
						t.Error(err)
						return
					}
					reqs = out.UnprocessedItems[f.Table()]
				}
			}
		})
	}
	for i := 0; i < len(items); i += 25 {
		work <- items[i:min(i+25, len(items))]
	}
	close(work)
	wg.Wait()

	measure := func(name string, filter store.ExpenseFilter, scope store.ExpenseScope, wantItems int) map[string]int {
		t.Helper()
		calls.Reset()
		p, err := f.FindExpenses(ctx, scope, filter, store.PageArgs{First: 20})
		require.NoError(t, err)
		ops := calls.ByOperation()
		t.Logf("%-46s %2d found, %5d items read in %v", name, len(p.Items), calls.ItemsRead(), ops)
		require.Equal(t, wantItems, calls.ItemsRead(), name)
		return ops
	}
	kept := g.Scope()
	// A month holds 300 expenses: the page reads 21 day items and 20 expenses.
	month := store.ExpenseFilter{From: "2022-03-01", To: "2022-03-30"}
	require.Equal(t, map[string]int{"Query": 1, "BatchGetItem": 1}, measure("a month", month, kept, 21+20))
	food := month
	food.Category = ptr("c3")
	measure("a month, one category in ten", food, kept, 565)
	measure("one category in ten, no days", store.ExpenseFilter{Category: ptr("c3")}, kept, 483)
	measure("a word one expense has", store.ExpenseFilter{Search: freetext.Words("unicorn")}, kept, n)
	measure("a word none has", store.ExpenseFilter{Search: freetext.Words("dragon")}, kept, n)
	measure("a month, before migrate (read whole)", month, store.ExpenseScope{GroupID: g.ID}, n)
}
