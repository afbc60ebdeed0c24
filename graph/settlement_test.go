package graph_test

import (
	"maps"
	"sync"
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
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

// A payment to a placeholder (someone with no Telegram, who cannot sign in)
// completes when another member confirms it on the placeholder's behalf, and
// not when the payer does; the settlement and its event name the confirmer.
// Once someone has claimed the placeholder, they confirm as usual.
func TestAnotherMemberConfirmsAPaymentToAPlaceholder(t *testing.T) {
	api, group, alice, bob, carol := trio(t)
	mallory := api.User("666", "Mallory")
	grandma := placeholderOf(t, alice, group, "Grandma")
	// Grandma paid the 60.00 dinner for Alice and herself: Alice owes her 30.00.
	alice.Must(nil, `mutation($in: CreateExpenseInput!) { createExpense(input: $in) { id } }`, "in", map[string]any{
		"groupId": group, "amount": "60.00", "description": "Dinner", "payerId": grandma, "splitType": "EQUAL",
		"splits": []map[string]any{{"userId": "111"}, {"userId": grandma}}})
	nets := func() map[string]string {
		var out balancesResult
		alice.Must(&out, balancesQuery, "g", group)
		nonzero := netsOf(out.Group.Balances)
		maps.DeleteFunc(nonzero, func(_, net string) bool { return net == "0.00" })
		return nonzero
	}
	owing := map[string]string{"USD 111": "-30.00", "USD " + grandma: "30.00"}
	require.Equal(t, owing, nets())

	// Alice pays her back, and cannot certify it herself: not at creation, not after.
	res := alice.Fails("FORBIDDEN", createSettlement, "in", map[string]any{"groupId": group, "toUserId": grandma, "amount": "30.00", "status": "COMPLETED"})
	require.Contains(t, res.Errors[0].Message, "another member of the group confirms it")
	id := alice.Settle(group, grandma, "30.00")
	alice.Must(nil, updateSettlement, "id", id, "in", map[string]any{"status": "SENT"})
	res = alice.Fails("FORBIDDEN", updateSettlement, "id", id, "in", map[string]any{"status": "COMPLETED"})
	require.Contains(t, res.Errors[0].Message, "you cannot confirm your own payment to Grandma")
	require.Equal(t, owing, nets(), "nothing moved")

	// Another member may only confirm it: nothing else, and not from outside the group.
	bob.Fails("FORBIDDEN", updateSettlement, "id", id, "in", map[string]any{"status": "FAILED"})
	bob.Fails("FORBIDDEN", updateSettlement, "id", id, "in", map[string]any{"status": "COMPLETED", "txHash": "abc123"})
	bob.Fails("FORBIDDEN", updateSettlement, "id", id, "in", map[string]any{"txHash": "abc123"})
	mallory.Fails("NOT_FOUND", updateSettlement, "id", id, "in", map[string]any{"status": "COMPLETED"})
	require.Equal(t, owing, nets())

	// Bob confirms it on Grandma's behalf: the money moves, once.
	const confirm = `mutation($id: ID!) { updateSettlement(id: $id, input: {status: COMPLETED}) {
		status completedAt confirmedBy { userId name } } }`
	var out struct {
		UpdateSettlement struct {
			Status      string
			CompletedAt *string
			ConfirmedBy *struct{ UserID, Name string }
		}
	}
	bob.Must(&out, confirm, "id", id)
	require.Equal(t, "COMPLETED", out.UpdateSettlement.Status)
	require.NotNil(t, out.UpdateSettlement.CompletedAt)
	require.Equal(t, &struct{ UserID, Name string }{"222", "Bob"}, out.UpdateSettlement.ConfirmedBy)
	require.Empty(t, nets(), "Alice and Grandma are even")
	carol.Fails("CONFLICT", confirm, "id", id)

	var events struct {
		Group struct {
			Activity struct {
				Nodes []struct {
					Type    string
					Actor   struct{ UserID string }
					Subject struct{ ID string }
				}
			}
		}
	}
	alice.Must(&events, `query($g: ID!) { group(id: $g) { activity(first: 1) { nodes { type actor { userId }
		subject { ... on Settlement { id } } } } } }`, "g", group)
	ev := events.Group.Activity.Nodes[0]
	require.Equal(t, "SETTLEMENT_COMPLETED", ev.Type)
	require.Equal(t, "222", ev.Actor.UserID, "the event's actor is the member who confirmed")
	require.Equal(t, id, ev.Subject.ID)

	// Dan joins and claims Grandma: a payment to him is his to confirm.
	next := alice.Settle(group, grandma, "5.00")
	dan := api.User("444", "Dan")
	dan.Join(group)
	dan.Must(nil, `mutation($g: ID!, $p: ID!) { claimPlaceholder(groupId: $g, placeholderId: $p) { id } }`, "g", group, "p", grandma)
	res = bob.Fails("FORBIDDEN", confirm, "id", next)
	require.Contains(t, res.Errors[0].Message, "only the two members")
	alice.Fails("FORBIDDEN", confirm, "id", next)
	dan.Must(&out, confirm, "id", next)
	require.Equal(t, "444", out.UpdateSettlement.ConfirmedBy.UserID)

	// A payment confirmed by its recipient names them; a pending one nobody.
	var st struct {
		Settlement struct{ ConfirmedBy *struct{ UserID string } }
	}
	pending := bob.Settle(group, "111", "1.00")
	alice.Must(&st, `query($id: ID!) { settlement(id: $id) { confirmedBy { userId } } }`, "id", pending)
	require.Nil(t, st.Settlement.ConfirmedBy)
	alice.Must(nil, confirm, "id", pending)
	alice.Must(&st, `query($id: ID!) { settlement(id: $id) { confirmedBy { userId } } }`, "id", pending)
	require.Equal(t, "111", st.Settlement.ConfirmedBy.UserID)
	checkKept(t, api, group)
}
