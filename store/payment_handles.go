package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/fracti/api/payments"
)

// Payment handles (docs/payments.md) are kept in two places, in the same
// short-named map attribute "pay":
//
//   - on a membership (GROUP#<groupId> / USER#<userId>): the member's own
//     set for that group, with payV, its version, which every change bumps
//     on condition that it is what was read;
//   - on the user's profile (USER#<userId> / PROFILE): their default, shown
//     in every group where the membership has no "pay".
//
// A membership's "pay" replaces the default whole, even when it is an empty
// map (the member shows no handle in that group); without it the default
// shows. The TON wallet stays the membership's own attribute (wallet).

// Attributes of payment handles.
const (
	attrPay  = "pay"
	attrPayV = "payV"
)

// FieldPaymentHandles is the field a PAYMENT_HANDLES_CHANGED event records:
// the kinds of handles the member shows in the group, before and after
// (never their values), "default" when they show their default.
const FieldPaymentHandles = "paymentHandles"

// payRecord is the "pay" map; its keys are short as every membership read
// carries them.
type payRecord struct {
	IBAN    string `dynamodbav:"iban,omitempty"`
	BIC     string `dynamodbav:"bic,omitempty"`
	Holder  string `dynamodbav:"hold,omitempty"`
	UPI     string `dynamodbav:"upi,omitempty"`
	Pix     string `dynamodbav:"pix,omitempty"`
	PixType string `dynamodbav:"pixT,omitempty"`
	PixCity string `dynamodbav:"city,omitempty"`
	Revolut string `dynamodbav:"rev,omitempty"`
	PayPal  string `dynamodbav:"pp,omitempty"`
	Other   string `dynamodbav:"oth,omitempty"`
}

func payRecordOf(h payments.Handles) *payRecord {
	return &payRecord{
		IBAN: h.IBAN, BIC: h.BIC, Holder: h.AccountHolder, UPI: h.UPI, Pix: h.Pix, PixType: string(h.PixType),
		PixCity: h.PixCity, Revolut: h.Revolut, PayPal: h.PayPal, Other: h.Other,
	}
}

func (r *payRecord) handles() *payments.Handles {
	if r == nil {
		return nil
	}
	return &payments.Handles{
		IBAN: r.IBAN, BIC: r.BIC, AccountHolder: r.Holder, UPI: r.UPI, Pix: r.Pix, PixType: payments.PixKeyType(r.PixType),
		PixCity: r.PixCity, Revolut: r.Revolut, PayPal: r.PayPal, Other: r.Other,
	}
}

// encodePay is the "pay" attribute of h: a map, empty when h is.
func encodePay(h payments.Handles) (types.AttributeValue, error) {
	av, err := attributevalue.Marshal(payRecordOf(h))
	if err != nil {
		return nil, fmt.Errorf("encode payment handles: %w", err)
	}
	return av, nil
}

// handleKinds names the kinds of handles a set holds, for an event:
// "IBAN, UPI", "none" for an empty set and "default" for no set.
func handleKinds(h *payments.Handles) string {
	if h == nil {
		return "default"
	}
	var kinds []string
	for _, k := range []struct {
		name string
		set  bool
	}{
		{"IBAN", h.IBAN != ""}, {"UPI", h.UPI != ""}, {"PIX", h.Pix != ""}, {"REVOLUT", h.Revolut != ""},
		{"PAYPAL", h.PayPal != ""}, {"OTHER", h.Other != ""},
	} {
		if k.set {
			kinds = append(kinds, k.name)
		}
	}
	if len(kinds) == 0 {
		return "none"
	}
	return strings.Join(kinds, ", ")
}

// SetGroupPaymentHandles sets a current member's own payment handles in a
// group (h, normalized by payments.Normalize), or with h nil removes them,
// so that the group shows their default. The PAYMENT_HANDLES_CHANGED event,
// written in the same transaction, names the kinds before and after, never
// the values. On condition that the set is still the version read;
// writing the set it already has changes nothing. A former member, or no
// membership, is NOT_FOUND.
func (s *Store) SetGroupPaymentHandles(ctx context.Context, groupID, userID string, h *payments.Handles) (Member, error) {
	m, err := s.getMember(ctx, groupID, userID, true)
	if err != nil {
		return Member{}, err
	}
	if !m.Active() {
		return Member{}, notFoundf("member %s of group %s", userID, groupID)
	}
	if (h == nil && m.PaymentHandles == nil) || (h != nil && m.PaymentHandles != nil && *h == *m.PaymentHandles) {
		return m, nil
	}
	update := &types.Update{
		TableName: &s.table, Key: tableKey(groupPK(groupID), memberSK(userID)),
		ConditionExpression:       aws.String(condItemExists + " AND " + memberNotLeft + " AND " + attrNotExists(attrPayV)),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": number(m.payVersion + 1)},
	}
	if m.payVersion > 0 {
		update.ConditionExpression = aws.String(condItemExists + " AND " + memberNotLeft + " AND " + attrPayV + " = :was")
		update.ExpressionAttributeValues[":was"] = number(m.payVersion)
	}
	if h == nil {
		update.UpdateExpression = aws.String("SET " + attrPayV + " = :v REMOVE " + attrPay)
	} else {
		pay, err := encodePay(*h)
		if err != nil {
			return Member{}, err
		}
		update.UpdateExpression = aws.String("SET " + attrPay + " = :p, " + attrPayV + " = :v")
		update.ExpressionAttributeValues[":p"] = pay
	}
	changes := []Change{{Field: FieldPaymentHandles, Before: text(handleKinds(m.PaymentHandles)), After: text(handleKinds(h))}}
	ev := memberEvent(EventPaymentHandlesChanged, groupID, userID, formatTime(s.stamp()), changes)
	err = s.writeWithEvent(ctx, &ev, func(*ledgerEdit) ([]types.TransactWriteItem, error) {
		return []types.TransactWriteItem{{Update: update}}, nil
	})
	switch {
	case condFailedAt(err, 1):
		return Member{}, conflictf("the payment handles were changed meanwhile (or you left the group); reload and try again")
	case condFailedAt(err, 0):
		return Member{}, notFoundf("group %s", groupID)
	case err != nil:
		return Member{}, fmt.Errorf("update payment handles: %w", err)
	}
	m.PaymentHandles, m.payVersion = h, m.payVersion+1
	return m, nil
}

// SetDefaultPaymentHandles sets the user's default payment handles (on
// their profile, written if they have none yet), or with h nil or empty
// removes them. No group's activity records it: the default belongs to no
// group, and each group shows only that its members' handles exist.
func (s *Store) SetDefaultPaymentHandles(ctx context.Context, userID string, h *payments.Handles) error {
	in := &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: tableKey(userKey(userID), skProfile),
		UpdateExpression: aws.String("REMOVE " + attrPay),
	}
	if h != nil && !h.IsZero() {
		pay, err := encodePay(*h)
		if err != nil {
			return err
		}
		// A profile written here first (a user of access tokens alone) gets
		// what a profile must hold to be read: its id and a time.
		in.UpdateExpression = aws.String("SET " + attrPay + " = :p, id = if_not_exists(id, :id), updatedAt = if_not_exists(updatedAt, :now)")
		in.ExpressionAttributeValues = map[string]types.AttributeValue{
			":p": pay, ":id": str(userID), ":now": str(formatTime(s.stamp())),
		}
	}
	if _, err := s.db.UpdateItem(ctx, in); err != nil {
		return fmt.Errorf("update default payment handles: %w", err)
	}
	return nil
}

// GetDefaultPaymentHandles reads the default payment handles of users, with
// as few BatchGetItem calls as possible, aligned with userIDs: nil for a
// user without a default.
func (s *Store) GetDefaultPaymentHandles(ctx context.Context, userIDs []string) ([]*payments.Handles, error) {
	keys := make([]map[string]types.AttributeValue, len(userIDs))
	for i, u := range userIDs {
		keys[i] = tableKey(userKey(u), skProfile)
	}
	items, err := s.batchGet(ctx, dedupeKeys(keys))
	if err != nil {
		return nil, err
	}
	byPK := make(map[string]*payments.Handles, len(items))
	for _, item := range items {
		var r struct {
			Pay *payRecord `dynamodbav:"pay"`
		}
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return nil, fmt.Errorf("decode profile %s: %w", keyAttr(item, attrPK), err)
		}
		byPK[keyAttr(item, attrPK)] = r.Pay.handles()
	}
	out := make([]*payments.Handles, len(userIDs))
	for i, u := range userIDs {
		out[i] = byPK[userKey(u)]
	}
	return out, nil
}

// erasePaymentHandlesUpdate removes a membership's own handles (an erasure).
func (s *Store) erasePaymentHandlesUpdate(groupID, userID string) *dynamodb.UpdateItemInput {
	return &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: tableKey(groupPK(groupID), memberSK(userID)),
		UpdateExpression:    aws.String("REMOVE " + attrPay + ", " + attrPayV),
		ConditionExpression: aws.String(condItemExists),
	}
}
