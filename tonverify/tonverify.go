// Package tonverify checks TON settlements' payments on chain: it claims a
// pending verification's next check (store.ClaimTonCheck), asks the TON
// API (tonapi.Verify) whether the submitted transaction is the payment the
// settlement asks, and completes the settlement (store.CompleteTonSettlement),
// fails the verification with a reason the payer can read, or leaves it
// pending for a later check, with backoff, until it gives up. Every write is
// conditional, so any number of instances may check at once: each attempt
// is made by one, and a settlement completes once.
package tonverify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/fracti/api/store"
	"github.com/fracti/api/ton"
	"github.com/fracti/api/tonapi"
)

// Defaults of a Verifier's settings.
const (
	DefaultBackoff    = 15 * time.Second
	DefaultMaxBackoff = 5 * time.Minute
	DefaultGiveUp     = 30 * time.Minute
	// DefaultBatch is how many due checks one RunDue makes at most.
	DefaultBatch = 100
)

// Verifier checks TON payments. Store and API are required.
type Verifier struct {
	Store *store.Store
	API   *tonapi.Client
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Backoff is the wait after a settlement's first check; each later wait
	// doubles, up to MaxBackoff.
	Backoff, MaxBackoff time.Duration
	// GiveUp is how long after its submission a transaction the chain does
	// not show (or an API that does not answer) is waited for before the
	// verification fails.
	GiveUp time.Duration
	// Log receives API outages (nil: slog.Default()).
	Log *slog.Logger
}

func (v *Verifier) now() time.Time {
	if v.Now != nil {
		return v.Now()
	}
	return time.Now()
}

func (v *Verifier) log() *slog.Logger {
	if v.Log != nil {
		return v.Log
	}
	return slog.Default()
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// wait is the time from the attempt-th check to the next.
func (v *Verifier) wait(attempt int) time.Duration {
	d, limit := orDefault(v.Backoff, DefaultBackoff), orDefault(v.MaxBackoff, DefaultMaxBackoff)
	for i := 1; i < attempt && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

// Check makes the next check of st's pending verification, if nobody else
// has taken it (then st comes back unchanged), and returns the settlement
// as it left it. An error means nothing was concluded; the check comes
// round again.
func (v *Verifier) Check(ctx context.Context, st store.Settlement) (store.Settlement, error) {
	if st.Verification == nil || st.Verification.State != store.VerificationPending {
		return st, nil
	}
	now := v.now()
	st, ok, err := v.Store.ClaimTonCheck(ctx, st, now.Add(v.wait(st.Verification.Attempts+1)))
	if err != nil || !ok {
		return st, err
	}
	if st.Status.Final() {
		return v.fail(ctx, st, "the settlement was already marked "+strings.ToUpper(string(st.Status))+" by hand")
	}
	want, reason, err := v.want(ctx, st)
	if err != nil {
		return st, err
	}
	if reason != "" {
		return v.fail(ctx, st, reason)
	}
	hash, err := tonapi.ParseHash(st.TxHash)
	if err != nil {
		return v.fail(ctx, st, "the submitted transaction hash is not readable: "+err.Error())
	}
	res, err := v.API.Verify(ctx, hash, want)
	giveUp := orDefault(v.GiveUp, DefaultGiveUp)
	late := now.Sub(st.Verification.SubmittedAt) >= giveUp
	switch {
	case err != nil:
		v.log().Warn("TON API unavailable; the check comes round again", "settlement", st.ID, "error", err)
		if late {
			return v.fail(ctx, st, "gave up: the TON API did not answer for "+giveUp.String())
		}
		return v.record(ctx, st, store.VerificationPending, "the TON API did not answer; checking again")
	case res.State == tonapi.Pending && late:
		return v.fail(ctx, st, "gave up: "+res.Reason+" "+giveUp.String()+" after it was submitted")
	case res.State == tonapi.Pending:
		return v.record(ctx, st, store.VerificationPending, res.Reason+"; checking again")
	}
	if !res.Transfer.IsZero() {
		used, err := v.Store.TonPaymentUsedBy(ctx, res.Transfer.Hex())
		if err != nil {
			return st, err
		}
		if used != "" && used != st.ID {
			return v.fail(ctx, st, "this payment already completed another settlement")
		}
	}
	if res.State == tonapi.Failed {
		return v.fail(ctx, st, res.Reason)
	}
	done, err := v.Store.CompleteTonSettlement(ctx, st, res.Transfer.Hex())
	switch {
	case errors.Is(err, store.ErrTonPaymentUsed):
		return v.fail(ctx, st, "this payment already completed another settlement")
	case errors.Is(err, store.ErrConflict), errors.Is(err, store.ErrTooManyCurrencies), errors.Is(err, store.ErrArchived), errors.Is(err, store.ErrNotFound):
		// Refused: changed meanwhile (completed by hand: the next check
		// sees it final; by another checker: the verification moved on
		// and this record does nothing), or it cannot take the payment (a
		// member has left, the group is archived or deleted). It waits and gives up like a payment not
		// indexed yet, rather than being checked again for ever.
		reason := "the settlement cannot complete: " + refusal(err)
		if late {
			return v.fail(ctx, st, "gave up: "+reason)
		}
		return v.record(ctx, st, store.VerificationPending, reason+"; checking again")
	case err != nil:
		return st, err
	}
	return done, nil
}

// refusal is why the store refused a completion, as the payer reads it:
// the message without the operation's and the error kind's prefixes.
func refusal(err error) string {
	msg := err.Error()
	for _, kind := range []error{store.ErrConflict, store.ErrTooManyCurrencies} {
		if _, after, ok := strings.Cut(msg, kind.Error()+": "); ok {
			return after
		}
	}
	return msg
}

// want is the payment st asks for, or the reason there can be none.
func (v *Verifier) want(ctx context.Context, st store.Settlement) (tonapi.Want, string, error) {
	if st.Amount.Currency().Code() != "TON" {
		return tonapi.Want{}, "the settlement is not in TON", nil
	}
	ms, err := v.Store.GetMembers(ctx, []store.MemberKey{{GroupID: st.GroupID, UserID: st.FromUserID}, {GroupID: st.GroupID, UserID: st.ToUserID}})
	if err != nil {
		return tonapi.Want{}, "", err
	}
	w := tonapi.Want{Nanotons: st.Amount.Minor(), Comment: st.Reference()}
	for i, who := range []struct {
		name string
		into *ton.Account
	}{{"payer", &w.From}, {"recipient", &w.To}} {
		if ms[i] == nil || ms[i].Wallet == "" {
			return w, "the " + who.name + " has no TON wallet in the group: set it, then submit the transaction again", nil
		}
		if *who.into, err = ton.ParseAccount(ms[i].Wallet); err != nil {
			return w, fmt.Sprintf("the %s's wallet is not a TON address: %v", who.name, err), nil
		}
	}
	return w, "", nil
}

func (v *Verifier) fail(ctx context.Context, st store.Settlement, reason string) (store.Settlement, error) {
	return v.record(ctx, st, store.VerificationFailed, reason)
}

func (v *Verifier) record(ctx context.Context, st store.Settlement, state store.VerificationState, reason string) (store.Settlement, error) {
	st, _, err := v.Store.RecordTonCheck(ctx, st, state, reason)
	return st, err
}

// Run counts what a RunDue did.
type Run struct {
	Due, Verified, Failed int
}

// RunDue makes the checks due now (up to DefaultBatch), soonest first; the
// schedule job of every instance calls it. Errors of one settlement do not
// stop the others; they are returned together.
func (v *Verifier) RunDue(ctx context.Context) (Run, error) {
	var run Run
	due, err := v.Store.DueTonChecks(ctx, v.now(), DefaultBatch)
	if err != nil {
		return run, err
	}
	var errs []error
	for _, st := range due {
		run.Due++
		after, err := v.Check(ctx, st)
		if err != nil {
			errs = append(errs, fmt.Errorf("TON check of settlement %s: %w", st.ID, err))
		}
		if after.Verification != nil {
			switch after.Verification.State {
			case store.VerificationVerified:
				run.Verified++
			case store.VerificationFailed:
				run.Failed++
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	return run, errors.Join(append(errs, ctx.Err())...)
}
