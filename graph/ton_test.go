package graph_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fracti/api/internal/testkit/apitest"
	"github.com/fracti/api/ton"
	"github.com/fracti/api/tonapi"
	"github.com/fracti/api/tonapi/tontest"
	"github.com/stretchr/testify/require"
)

const (
	aliceWallet = "UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI"
	bobWallet   = "EQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG"
)

// tonGroup is a TON group of Alice (111) and Bob (222) with wallets, and
// Carol (333) without one, on an API that checks payments on chain.
func tonGroup(t *testing.T) (api *apitest.API, chain *tontest.Chain, group string, alice, bob, carol *apitest.User) {
	chain = tontest.New(t)
	api = apitest.New(t, apitest.TON(chain.URL(), nil))
	alice, bob, carol = api.User("111", "Alice"), api.User("222", "Bob"), api.User("333", "Carol")
	var out struct{ CreateGroup struct{ ID string } }
	alice.Must(&out, `mutation { createGroup(input: {title: "Trip", currency: "TON"}) { id } }`)
	group = out.CreateGroup.ID
	bob.Join(group)
	carol.Join(group)
	alice.Must(nil, `mutation($g: ID!, $w: String!) { updateWallet(groupId: $g, wallet: $w) { id } }`, "g", group, "w", aliceWallet)
	bob.Must(nil, `mutation($g: ID!, $w: String!) { updateWallet(groupId: $g, wallet: $w) { id } }`, "g", group, "w", bobWallet)
	return api, chain, group, alice, bob, carol
}

type tonSettlement struct {
	ID, Status, PaymentLink string
	ConfirmedBy             *struct{ UserID string }
	Verification            *struct {
		State     string
		CheckedAt *string
		Reason    *string
		Attempts  int
	}
}

const tonSettlementFields = `id status paymentLink confirmedBy { userId } verification { state checkedAt reason attempts }`

func settleIn(t *testing.T, u *apitest.User, group, to, amount, currency string) tonSettlement {
	var out struct{ CreateSettlement tonSettlement }
	u.Must(&out, `mutation($g: ID!, $to: ID!, $a: Decimal!, $c: String) {
		createSettlement(input: {groupId: $g, toUserId: $to, amount: $a, currency: $c}) { `+tonSettlementFields+` } }`,
		"g", group, "to", to, "a", amount, "c", currency)
	return out.CreateSettlement
}

func submitTx(u *apitest.User, id string, hash string) apitest.Result {
	return u.Do(`mutation($id: ID!, $h: String!) { submitSettlementTransaction(id: $id, txHash: $h) { `+tonSettlementFields+` } }`, "id", id, "h", hash)
}

func mustAccount(t *testing.T, s string) ton.Account {
	a, err := ton.ParseAccount(s)
	require.NoError(t, err)
	return a
}

func TestPaymentLink(t *testing.T) {
	_, _, group, alice, bob, _ := tonGroup(t)
	st := settleIn(t, alice, group, "222", "1.5", "TON")
	require.Equal(t, "ton://transfer/"+bobWallet+"?amount=1500000000&text=fracti-"+strings.ReplaceAll(st.ID, "-", ""), st.PaymentLink)
	require.Nil(t, st.Verification, "null until a transaction is submitted")

	var out struct{ Settlement struct{ PaymentLink *string } }
	noWallet := settleIn(t, alice, group, "333", "1", "TON")
	alice.Must(&out, `query($id: ID!) { settlement(id: $id) { paymentLink } }`, "id", noWallet.ID)
	require.Nil(t, out.Settlement.PaymentLink, "the recipient has no wallet")
	usd := settleIn(t, alice, group, "222", "1.00", "USD")
	alice.Must(&out, `query($id: ID!) { settlement(id: $id) { paymentLink } }`, "id", usd.ID)
	require.Nil(t, out.Settlement.PaymentLink, "not a TON settlement")

	// In the group's list too, for each settlement.
	var list struct {
		Group struct {
			Settlements struct {
				Nodes []struct {
					ID           string
					PaymentLink  *string
					Verification *struct{ State string }
				}
			}
		}
	}
	alice.Must(&list, `query($g: ID!) { group(id: $g) { settlements { nodes { id paymentLink verification { state } } } } }`, "g", group)
	links := map[string]*string{}
	for _, n := range list.Group.Settlements.Nodes {
		links[n.ID] = n.PaymentLink
		require.Nil(t, n.Verification)
	}
	require.Len(t, links, 3)
	require.Equal(t, st.PaymentLink, *links[st.ID])
	require.Nil(t, links[usd.ID])

	// A wallet set in raw form is linked in the user-friendly form wallets read.
	bob.Must(nil, `mutation($g: ID!, $w: String!) { updateWallet(groupId: $g, wallet: $w) { id } }`, "g", group, "w", mustAccount(t, bobWallet).String())
	alice.Must(&out, `query($id: ID!) { settlement(id: $id) { paymentLink } }`, "id", st.ID)
	require.Equal(t, "ton://transfer/"+mustAccount(t, bobWallet).Friendly(false)+"?amount=1500000000&text=fracti-"+strings.ReplaceAll(st.ID, "-", ""), *out.Settlement.PaymentLink)
}

func TestSubmitSettlementTransaction(t *testing.T) {
	for _, tc := range []struct {
		name   string
		side   string // whose transaction is submitted
		change func(*tontest.Payment)
		down   bool
		status string
		state  string
		reason string
	}{
		{name: "the payer's transaction completes it", side: "payer", status: "COMPLETED", state: "VERIFIED"},
		{name: "the recipient's transaction completes it", side: "recipient", status: "COMPLETED", state: "VERIFIED"},
		{name: "a smaller amount fails", side: "payer", change: func(p *tontest.Payment) { p.Nanotons = "1499999999" },
			status: "PENDING", state: "FAILED", reason: "the transfer sent 1499999999 nanotons, less than the 1500000000 the settlement asks"},
		{name: "a bounced transfer fails", side: "recipient", change: func(p *tontest.Payment) { p.Bounced = true },
			status: "PENDING", state: "FAILED", reason: "the recipient's wallet refused the transfer: it bounced and the coins went back to the payer"},
		{name: "an unreachable API leaves it pending", side: "payer", down: true,
			status: "PENDING", state: "PENDING", reason: "the TON API did not answer; checking again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, chain, group, alice, bob, _ := tonGroup(t)
			st := settleIn(t, alice, group, "222", "1.5", "TON")
			p := tontest.Payment{From: mustAccount(t, aliceWallet), To: mustAccount(t, bobWallet), Nanotons: "1500000000",
				Comment: tontest.Ptr("fracti-" + strings.ReplaceAll(st.ID, "-", ""))}
			if tc.change != nil {
				tc.change(&p)
			}
			payerTx, recipientTx := chain.Pay(p)
			hash := payerTx.Hex()
			if tc.side == "recipient" {
				hash = base64URL(recipientTx)
			}
			chain.Down(tc.down)
			res := submitTx(alice, st.ID, hash)
			require.Empty(t, res.Errors)
			var out struct{ SubmitSettlementTransaction tonSettlement }
			require.NoError(t, json.Unmarshal(res.Data, &out))
			got := out.SubmitSettlementTransaction
			require.Equal(t, tc.status, got.Status)
			require.Equal(t, tc.state, got.Verification.State)
			require.Equal(t, 1, got.Verification.Attempts)
			if tc.reason == "" {
				require.Nil(t, got.Verification.Reason)
				require.Equal(t, "111", got.ConfirmedBy.UserID, "the payer proved it")
				require.Empty(t, got.PaymentLink, "nothing left to pay")
			} else {
				require.Equal(t, tc.reason, *got.Verification.Reason)
			}
			if tc.state != "PENDING" {
				require.NotNil(t, got.Verification.CheckedAt)
			}
			if tc.state == "FAILED" {
				// The recipient can still confirm it by hand.
				bob.Must(nil, `mutation($id: ID!) { updateSettlement(id: $id, input: {status: COMPLETED}) { id } }`, "id", st.ID)
			}
		})
	}
}

func TestSubmitSettlementTransactionRefusals(t *testing.T) {
	api, chain, group, alice, bob, carol := tonGroup(t)
	st := settleIn(t, alice, group, "222", "1", "TON")
	hash := strings.Repeat("ab", 32)
	require.Equal(t, "FORBIDDEN", submitTx(bob, st.ID, hash).Code(), "the recipient")
	require.Equal(t, "FORBIDDEN", submitTx(carol, st.ID, hash).Code(), "another member")
	mallory := api.User("666", "Mallory")
	res := submitTx(mallory, st.ID, hash)
	require.Equal(t, "NOT_FOUND", res.Code(), "a non-member")
	require.Equal(t, "NOT_FOUND", submitTx(alice, "3f1e2d4c-0000-4000-8000-000000000000", hash).Code(), "no such settlement")

	res = submitTx(alice, st.ID, "not-a-hash")
	require.Equal(t, "BAD_USER_INPUT", res.Code())
	require.Equal(t, "txHash", res.Field())
	usd := settleIn(t, alice, group, "222", "1.00", "USD")
	require.Equal(t, "BAD_USER_INPUT", submitTx(alice, usd.ID, hash).Code(), "not in TON")
	noWallet := settleIn(t, alice, group, "333", "1", "TON")
	require.Equal(t, "BAD_USER_INPUT", submitTx(alice, noWallet.ID, hash).Code(), "the recipient has no wallet")

	bob.Must(nil, `mutation($id: ID!) { updateSettlement(id: $id, input: {status: COMPLETED}) { id } }`, "id", st.ID)
	require.Equal(t, "CONFLICT", submitTx(alice, st.ID, hash).Code(), "a final settlement")
	require.Zero(t, chain.Requests(), "nothing refused reached the TON API")
}

func base64URL(h tonapi.Hash) string { return base64.RawURLEncoding.EncodeToString(h[:]) }
