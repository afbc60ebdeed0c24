package graph

import "github.com/fracti/api/store"

// mayMove checks that the viewer (me) may take a settlement from one status
// to another: the payer marks it SENT, the recipient completes it (the
// payer too where the group allows it), either marks it FAILED. The status
// order itself (store.CanBecome) is checked first: a final settlement is a
// CONFLICT whoever asks.
func mayMove(g *store.Group, from, to, me string, was, status store.SettlementStatus) error {
	if !store.CanBecome(was, status) {
		return conflict("a " + enumName(was) + " settlement cannot become " + enumName(status) +
			": PENDING becomes SENT, and PENDING or SENT becomes COMPLETED or FAILED")
	}
	switch {
	case status == store.SettlementSent && me != from:
		return forbidden("only the payer marks a settlement SENT")
	case status == store.SettlementCompleted && me != to && g.SettlementConfirmation != store.ConfirmByEitherParty:
		return forbidden("only the recipient confirms a payment: mark it SENT, and the recipient marks it COMPLETED")
	}
	return nil
}
