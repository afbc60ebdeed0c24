package graph

import (
	"context"
	"net/url"

	"github.com/fracti/api/loaders"
	"github.com/fracti/api/store"
	"github.com/fracti/api/ton"
)

// tonCode is the currency whose settlements are verified on chain.
const tonCode = "TON"

// paymentLink is the ton://transfer link that pays st to wallet exactly:
// the amount in nanotons (TON's minor units) and the settlement's reference
// as the text comment the check looks for.
func paymentLink(wallet string, st *store.Settlement) string {
	q := url.Values{"amount": {st.Amount.Minor().String()}, "text": {st.Reference()}}
	if form, err := ton.LinkForm(wallet); err == nil {
		wallet = form // user-friendly and URL-safe, as wallets read links
	}
	return "ton://transfer/" + url.PathEscape(wallet) + "?" + q.Encode()
}

// mayVerify checks that a settlement's payment can be verified on chain:
// in TON, neither final nor verified already, both members with a wallet.
func mayVerify(ctx context.Context, st *store.Settlement) error {
	if code := st.Amount.Currency().Code(); code != tonCode {
		return badInput("id", "the settlement is in %s: only TON payments are verified on chain; the recipient confirms it (updateSettlement)", code)
	}
	if st.Status.Final() {
		return conflict("the settlement is " + enumName(st.Status) + ": there is nothing left to verify")
	}
	if st.Verification != nil && st.Verification.State == store.VerificationVerified {
		return conflict("the settlement's payment is already verified")
	}
	ms, err := loaders.Members(ctx, st.GroupID, []string{st.FromUserID, st.ToUserID})
	if err != nil {
		return err
	}
	for i, who := range []string{"payer", "recipient"} {
		if ms[i] == nil || ms[i].Wallet == "" {
			return badInput("id", "the %s has no TON wallet in this group: it must be set (updateWallet) before the payment can be verified", who)
		}
	}
	return nil
}
