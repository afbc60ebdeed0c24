package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Claiming a placeholder moves everything it has in the group to the user
// who claims it: its expenses (live and deleted), participant records,
// settlements and balances. That can take more items than one transaction
// holds, so it goes in steps, each one transaction that keeps the balances
// exact (verify finds no drift at any point), and the claim is resumable:
//
//  1. start: the placeholder is marked claimedBy the user and the ledger
//     records the claim, with the PLACEHOLDER_CLAIMED event. From here on,
//     balances are read with the placeholder's amounts shown as the user's
//     (GroupBalances.mergeClaims), so no reader ever sees a half-moved state.
//  2. move: every expense and settlement that names the placeholder is
//     rewritten to name the user, each as an ordinary edit (its revision,
//     its balance change, its event); deleted expenses are rewritten in place.
//  3. finish: once a strongly consistent scan finds nothing left and the
//     placeholder's balances are all zero, the placeholder's membership ends
//     (MEMBER_LEFT) and the ledger forgets it and the claim, conditioned on
//     the ledger's version, so nothing changed since the check.
//
// Calling ClaimPlaceholder again after a failure continues where it stopped.

// Attributes the claim's scans filter on.
const (
	attrPayerID    = "payerId"
	attrUserID     = "userId"
	attrFromUserID = "fromUserId"
	attrToUserID   = "toUserId"
)

// claimRounds bounds how often a claim scans again for what writes made
// meanwhile still name the placeholder.
const claimRounds = 5

// claimEntry is the ledger's record of a claim under way.
func claimEntry(placeholderID, userID string) string { return placeholderID + ":" + userID }

// ClaimPlaceholder moves the placeholder placeholderID of the group to the
// current member claimer, who must be a real user. A placeholder another user
// claimed gives ErrConflict; one already claimed by claimer returns at once.
// An expense or settlement that names both the placeholder and the claimer
// gives ErrConflict naming it (they would be one person twice); the claim
// then stays under way, with balances shown merged, until that is edited and
// the claim is called again. It returns the placeholder's final membership.
func (s *Store) ClaimPlaceholder(ctx context.Context, groupID, placeholderID string, claimer Member) (Member, error) {
	ph, err := s.getMember(ctx, groupID, placeholderID, true)
	if err != nil || !ph.Placeholder {
		return Member{}, notFoundf("placeholder %s", placeholderID)
	}
	switch {
	case ph.ClaimedBy != "" && ph.ClaimedBy != claimer.UserID:
		return Member{}, conflictf("another member has already claimed %s", ph.Name)
	case ph.ClaimedBy != "" && ph.LeftAt != nil:
		return ph, nil
	case ph.LeftAt != nil:
		return Member{}, notFoundf("placeholder %s", placeholderID)
	case ph.ClaimedBy == "":
		if err := s.startClaim(ctx, ph, claimer); err != nil {
			return Member{}, err
		}
	}
	g, err := s.CurrentGroup(ctx, groupID)
	if err != nil {
		return Member{}, err
	}
	for range claimRounds {
		if err := s.moveClaimed(ctx, g, ph, claimer); err != nil {
			return Member{}, err
		}
		done, err := s.finishClaim(ctx, ph, claimer)
		if err != nil || done {
			if err != nil {
				return Member{}, err
			}
			return s.getMember(ctx, groupID, placeholderID, true)
		}
	}
	return Member{}, conflictf("the group is too busy to finish the claim right now; retry")
}

// startClaim marks the placeholder claimed by claimer, with the ledger's
// record of the claim and the PLACEHOLDER_CLAIMED event.
func (s *Store) startClaim(ctx context.Context, ph, claimer Member) error {
	pk := groupPK(ph.GroupID)
	items := []types.TransactWriteItem{
		{Update: &types.Update{
			TableName: &s.table, Key: tableKey(pk, memberSK(ph.UserID)),
			UpdateExpression:          aws.String("SET " + attrClaimedBy + " = :user"),
			ConditionExpression:       aws.String(placeholderUnclaimed),
			ExpressionAttributeValues: map[string]types.AttributeValue{":user": str(claimer.UserID)},
		}},
		s.memberCheck(ph.GroupID, claimer.UserID, memberCurrent+" AND "+attrNotExists(attrPlaceholder)),
	}
	ev := Event{
		GroupID: ph.GroupID, Type: EventPlaceholderClaimed, ActorID: claimer.UserID, At: s.stamp(),
		Subject: Subject{Kind: SubjectMember, ID: ph.UserID}, Changes: []Change{{Field: FieldClaimedBy, After: text(personRef(claimer.UserID, claimer.Name))}},
	}
	err := s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
		l.requireMembers([]string{ph.UserID, claimer.UserID})
		l.add = append(l.add, attrClaims+" "+l.value(stringSet(claimEntry(ph.UserID, claimer.UserID))))
		return items, nil
	})
	switch {
	case condFailedAt(err, 1):
		now, readErr := s.getMember(ctx, ph.GroupID, ph.UserID, true)
		if readErr == nil && now.ClaimedBy == claimer.UserID {
			return nil // our own earlier attempt
		}
		return conflictf("another member has already claimed %s", ph.Name)
	case condFailedAt(err, 0) || condFailedAt(err, 2):
		return notFoundf("member %s of group %s", claimer.UserID, ph.GroupID)
	case err != nil:
		return fmt.Errorf("claim placeholder: %w", err)
	}
	return nil
}

// FieldClaimedBy is the change a claim's events record: who claimed.
const FieldClaimedBy = "claimedBy"

// moveClaimed rewrites every expense, deleted expense and settlement that
// still names the placeholder so that it names claimer instead.
func (s *Store) moveClaimed(ctx context.Context, g *Group, ph, claimer Member) error {
	expenses, tombstones, err := s.expensesNaming(ctx, ph.GroupID, ph.UserID)
	if err != nil {
		return err
	}
	for _, ref := range expenses {
		old, err := s.CurrentExpense(ctx, ref)
		if err != nil {
			return err
		}
		if old == nil || old.DeletedAt != nil || !slices.Contains(old.InvolvedUsers(), ph.UserID) {
			continue // changed meanwhile: the next round looks again
		}
		next, err := old.reassigned(ph, claimer)
		if err != nil {
			return err
		}
		// The placeholder and the user may bear the same name: the change of
		// member is recorded as such.
		claimed := Change{Field: FieldClaimedBy, Before: text(personRef(ph.UserID, ph.Name)), After: text(personRef(claimer.UserID, claimer.Name))}
		if _, err := s.updateExpense(ctx, *old, next, g.Title, claimer.UserID, claimed); err != nil && !errors.Is(err, ErrConflict) {
			return err
		}
	}
	for _, old := range tombstones {
		next, err := old.reassigned(ph, claimer)
		if err != nil {
			return err
		}
		rec, err := attributevalue.MarshalMap(next.record())
		if err != nil {
			return fmt.Errorf("encode expense: %w", err)
		}
		err = s.transactWrite(ctx, []types.TransactWriteItem{s.expenseAtVersion(old, &types.TransactWriteItem{Put: &types.Put{Item: rec}})})
		if err != nil && !IsCondCheckFailed(err) {
			return fmt.Errorf("move deleted expense: %w", err)
		}
	}
	settlements, err := s.settlementsToMove(ctx, ph, claimer)
	if err != nil {
		return err
	}
	for _, st := range settlements {
		if err := s.reassignSettlement(ctx, st, ph, claimer); err != nil && !errors.Is(err, ErrConflict) {
			return err
		}
	}
	return nil
}

// reassigned is the expense with user in place of the placeholder
// everywhere, or ErrConflict when the expense names both.
func (e *Expense) reassigned(ph, user Member) (Expense, error) {
	placeholderID := ph.UserID
	if slices.Contains(e.InvolvedUsers(), user.UserID) {
		return Expense{}, conflictf("%s and the placeholder %s are both on the expense %q: edit it so that only one of them is, then claim again",
			user.Name, ph.Name, e.Description)
	}
	next := *e
	next.Payers, next.Splits = slices.Clone(e.Payers), slices.Clone(e.Splits)
	for i := range next.Payers {
		if next.Payers[i].UserID == placeholderID {
			next.Payers[i].UserID, next.Payers[i].UserName = user.UserID, user.Name
		}
	}
	for i := range next.Splits {
		if next.Splits[i].UserID == placeholderID {
			next.Splits[i].UserID, next.Splits[i].UserName = user.UserID, user.Name
		}
	}
	if next.PayerID == placeholderID {
		next.PayerID, next.PayerName = user.UserID, user.Name
	}
	return next, nil
}

// expensesNaming finds, strongly consistent, the group's live expenses that
// name the user (as main payer, or through a participant record) and its
// deleted expenses that do.
func (s *Store) expensesNaming(ctx context.Context, groupID, userID string) ([]ExpenseRef, []Expense, error) {
	pk := groupPK(groupID)
	byUser := func(prefix, attr string) listQuery {
		values := prefixValues(pk, prefix)
		values[":user"] = str(userID)
		return listQuery{list: "claim", keyCond: tablePrefixCond, values: values, filter: attr + " = :user", forward: true, consistent: true}
	}
	paid, err := s.collect(ctx, byUser(prefixTx, attrPayerID), nil, math.MaxInt32)
	if err != nil {
		return nil, nil, err
	}
	parts, err := s.collect(ctx, byUser(prefixPart, attrUserID), nil, math.MaxInt32)
	if err != nil {
		return nil, nil, err
	}
	var refs []ExpenseRef
	for _, item := range paid {
		var rec expenseRecord
		if err := attributevalue.UnmarshalMap(item, &rec); err != nil {
			return nil, nil, fmt.Errorf("decode expense: %w", err)
		}
		created, err := parseTime(rec.CreatedAt)
		if err != nil {
			return nil, nil, err
		}
		refs = append(refs, ExpenseRef{ID: rec.ID, GroupID: groupID, CreatedAt: created})
	}
	shares, err := decodeAll(parts, (*participantRecord).share)
	if err != nil {
		return nil, nil, err
	}
	for _, sh := range shares {
		refs = append(refs, sh.ExpenseRef())
	}
	deleted, err := s.collect(ctx, listQuery{list: "claim", keyCond: tablePrefixCond, values: prefixValues(pk, prefixDeleted), forward: true, consistent: true}, nil, math.MaxInt32)
	if err != nil {
		return nil, nil, err
	}
	all, err := decodeAll(deleted, (*expenseRecord).expense)
	if err != nil {
		return nil, nil, err
	}
	tombstones := slices.DeleteFunc(all, func(e Expense) bool { return !slices.Contains(e.InvolvedUsers(), userID) })
	return refs, tombstones, nil
}

// settlementsToMove finds, strongly consistent, the group's settlements from
// or to the placeholder, but for failed ones between it and the claimer:
// those moved no money, and cannot become a settlement with oneself, so
// they keep naming the placeholder.
func (s *Store) settlementsToMove(ctx context.Context, ph, claimer Member) ([]Settlement, error) {
	values := prefixValues(groupPK(ph.GroupID), prefixSettle)
	values[":user"] = str(ph.UserID)
	items, err := s.collect(ctx, listQuery{
		list: "claim", keyCond: tablePrefixCond, values: values, forward: true, consistent: true,
		filter: attrFromUserID + " = :user OR " + attrToUserID + " = :user",
	}, nil, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	all, err := decodeAll(items, (*settlementRecord).settlement)
	return slices.DeleteFunc(all, func(st Settlement) bool {
		return st.Status == SettlementFailed && (st.FromUserID == claimer.UserID || st.ToUserID == claimer.UserID)
	}), err
}

// reassignSettlement rewrites the settlement with user in place of
// placeholderID, on condition that its status has not changed; a completed
// one moves its effect on the balances with it. It is recorded as the
// settlement's SETTLEMENT_UPDATED event.
func (s *Store) reassignSettlement(ctx context.Context, st Settlement, ph, user Member) error {
	placeholderID := ph.UserID
	next := st
	if st.FromUserID == placeholderID {
		next.FromUserID, next.FromUserName = user.UserID, user.Name
	}
	if st.ToUserID == placeholderID {
		next.ToUserID, next.ToUserName = user.UserID, user.Name
	}
	if next.FromUserID == next.ToUserID {
		return conflictf("%s and the placeholder %s are the two sides of a settlement of %s %s: mark it FAILED, then claim again",
			user.Name, ph.Name, st.Amount.String(), st.Amount.Currency().Code())
	}
	av, err := attributevalue.MarshalMap(next.record())
	if err != nil {
		return fmt.Errorf("encode settlement: %w", err)
	}
	items := []types.TransactWriteItem{{Put: &types.Put{
		TableName: &s.table, Item: av,
		ConditionExpression:       aws.String(settlementUnchanged),
		ExpressionAttributeNames:  map[string]string{"#status": attrStatus},
		ExpressionAttributeValues: map[string]types.AttributeValue{":current": str(string(st.Status))},
	}}}
	completed := st.Status == SettlementCompleted
	if completed {
		was, now := st.deltas(), next.deltas()
		for i := range was {
			d, err := was[i].Negate().Plus(now[i])
			if err != nil {
				return err
			}
			items = append(items, s.balancesUpdate(st.GroupID, d))
		}
	}
	changes := append(SettlementChanges(&st, &next), Change{Field: FieldClaimedBy, Before: text(personRef(ph.UserID, ph.Name)), After: text(personRef(user.UserID, user.Name))})
	ev := settlementEvent(EventSettlementUpdated, &next, user.UserID, s.stamp(), changes)
	err = s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
		l.requireMembers([]string{placeholderID, user.UserID})
		if completed {
			l.bumpVersion()
		}
		return items, nil
	})
	switch {
	case condFailedAt(err, 1):
		return conflictf("the settlement changed meanwhile")
	case condFailedAt(err, 0):
		return conflictf("%s or the placeholder %s is no longer in the group", user.Name, ph.Name)
	case err != nil:
		return fmt.Errorf("move settlement: %w", err)
	}
	return nil
}

// finishClaim ends the placeholder's membership once nothing names it and
// its balances are zero; false when something still does (the next round
// moves it).
func (s *Store) finishClaim(ctx context.Context, ph, claimer Member) (bool, error) {
	expenses, tombstones, err := s.expensesNaming(ctx, ph.GroupID, ph.UserID)
	if err != nil || len(expenses)+len(tombstones) > 0 {
		return false, err
	}
	settlements, err := s.settlementsToMove(ctx, ph, claimer)
	if err != nil || len(settlements) > 0 {
		return false, err
	}
	gb, err := s.readBalances(ctx, []string{ph.GroupID}, true) // as stored, not merged
	if err != nil {
		return false, err
	}
	if gb[0] == nil {
		return false, notFoundf("group %s", ph.GroupID)
	}
	var left []string
	for _, b := range gb[0].Books {
		if u := b.Users[ph.UserID]; u != nil && !u.IsZero() {
			left = append(left, b.Currency.Code())
		}
	}
	if len(left) > 0 {
		return false, fmt.Errorf("claim of %s: nothing names it but it still has balances in %s", ph.UserID, strings.Join(left, ", "))
	}
	now := formatTime(s.stamp())
	pk := groupPK(ph.GroupID)
	items := []types.TransactWriteItem{
		{Update: &types.Update{
			TableName: &s.table, Key: tableKey(pk, memberSK(ph.UserID)),
			UpdateExpression:          aws.String(placeholderLeave),
			ConditionExpression:       aws.String(memberCurrent + " AND " + attrClaimedBy + " = :user"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":now": str(now), ":user": str(claimer.UserID)},
		}},
		{Update: &types.Update{
			TableName: &s.table, Key: tableKey(pk, skMetadata),
			UpdateExpression:          aws.String("ADD " + attrMemberCount + " :minus"),
			ConditionExpression:       aws.String(condItemExists),
			ExpressionAttributeValues: map[string]types.AttributeValue{":minus": number(-1)},
		}},
	}
	ev := memberEvent(EventMemberLeft, ph.GroupID, ph.UserID, now, []Change{{Field: FieldClaimedBy, After: text(personRef(claimer.UserID, claimer.Name))}})
	ev.ActorID = claimer.UserID
	err = s.writeWithEvent(ctx, &ev, func(l *ledgerEdit) ([]types.TransactWriteItem, error) {
		l.requireMembers([]string{ph.UserID})
		l.removeMember(ph.UserID)
		l.del = append(l.del, attrClaims+" "+l.value(stringSet(claimEntry(ph.UserID, claimer.UserID))))
		l.atVersion(gb[0].Version)
		l.bumpVersion()
		return items, nil
	})
	switch {
	case condFailedAt(err, 0):
		return false, nil // the balances moved meanwhile: look again
	case condFailedAt(err, 1):
		return false, conflictf("the placeholder changed meanwhile")
	case err != nil:
		return false, fmt.Errorf("finish claim: %w", err)
	}
	return true, nil
}
