package graph

import (
	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/store"
)

// mayMove checks that the viewer (me) may take a settlement from one status
// to another: the payer marks it SENT, the recipient completes it (the
// payer too where the group allows it), either marks it FAILED. A
// placeholder recipient cannot sign in, so any other member but the payer
// completes a payment to it on its behalf; the payer alone never does, unless
// the group lets payers complete their own payments anyway. The status order
// itself (store.CanBecome) is checked first: a final settlement is a CONFLICT
// whoever asks.
func mayMove(g *store.Group, from string, to *store.Member, me string, was, status store.SettlementStatus) error {
	if !store.CanBecome(was, status) {
		return conflict("a " + enumName(was) + " settlement cannot become " + enumName(status) +
			": PENDING becomes SENT, and PENDING or SENT becomes COMPLETED or FAILED")
	}
	payerMayComplete := g.SettlementConfirmation == store.ConfirmByEitherParty
	switch {
	case status == store.SettlementSent && me != from:
		return forbidden("only the payer marks a settlement SENT")
	case status != store.SettlementCompleted || me == to.UserID || (me == from && payerMayComplete):
		return nil
	case confirmsForPlaceholder(to) && me == from:
		return forbidden("you cannot confirm your own payment to " + to.Name + ", a placeholder member who cannot sign in: " +
			"another member of the group confirms it on their behalf (mark it SENT meanwhile)")
	case confirmsForPlaceholder(to):
		return nil
	}
	return forbidden("only the recipient confirms a payment: mark it SENT, and the recipient marks it COMPLETED")
}

// confirmsForPlaceholder reports whether the recipient is a placeholder
// nobody has begun to claim, for whom other members confirm payments. Once a
// claim begins, the claimer is the one to confirm (the claim makes them the
// recipient).
func confirmsForPlaceholder(to *store.Member) bool {
	return to.Placeholder && to.Available()
}

// mayConfirmFor checks a change to a settlement by a member who is neither
// its payer nor its recipient: allowed only to confirm (COMPLETED, nothing
// else) a payment to a placeholder nobody has begun to claim.
func mayConfirmFor(to *store.Member, in model.UpdateSettlementInput) error {
	switch {
	case to.Placeholder && to.ClaimedBy != "":
		return forbidden(to.Name + " has been claimed by a member who signs in: only they confirm payments to them now")
	case !confirmsForPlaceholder(to):
		return forbidden("only the two members of a settlement can change it")
	case in.Status == nil || *in.Status != store.SettlementCompleted || in.TxHash != nil:
		return forbidden("for a payment to " + to.Name + ", a placeholder member, another member may only confirm it: status COMPLETED and nothing else")
	}
	return nil
}
