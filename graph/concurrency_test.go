package graph_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConcurrentClientsLoseNothing: eight clients (two per member) add and
// delete expenses and create and complete settlements in one group at the
// same time. Afterwards the invariants hold, every expense that was created
// and not deleted is there exactly once, and exactly the settlements whose
// completion succeeded have moved money.
func TestConcurrentClientsLoseNothing(t *testing.T) {
	t.Parallel()
	api := apitest.New(t)
	ids := []string{"701", "702", "703", "704"}
	var clients []*apitest.User
	for _, id := range ids {
		for range 2 {
			clients = append(clients, api.User(id, "User "+id))
		}
	}
	group := clients[0].CreateGroup("Busy")
	for _, c := range clients[2:] {
		c.Join(group)
	}

	var mu sync.Mutex
	alive := map[string]bool{}        // expenses created and not deleted
	completed := map[string]bool{}    // settlements completed
	pending := map[string][2]string{} // settlement id → payer, recipient
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			others := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == c.ID })
			// do runs an operation that must succeed; failures are reported, not fatal, off the test goroutine.
			do := func(out any, query string, vars ...any) bool {
				res := c.Do(query, vars...)
				if !assert.Empty(t, res.Errors, query) {
					return false
				}
				return out == nil || assert.NoError(t, json.Unmarshal(res.Data, out))
			}
			var mine []string
			for range 12 {
				switch rng.IntN(4) {
				case 0, 1:
					var out struct{ CreateExpense struct{ ID string } }
					if !do(&out, createExpense, "in", map[string]any{"groupId": group, "amount": fmt.Sprintf("%d.%02d", 1+rng.IntN(90), rng.IntN(100)),
						"description": "concurrent", "splitType": "EQUAL",
						"splits": []any{map[string]any{"userId": others[rng.IntN(3)]}, map[string]any{"userId": c.ID}}}) {
						return
					}
					mine = append(mine, out.CreateExpense.ID)
					mu.Lock()
					alive[out.CreateExpense.ID] = true
					mu.Unlock()
				case 2:
					if len(mine) == 0 {
						continue
					}
					id := mine[0]
					mine = mine[1:]
					if !do(nil, `mutation($id: ID!) { deleteExpense(id: $id) }`, "id", id) {
						return
					}
					mu.Lock()
					delete(alive, id)
					mu.Unlock()
				case 3:
					var out struct{ CreateSettlement struct{ ID string } }
					to := others[rng.IntN(3)]
					if !do(&out, `mutation($g: ID!, $to: ID!) { createSettlement(input: {groupId: $g, toUserId: $to, amount: "3.00"}) { id } }`,
						"g", group, "to", to) {
						return
					}
					mu.Lock()
					pending[out.CreateSettlement.ID] = [2]string{c.ID, to}
					mu.Unlock()
				}
				// Move a pending settlement this user is party to, racing the
				// user's other client and the other party: the recipient
				// confirms it, the payer marks it sent.
				mu.Lock()
				var target, status string
				for id, parties := range pending {
					if parties[1] == c.ID {
						target, status = id, "COMPLETED"
						break
					}
					if parties[0] == c.ID {
						target, status = id, "SENT"
					}
				}
				mu.Unlock()
				if target != "" {
					res := c.Do(updateSettlement, "id", target, "in", map[string]any{"status": status})
					switch res.Code() {
					case "":
						if status == "COMPLETED" {
							mu.Lock()
							assert.False(t, completed[target], "completed twice")
							completed[target] = true
							delete(pending, target)
							mu.Unlock()
						}
					case "CONFLICT": // the other client, or the other party, was first
					default:
						t.Errorf("%s: %+v", status, res.Errors)
					}
				}
			}
		}()
	}
	wg.Wait()

	st := readGroup(t, clients[0], group)
	checkInvariants(t, st)
	got := map[string]bool{}
	for _, e := range st.Expenses {
		require.False(t, got[e.ID], "expense %s listed twice", e.ID)
		got[e.ID] = true
	}
	require.Equal(t, alive, got, "exactly the expenses created and not deleted")
	done := map[string]bool{}
	for _, s := range st.Settlements {
		if s.Status == "COMPLETED" {
			done[s.ID] = true
		}
	}
	require.Equal(t, completed, done, "exactly the completions that succeeded")
}
