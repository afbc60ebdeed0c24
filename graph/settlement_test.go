package graph_test

import (
	"sync"
	"testing"

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

	// Already paid, on chain, in TON.
	bob.Must(&out, createSettlement, "in", map[string]any{
		"groupId": group, "toUserId": "111", "amount": "0.5", "currency": "TON", "status": "COMPLETED",
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
	var wg sync.WaitGroup
	codes := make(chan string, 10)
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			who := alice
			if i%2 == 0 {
				who = bob
			}
			codes <- who.Do(updateSettlement, "id", id, "in", map[string]any{"status": "COMPLETED"}).Code()
		}()
	}
	wg.Wait()
	close(codes)
	ok := 0
	for c := range codes {
		if c == "" {
			ok++
		} else {
			require.Equal(t, "CONFLICT", c)
		}
	}
	require.Equal(t, 1, ok, "exactly one request completes it")
}
