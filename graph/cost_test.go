package graph_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// Reading balances never reads expenses: with 10 expenses and with 2,000,
// the same query reads the same number of items in the same calls. (Writes
// to one group take turns on its activity chain, so 2,000 expenses take
// about half a minute on DynamoDB Local; the cost does not depend on the
// count, which 200 times as many shows as well as 1,000 times would.)
func TestBalancesAndDebtsCostTheSameAtTenAndTwoThousandExpenses(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 2,000 expenses")
	}
	t.Parallel() // half a minute of writes: let the other tests run meanwhile
	api, group, alice, _, _ := trio(t)
	usd := money.MustCurrency("USD")
	add := func(n int) {
		var wg sync.WaitGroup
		work := make(chan int)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range work {
					a := money.NewAmount(int64(100+i%997), usd)
					parts, _ := money.SplitEqual(a, 2)
					payer, other := []string{"111", "222", "333"}[i%3], []string{"222", "333", "111"}[i%3]
					_, err := api.Store.CreateExpense(context.Background(), "Trip", store.Expense{
						GroupID: group, PayerID: payer, PayerName: payer, Amount: a, Description: fmt.Sprint("expense ", i),
						SplitType: store.SplitEqual, CreatedBy: payer,
						Splits: []store.Split{{UserID: payer, UserName: payer, Amount: parts[0]}, {UserID: other, UserName: other, Amount: parts[1]}},
					}, "")
					if err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		for i := range n {
			work <- i
		}
		close(work)
		wg.Wait()
	}
	const query = `query($g: ID!) { group(id: $g) {
		balances { currency paid owed net member { name } }
		debts { amount from { name } to { name } }
		pairwise: debts(simplify: false) { amount from { name } to { name } }
		member(userId: "222") { balances { net } } } }`
	cost := func() (int, map[string]int) {
		api.Calls.Reset()
		alice.Must(nil, query, "g", group)
		return api.Calls.ItemsRead(), api.Calls.ByOperation()
	}

	add(10)
	items10, calls10 := cost()
	add(1_990)
	var count struct {
		Group struct{ Expenses struct{ PageInfo pageInfo } }
	}
	alice.Must(&count, `query($g: ID!) { group(id: $g) { expenses(first: 100) { pageInfo { hasNextPage } } } }`, "g", group)
	require.True(t, count.Group.Expenses.PageInfo.HasNextPage)
	items10k, calls10k := cost()

	require.Equal(t, items10, items10k, "items read")
	require.Equal(t, calls10, calls10k, "calls")
	t.Logf("balances and debts: %d items in %v at 10 and at 2,000 expenses", items10, calls10)
}
