package graph

import (
	"context"
	"errors"

	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/loaders"
	pay "github.com/fracti/api/payments"
	"github.com/fracti/api/store"
)

// handlesInput is the input as pay.Handles, checked and normalized;
// a handle refused is BAD_USER_INPUT naming it (handles.<field>).
func handlesInput(in *model.PaymentHandlesInput) (*pay.Handles, error) {
	if in == nil {
		return nil, nil
	}
	v := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	h, err := pay.Normalize(pay.Handles{
		IBAN: v(in.Iban), BIC: v(in.Bic), AccountHolder: v(in.AccountHolder), UPI: v(in.Upi), Pix: v(in.Pix),
		PixCity: v(in.PixCity), Revolut: v(in.Revolut), PayPal: v(in.Paypal), Other: v(in.Other),
	})
	if fe := (*pay.FieldError)(nil); errors.As(err, &fe) {
		return nil, badInput("handles."+fe.Field, "%s", fe.Msg)
	}
	return &h, err
}

// handlesOut is the PaymentHandles of h, from source; m is the member
// whose they are in a group (nil for a default).
func handlesOut(h *pay.Handles, source model.PaymentHandlesSource, m *store.Member) *model.PaymentHandles {
	out := &model.PaymentHandles{Source: source, Member: m}
	if m != nil {
		out.Ton = nullable(m.Wallet)
	}
	if h == nil {
		return out
	}
	if h.IBAN != "" {
		out.BankAccount = &model.BankAccount{Iban: h.IBAN, Bic: nullable(h.BIC), AccountHolder: nullable(h.AccountHolder)}
	}
	if h.Pix != "" {
		out.Pix = &model.PixKey{Key: h.Pix, Type: model.PixKeyType(h.PixType), City: nullable(h.PixCity)}
	}
	out.Upi, out.Revolut, out.Paypal, out.Other = nullable(h.UPI), nullable(h.Revolut), nullable(h.PayPal), nullable(h.Other)
	return out
}

// memberHandles are a member's handles as the group shows them: their own,
// else their default; none for a former member (who is paid nothing more,
// and whose personal data stays out of sight).
func memberHandles(ctx context.Context, m *store.Member) (*model.PaymentHandles, error) {
	if !m.Active() {
		return &model.PaymentHandles{Source: model.PaymentHandlesSourceNone, Member: m}, nil
	}
	h, own, err := loaders.PaymentHandles(ctx, m)
	if err != nil {
		return nil, err
	}
	source := model.PaymentHandlesSourceDefault
	switch {
	case own:
		source = model.PaymentHandlesSourceGroup
	case h == nil:
		source = model.PaymentHandlesSourceNone
	}
	return handlesOut(h, source, m), nil
}

// paymentOptions are the ways to pay st, from the recipient's handles and
// TON's link (paymentLink).
func paymentOptions(ctx context.Context, st *store.Settlement) ([]model.PaymentOption, error) {
	if st.Status.Final() {
		return []model.PaymentOption{}, nil
	}
	to, err := loaders.Member(ctx, st.GroupID, st.ToUserID)
	if err != nil || !to.Active() {
		return []model.PaymentOption{}, err
	}
	h, _, err := loaders.PaymentHandles(ctx, to)
	if err != nil {
		return nil, err
	}
	p := pay.Payment{Name: to.Name, Amount: st.Amount, Reference: st.Reference()}
	if h != nil {
		p.Handles = *h
	}
	if st.Amount.Currency().Code() == tonCode && to.Wallet != "" {
		p.TONLink = paymentLink(to.Wallet, st)
	}
	opts, err := pay.Options(p)
	if err != nil {
		return nil, err
	}
	out := make([]model.PaymentOption, len(opts))
	for i, o := range opts {
		out[i] = model.PaymentOption{
			Kind: model.PaymentKind(o.Kind), URL: nullable(o.URL), QRPayload: nullable(o.QRPayload),
			Text: nullable(o.Text), Reference: p.Reference,
		}
	}
	return out, nil
}
