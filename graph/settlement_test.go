package graph_test

import (
	"sync"
	"testing"

	"github.com/fracti/api/internal/apitest"
	"github.com/stretchr/testify/require"
)

const createSettlement = `mutation($in: CreateSettlementInput!) { createSettlement(input: $in) {
	id amount currency txHash status createdAt completedAt group { id } from { userId name } to { userId name } } }`

type settlementResult struct {
	ID, Amount, Currency, Status, CreatedAt string
	TxHash, CompletedAt                     *string
	Group                                   struct{ ID string }
	From, To                                struct{ UserID, Name string }
}

func TestCreateSettlement(t *testing.T) {
	_, group, alice, bob, _ := trio(t)
	var out struct{ CreateSettlement settlementResult }
	bob.Must(&out, createSettlement, "in", map[string]any{"groupId": group, "toUserId": "111", "amount": "25"})
	st := out.CreateSettlement
	require.Equal(t, "25.00", st.Amount)
	require.Equal(t, "USD", st.Currency)
	require.Equal(t, "PENDING", st.Status)
	require.Nil(t, st.CompletedAt)
	require.Nil(t, st.TxHash)
	require.Equal(t, "Bob", st.From.Name)
	require.Equal(t, "Alice", st.To.Name)

	// Already paid, on chain, in TON: the recipient records receiving it.
	alice.Must(&out, createSettlement, "in", map[string]any{
		"groupId": group, "fromUserId": "222", "amount": "0.5", "currency": "TON", "status": "COMPLETED",
		"txHash": "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90",
	})
	require.Equal(t, "0.500000000", out.CreateSettlement.Amount)
	require.Equal(t, "COMPLETED", out.CreateSettlement.Status)
	require.Equal(t, out.CreateSettlement.CreatedAt, *out.CreateSettlement.CompletedAt)

	var got struct{ Settlement settlementResult }
	alice.Must(&got, `query($id: ID!) { settlement(id: $id) {
		id amount currency txHash status createdAt completedAt group { id } from { userId name } to { userId name } } }`, "id", st.ID)
	require.Equal(t, st, got.Settlement)
}

func TestCreateSettlementValidation(t *testing.T) {
	_, group, _, bob, _ := trio(t)
	for _, tc := range []struct {
		name  string
		input map[string]any
		field string
	}{
		{"to yourself", map[string]any{"toUserId": "222"}, "input.toUserId"},
		{"to a non-member", map[string]any{"toUserId": "999"}, "input.toUserId"},
		{"zero", map[string]any{"amount": "0.00"}, "input.amount"},
		{"too many decimals", map[string]any{"amount": "1.001"}, "input.amount"},
		{"unknown currency", map[string]any{"currency": "ZZZ"}, "input.currency"},
		{"created failed", map[string]any{"status": "FAILED"}, "input.status"},
		{"bad hash", map[string]any{"txHash": "not a hash!"}, "input.txHash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := map[string]any{"groupId": group, "toUserId": "111", "amount": "5.00"}
			for k, v := range tc.input {
				in[k] = v
			}
			require.Equal(t, tc.field, bob.Fails("BAD_USER_INPUT", createSettlement, "in", in).Field())
		})
	}
}

const updateSettlement = `mutation($id: ID!, $in: UpdateSettlementInput!) { updateSettlement(id: $id, input: $in) { id status txHash completedAt } }`

type updated struct {
	UpdateSettlement struct {
		ID, Status          string
		TxHash, CompletedAt *string
	}
}

func TestUpdateSettlement(t *testing.T) {
	api, group, alice, bob, carol := trio(t)
	mallory := api.User("666", "Mallory")
	id := bob.Settle(group, "111", "10.00")

	mallory.Fails("NOT_FOUND", updateSettlement, "id", id, "in", map[string]any{"status": "COMPLETED"})
	carol.Fails("FORBIDDEN", updateSettlement, "id", id, "in", map[string]any{"status": "COMPLETED"})
	bob.Fails("BAD_USER_INPUT", updateSettlement, "id", id, "in", map[string]any{})

	var out updated
	bob.Must(&out, updateSettlement, "id", id, "in", map[string]any{"txHash": "abc123"})
	require.Equal(t, "PENDING", out.UpdateSettlement.Status)
	require.Equal(t, "abc123", *out.UpdateSettlement.TxHash)

	// The recipient confirms it.
	alice.Must(&out, updateSettlement, "id", id, "in", map[string]any{"status": "COMPLETED"})
	require.Equal(t, "COMPLETED", out.UpdateSettlement.Status)
	require.NotNil(t, out.UpdateSettlement.CompletedAt)

	for _, status := range []string{"COMPLETED", "FAILED", "PENDING"} {
		bob.Fails("CONFLICT", updateSettlement, "id", id, "in", map[string]any{"status": status})
	}
	failed := bob.Settle(group, "111", "1.00")
	bob.Must(&out, updateSettlement, "id", failed, "in", map[string]any{"status": "FAILED"})
	require.Nil(t, out.UpdateSettlement.CompletedAt)
	alice.Fails("CONFLICT", updateSettlement, "id", failed, "in", map[string]any{"status": "COMPLETED"})
}

func TestCompleteSettlementConcurrently(t *testing.T) {
	_, group, alice, bob, _ := trio(t)
	id := bob.Settle(group, "111", "10.00")
	// The recipient confirms it five times at once while the payer calls it
	// failed five times: exactly one request changes it.
	var wg sync.WaitGroup
	results := make(chan [2]string, 10)
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			who, status := alice, "COMPLETED"
			if i%2 == 0 {
				who, status = bob, "FAILED"
			}
			results <- [2]string{status, who.Do(updateSettlement, "id", id, "in", map[string]any{"status": status}).Code()}
		}()
	}
	wg.Wait()
	close(results)
	var won []string
	for r := range results {
		if r[1] == "" {
			won = append(won, r[0])
		} else {
			require.Equal(t, "CONFLICT", r[1])
		}
	}
	require.Len(t, won, 1, "exactly one request changes it")

	var out balancesResult
	alice.Must(&out, balancesQuery, "g", group)
	sent := map[string]string{}
	for _, b := range out.Group.Balances {
		sent[b.Member.UserID] = b.Sent
	}
	if won[0] == "COMPLETED" {
		require.Equal(t, "10.00", sent["222"], "the money moved exactly once")
	} else {
		require.Empty(t, out.Group.Balances, "a failed settlement moves nothing")
	}
}

func TestOnlyTheRecipientConfirmsAPayment(t *testing.T) {
	api, group, alice, bob, carol := trio(t)
	// Bob owes Alice 40.
	alice.Expense(group, "80.00", "111", "222")
	net := func() map[string]string {
		var out balancesResult
		alice.Must(&out, balancesQuery, "g", group)
		nets := map[string]string{}
		for _, b := range out.Group.Balances {
			nets[b.Member.UserID] = b.Net
		}
		return nets
	}
	before := net()
	require.Equal(t, "-40.00", before["222"])

	// The debtor cannot certify a payment of any amount, at creation or after.
	in := map[string]any{"groupId": group, "toUserId": "111", "amount": "999970.00", "status": "COMPLETED"}
	bob.Fails("FORBIDDEN", createSettlement, "in", in)
	id := bob.Settle(group, "111", "40.00")
	bob.Fails("FORBIDDEN", updateSettlement, "id", id, "in", map[string]any{"status": "COMPLETED"})
	// Nor record one between others.
	carol.Fails("FORBIDDEN", createSettlement, "in", map[string]any{"groupId": group, "fromUserId": "222", "toUserId": "111", "amount": "1.00"})
	require.Equal(t, before, net(), "nothing moved")

	// The payer marks it sent, with its hash; the recipient may not mark it sent.
	alice.Fails("FORBIDDEN", updateSettlement, "id", id, "in", map[string]any{"status": "SENT"})
	var out updated
	bob.Must(&out, updateSettlement, "id", id, "in", map[string]any{"status": "SENT", "txHash": "abc123"})
	require.Equal(t, "SENT", out.UpdateSettlement.Status)
	require.Equal(t, before, net(), "a sent payment counts for nothing until it is confirmed")

	// The recipient confirms it: now the money moves, and the hash is frozen.
	alice.Must(&out, updateSettlement, "id", id, "in", map[string]any{"status": "COMPLETED"})
	require.Equal(t, "COMPLETED", out.UpdateSettlement.Status)
	require.Equal(t, "0.00", net()["222"])
	for _, who := range []*apitest.User{alice, bob} {
		who.Fails("CONFLICT", updateSettlement, "id", id, "in", map[string]any{"txHash": "def456"})
	}

	// A payer may create it SENT; the recipient cannot; the recipient may record one received.
	var created struct{ CreateSettlement settlementResult }
	bob.Must(&created, createSettlement, "in", map[string]any{"groupId": group, "toUserId": "111", "amount": "1.00", "status": "SENT"})
	require.Equal(t, "SENT", created.CreateSettlement.Status)
	alice.Must(nil, updateSettlement, "id", created.CreateSettlement.ID, "in", map[string]any{"status": "FAILED"})
	alice.Fails("FORBIDDEN", createSettlement, "in", map[string]any{"groupId": group, "fromUserId": "222", "amount": "1.00", "status": "SENT"})
	alice.Must(&created, createSettlement, "in", map[string]any{"groupId": group, "fromUserId": "222", "amount": "2.00", "status": "COMPLETED"})
	require.Equal(t, "Bob", created.CreateSettlement.From.Name)
	require.Equal(t, "2.00", net()["222"])

	// A group that chose EITHER_PARTY lets the payer complete it.
	var g struct {
		CreateGroup struct{ ID, SettlementConfirmation string }
	}
	alice.Must(&g, `mutation { createGroup(input: {title: "Trusting", currency: "USD", settlementConfirmation: EITHER_PARTY}) { id settlementConfirmation } }`)
	require.Equal(t, "EITHER_PARTY", g.CreateGroup.SettlementConfirmation)
	dan := api.User("444", "Dan")
	dan.Join(g.CreateGroup.ID)
	dan.Must(nil, createSettlement, "in", map[string]any{"groupId": g.CreateGroup.ID, "toUserId": "111", "amount": "5.00", "status": "COMPLETED"})
	id = dan.Settle(g.CreateGroup.ID, "111", "1.00")
	dan.Must(&out, updateSettlement, "id", id, "in", map[string]any{"status": "COMPLETED"})
	require.Equal(t, "COMPLETED", out.UpdateSettlement.Status)
}

func TestSettlementIdempotencyKeyCoversTheStatus(t *testing.T) {
	_, group, alice, bob, _ := trio(t)
	in := map[string]any{"groupId": group, "toUserId": "111", "amount": "5.00", "idempotencyKey": "pay-1"}
	var first, retry struct{ CreateSettlement settlementResult }
	bob.Must(&first, createSettlement, "in", in)
	bob.Must(&retry, createSettlement, "in", in)
	require.Equal(t, first, retry)
	in["status"] = "SENT"
	bob.Fails("CONFLICT", createSettlement, "in", in)
	// Keys are the recorder's own: the recipient's same key is another request.
	alice.Must(nil, createSettlement, "in", map[string]any{"groupId": group, "fromUserId": "222", "amount": "5.00", "idempotencyKey": "pay-1"})
}
