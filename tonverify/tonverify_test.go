package tonverify_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/testclock"
	"github.com/fracti/api/money"
	"github.com/fracti/api/store"
	"github.com/fracti/api/ton"
	"github.com/fracti/api/tonapi"
	"github.com/fracti/api/tonapi/tontest"
	"github.com/fracti/api/tonverify"
	"github.com/stretchr/testify/require"
)

var (
	ctx    = context.Background()
	tonCur = money.MustCurrency("TON")
	// The payer's and the recipient's wallets: members store them
	// user-friendly, the API answers with raw addresses.
	payerWallet     = "UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI"
	recipientWallet = "EQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG"
	strangerWallet  = "0:1111111111111111111111111111111111111111111111111111111111111111"
)

func account(t *testing.T, s string) ton.Account {
	a, err := ton.ParseAccount(s)
	require.NoError(t, err)
	return a
}

// world is a table, a clock, a fake TON API and a group of two members
// with wallets, "1" owing "2".
type world struct {
	t     *testing.T
	clock *testclock.Clock
	chain *tontest.Chain
	table string
	s     *store.Store
	g     store.Group
}

func newWorld(t *testing.T) *world {
	w := &world{t: t, clock: testclock.At(time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)), chain: tontest.New(t), table: dynamotest.Table(t)}
	w.s = w.store()
	g, _, err := w.s.CreateGroup(ctx, store.NewGroup{Title: "Trip", Currency: tonCur, Creator: store.NewMember{UserID: "1", Name: "Ann"}})
	require.NoError(t, err)
	_, _, err = w.s.JoinGroup(ctx, g.ID, store.NewMember{UserID: "2", Name: "Bob"})
	require.NoError(t, err)
	for u, wallet := range map[string]string{"1": payerWallet, "2": recipientWallet} {
		_, err = w.s.UpdateWallet(ctx, g.ID, u, wallet)
		require.NoError(t, err)
	}
	w.g = g
	return w
}

// store is another instance's store on the same table.
func (w *world) store() *store.Store {
	return store.New(dynamotest.Client(w.t), w.table, store.Options{CursorSecret: []byte("k"), Now: w.clock.Now})
}

func (w *world) verifier(s *store.Store) *tonverify.Verifier {
	return &tonverify.Verifier{Store: s, API: tonapi.New(w.chain.URL(), "", time.Second), Now: w.clock.Now,
		Backoff: 10 * time.Second, MaxBackoff: time.Minute, GiveUp: 30 * time.Minute}
}

// settlement records "1" paying "2" nanotons as TON, and submits hash.
func (w *world) submit(nanotons int64, hash tonapi.Hash) store.Settlement {
	st, err := w.s.CreateSettlement(ctx, store.Settlement{GroupID: w.g.ID, FromUserID: "1", FromUserName: "Ann", ToUserID: "2", ToUserName: "Bob",
		Amount: money.NewAmount(nanotons, tonCur), Status: store.SettlementSent}, "")
	require.NoError(w.t, err)
	st, err = w.s.SubmitSettlementTx(ctx, st, hash.Hex())
	require.NoError(w.t, err)
	require.Equal(w.t, store.VerificationPending, st.Verification.State)
	return st
}

// pay puts a correct payment of st on the chain.
func (w *world) pay(st store.Settlement, change func(*tontest.Payment)) (payerTx, recipientTx tonapi.Hash) {
	p := tontest.Payment{From: account(w.t, payerWallet), To: account(w.t, recipientWallet), Nanotons: st.Amount.Minor().String(), Comment: tontest.Ptr(st.Reference())}
	if change != nil {
		change(&p)
	}
	return w.chain.Pay(p)
}

// paid records "1" paying "2" nanotons as TON, puts the payment (changed
// by change, if any) on the chain, and submits the payer's transaction.
func (w *world) paid(nanotons int64, change func(*tontest.Payment)) (st store.Settlement, payerTx, recipientTx tonapi.Hash) {
	st = w.submit(nanotons, tonapi.Hash{})
	payerTx, recipientTx = w.pay(st, change)
	st, err := w.s.SubmitSettlementTx(ctx, w.get(st.ID), payerTx.Hex())
	require.NoError(w.t, err)
	return st, payerTx, recipientTx
}

func (w *world) get(id string) store.Settlement {
	got, err := w.s.GetSettlements(ctx, []store.SettlementRef{{ID: id}})
	require.NoError(w.t, err)
	require.NotNil(w.t, got[0])
	return *got[0]
}

// pastGiveUp runs the job every minute for 40 minutes (past the give-up
// time) and returns the settlement, which no check is left for.
func (w *world) pastGiveUp(v *tonverify.Verifier, id string) store.Settlement {
	for range 40 {
		w.clock.Add(time.Minute)
		_, err := v.RunDue(ctx)
		require.NoError(w.t, err)
	}
	due, err := w.s.DueTonChecks(ctx, w.clock.Now().Add(time.Hour), 10)
	require.NoError(w.t, err)
	require.Empty(w.t, due, "no check is left to make")
	return w.get(id)
}

// nets is the group's TON nets.
func (w *world) nets() map[string]string {
	gb, err := w.s.GetBalances(ctx, []string{w.g.ID})
	require.NoError(w.t, err)
	out := map[string]string{}
	for u, n := range gb[0].Book(tonCur).Nets() {
		if !n.IsZero() {
			out[u] = n.String()
		}
	}
	return out
}

func TestCorrectTransferCompletes(t *testing.T) {
	for _, side := range []string{"payer", "recipient"} {
		t.Run("submitted as the "+side+"'s transaction", func(t *testing.T) {
			w := newWorld(t)
			st, err := w.s.CreateSettlement(ctx, store.Settlement{GroupID: w.g.ID, FromUserID: "1", FromUserName: "Ann", ToUserID: "2", ToUserName: "Bob",
				Amount: money.NewAmount(1_500_000_000, tonCur), Status: store.SettlementPending}, "")
			require.NoError(t, err)
			payerTx, recipientTx := w.pay(st, nil)
			hash := payerTx
			if side == "recipient" {
				hash = recipientTx
			}
			st, err = w.s.SubmitSettlementTx(ctx, st, hash.Hex())
			require.NoError(t, err)
			done, err := w.verifier(w.s).Check(ctx, st)
			require.NoError(t, err)
			require.Equal(t, store.SettlementCompleted, done.Status)
			require.Equal(t, store.VerificationVerified, done.Verification.State)
			require.Equal(t, 1, done.Verification.Attempts)

			stored := w.get(st.ID)
			require.Equal(t, store.SettlementCompleted, stored.Status)
			require.Equal(t, "1", stored.ConfirmedBy, "the payer proved it")
			require.Equal(t, store.VerificationVerified, stored.Verification.State)
			require.NotNil(t, stored.Verification.CheckedAt)
			require.Equal(t, map[string]string{"1": "1.500000000", "2": "-1.500000000"}, w.nets())

			due, err := w.s.DueTonChecks(ctx, w.clock.Now().Add(time.Hour), 10)
			require.NoError(t, err)
			require.Empty(t, due, "a verified settlement leaves the checker's index")
		})
	}
}

func TestMismatchesFailWithReasons(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*tontest.Payment)
		reason string
	}{
		{"wrong destination", func(p *tontest.Payment) { p.To = ton.Account{ID: [32]byte{0x11}} }, "the transfer went to " + (ton.Account{ID: [32]byte{0x11}}).Friendly(false) + ", not to the recipient's wallet UQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XglxD"},
		{"from another wallet", func(p *tontest.Payment) { p.From = account(t, strangerWallet) }, "the transfer came from " + account(t, strangerWallet).Friendly(false) + ", not from the payer's wallet"},
		{"smaller amount", func(p *tontest.Payment) { p.Nanotons = "1499999999" }, "the transfer sent 1499999999 nanotons, less than the 1500000000 the settlement asks"},
		{"bounced", func(p *tontest.Payment) { p.Bounced = true }, "the recipient's wallet refused the transfer: it bounced"},
		{"missing reference", func(p *tontest.Payment) { p.Comment = nil }, "the transfer has no text comment; the payment must carry the reference \"fracti-"},
		{"another reference", func(p *tontest.Payment) { p.Comment = tontest.Ptr("thanks for dinner") }, "the transfer's comment is \"thanks for dinner\", not the settlement's reference"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			st, _, _ := w.paid(1_500_000_000, tc.change)
			got, err := w.verifier(w.s).Check(ctx, st)
			require.NoError(t, err)
			require.Equal(t, store.VerificationFailed, got.Verification.State)
			require.Contains(t, got.Verification.Reason, tc.reason)
			stored := w.get(st.ID)
			require.Equal(t, store.SettlementSent, stored.Status, "a mismatch leaves the settlement for the recipient to confirm by hand")
			require.Equal(t, got.Verification.Reason, stored.Verification.Reason)
			require.Empty(t, w.nets())

			// The recipient can still confirm it by hand.
			completed := store.SettlementCompleted
			_, err = w.s.UpdateSettlement(ctx, stored, store.SettlementChange{Status: &completed}, "2")
			require.NoError(t, err)
			require.Equal(t, map[string]string{"1": "1.500000000", "2": "-1.500000000"}, w.nets())
		})
	}
}

func TestReusedPaymentIsRefused(t *testing.T) {
	w := newWorld(t)
	first, payerTx, recipientTx := w.paid(1_000_000_000, nil)
	first, err := w.verifier(w.s).Check(ctx, first)
	require.NoError(t, err)
	require.Equal(t, store.SettlementCompleted, first.Status)

	// The same payment, by either of its transactions, for another settlement.
	for _, h := range []tonapi.Hash{payerTx, recipientTx} {
		second := w.submit(1_000_000_000, h)
		got, err := w.verifier(w.s).Check(ctx, second)
		require.NoError(t, err)
		require.Equal(t, store.VerificationFailed, got.Verification.State)
		require.Equal(t, "this payment already completed another settlement", got.Verification.Reason)
		require.Equal(t, store.SettlementSent, w.get(second.ID).Status)
	}
	require.Equal(t, map[string]string{"1": "1.000000000", "2": "-1.000000000"}, w.nets())
}

func TestTransactionIndexedAtTheThirdPollCompletes(t *testing.T) {
	w := newWorld(t)
	st, payerTx, _ := w.paid(2_000_000_000, nil)
	w.chain.HideUntil(payerTx, 3)
	v := w.verifier(w.s)

	st, err := v.Check(ctx, st) // what submitSettlementTransaction tries at once
	require.NoError(t, err)
	require.Equal(t, store.VerificationPending, st.Verification.State)
	require.Contains(t, st.Verification.Reason, "not on the chain yet")

	run, err := v.RunDue(ctx)
	require.NoError(t, err)
	require.Zero(t, run.Due, "not due before its backoff")

	w.clock.Add(10 * time.Second)
	run, err = v.RunDue(ctx) // the second poll
	require.NoError(t, err)
	require.Equal(t, tonverify.Run{Due: 1}, run)
	require.Equal(t, store.VerificationPending, w.get(st.ID).Verification.State)

	w.clock.Add(10 * time.Second)
	run, err = v.RunDue(ctx)
	require.NoError(t, err)
	require.Zero(t, run.Due, "the wait doubled")
	w.clock.Add(10 * time.Second)
	run, err = v.RunDue(ctx) // the third poll
	require.NoError(t, err)
	require.Equal(t, tonverify.Run{Due: 1, Verified: 1}, run)
	done := w.get(st.ID)
	require.Equal(t, store.SettlementCompleted, done.Status)
	require.Equal(t, 3, done.Verification.Attempts)
	require.Equal(t, map[string]string{"1": "2.000000000", "2": "-2.000000000"}, w.nets())
}

func TestUnreachableAPIStaysPendingThenGivesUp(t *testing.T) {
	w := newWorld(t)
	st := w.submit(1_000_000_000, tonapi.Hash{7})
	w.chain.Down(true)
	v := w.verifier(w.s)
	st, err := v.Check(ctx, st)
	require.NoError(t, err)
	require.Equal(t, store.VerificationPending, st.Verification.State)
	require.Equal(t, "the TON API did not answer; checking again", st.Verification.Reason)

	w.chain.Down(false) // up again, but the transaction never shows
	got := w.pastGiveUp(v, st.ID)
	require.Equal(t, store.VerificationFailed, got.Verification.State)
	require.Contains(t, got.Verification.Reason, "gave up: the transaction is not on the chain yet (or not indexed yet) 30m0s after it was submitted")
	require.Equal(t, store.SettlementSent, got.Status)
}

func TestTwoInstancesCompleteOnce(t *testing.T) {
	w := newWorld(t)
	var sts []store.Settlement
	for range 5 {
		st, _, _ := w.paid(1_000_000_000, nil)
		sts = append(sts, st)
	}
	// Two instances (their own stores and verifiers on the same table) run
	// the job at the same moment, several times.
	verifiers := []*tonverify.Verifier{w.verifier(w.store()), w.verifier(w.store())}
	var mu sync.Mutex
	verified := 0
	var errs []error
	var wg sync.WaitGroup
	for round := range 3 {
		for _, v := range verifiers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				run, err := v.RunDue(ctx)
				mu.Lock()
				verified += run.Verified
				errs = append(errs, err)
				mu.Unlock()
			}()
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err) // on the test's goroutine
		}
		if round == 0 {
			w.clock.Add(time.Minute)
		}
	}
	require.Equal(t, len(sts), verified, "each settlement completes once")
	for _, st := range sts {
		got := w.get(st.ID)
		require.Equal(t, store.SettlementCompleted, got.Status)
		require.Equal(t, store.VerificationVerified, got.Verification.State)
	}
	require.Equal(t, map[string]string{"1": "5.000000000", "2": "-5.000000000"}, w.nets(), "balances moved once per settlement")
	events, err := w.s.ListEvents(ctx, w.g.ID, store.PageArgs{First: 100})
	require.NoError(t, err)
	completed := 0
	for _, e := range events.Items {
		if e.Type == store.EventSettlementCompleted {
			completed++
		}
	}
	require.Equal(t, len(sts), completed)
}

func TestCompletedByHandEndsTheCheck(t *testing.T) {
	w := newWorld(t)
	st := w.submit(1_000_000_000, tonapi.Hash{9}) // not on the chain yet
	completed := store.SettlementCompleted
	_, err := w.s.UpdateSettlement(ctx, st, store.SettlementChange{Status: &completed}, "2")
	require.NoError(t, err)

	run, err := w.verifier(w.s).RunDue(ctx)
	require.NoError(t, err)
	require.Equal(t, tonverify.Run{Due: 1, Failed: 1}, run)
	got := w.get(st.ID)
	require.Equal(t, store.SettlementCompleted, got.Status)
	require.Equal(t, "the settlement was already marked COMPLETED by hand", got.Verification.Reason)
	require.Zero(t, w.chain.Requests(), "nothing left to ask the chain")
	require.Equal(t, map[string]string{"1": "1.000000000", "2": "-1.000000000"}, w.nets())
}

// A payment the chain shows but the settlement cannot take (its recipient
// left the group meanwhile) is no endless loop of checks: the reason is
// shown while it waits, and it gives up like any other.
func TestRefusedCompletionGivesUp(t *testing.T) {
	w := newWorld(t)
	st, _, _ := w.paid(1_000_000_000, nil)
	_, err := w.s.LeaveGroup(ctx, w.g.ID, "2", "")
	require.NoError(t, err)

	v := w.verifier(w.s)
	st, err = v.Check(ctx, st)
	require.NoError(t, err)
	require.Equal(t, store.VerificationPending, st.Verification.State)
	require.Equal(t, "the settlement cannot complete: one of the two members has left the group, so the settlement cannot complete; checking again", st.Verification.Reason)
	got := w.pastGiveUp(v, st.ID)
	require.Equal(t, store.VerificationFailed, got.Verification.State)
	require.Equal(t, "gave up: the settlement cannot complete: one of the two members has left the group, so the settlement cannot complete", got.Verification.Reason)
	require.Equal(t, store.SettlementSent, got.Status)
	require.Empty(t, w.nets())
}

// The payer's transaction is indexed before the recipient's: the check
// waits for the recipient's side (whether it bounced) before completing.
func TestRecipientSideIndexedLaterCompletes(t *testing.T) {
	w := newWorld(t)
	st, _, recipientTx := w.paid(1_000_000_000, nil)
	w.chain.HideRecipientUntil(recipientTx, 2)
	v := w.verifier(w.s)
	st, err := v.Check(ctx, st)
	require.NoError(t, err)
	require.Equal(t, store.VerificationPending, st.Verification.State)
	require.Equal(t, "the recipient's side of the transfer is not on the chain yet; checking again", st.Verification.Reason)
	require.Empty(t, w.nets())

	w.clock.Add(10 * time.Second)
	run, err := v.RunDue(ctx)
	require.NoError(t, err)
	require.Equal(t, tonverify.Run{Due: 1, Verified: 1}, run)
	require.Equal(t, store.SettlementCompleted, w.get(st.ID).Status)
	require.Equal(t, map[string]string{"1": "1.000000000", "2": "-1.000000000"}, w.nets())
}
