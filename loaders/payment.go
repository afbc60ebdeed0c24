package loaders

import (
	"context"

	"github.com/fracti/api/payments"
	"github.com/fracti/api/store"
)

// PaymentHandles are a member's effective payment handles in their group:
// their own set for it when they have one (own true), else their default,
// read with every other member's asked for at the same moment in one
// BatchGetItem. Nil when they have neither.
func PaymentHandles(ctx context.Context, m *store.Member) (h *payments.Handles, own bool, err error) {
	if m.PaymentHandles != nil {
		return m.PaymentHandles, true, nil
	}
	if m.Placeholder {
		return nil, false, nil // nobody's profile: a placeholder has no default
	}
	h, err = DefaultPaymentHandles(ctx, m.UserID)
	return h, false, err
}

// DefaultPaymentHandles are a user's default payment handles, nil when none.
func DefaultPaymentHandles(ctx context.Context, userID string) (*payments.Handles, error) {
	return from(ctx).payDefaults.Load(ctx, userID)()
}

// WroteDefaultPaymentHandles drops a user's default payment handles from
// the request's cache after they changed.
func WroteDefaultPaymentHandles(ctx context.Context, userID string) {
	from(ctx).payDefaults.Clear(ctx, userID)
}
