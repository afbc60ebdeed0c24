package store

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/money"
)

// GroupChange is an update to a group; nil fields stay as they are.
type GroupChange struct {
	Title    *string
	Currency *money.Currency
	// JoinByIDAllowed sets whether anyone who knows the group's id may join without an invite.
	JoinByIDAllowed *bool
	// TimeZone is the IANA name the group's days are counted in from now on:
	// expenses keep the days they have until their spentAt is edited.
	TimeZone *string
	// WeeklyReminder turns the group's weekly reminder of debts on or off.
	WeeklyReminder *bool
	// AdminOnly is what needs an admin from now on (NormalizeAdminOnly'd).
	AdminOnly []Action
	// SimplifyDebts sets how the group's debts are shown by default.
	SimplifyDebts *bool
}

// UpdateGroup applies change to the group g (as read, at its version) by
// actor, on condition that it is still at g's version (a VersionConflict
// otherwise), with the GROUP_UPDATED event in the same transaction. A change
// that changes nothing returns g as it is. The group's title is read from
// this item wherever the API shows it, so a rename shows everywhere at once.
func (s *Store) UpdateGroup(ctx context.Context, g Group, change GroupChange, actor string) (Group, error) {
	next := g
	if change.Title != nil {
		next.Title = *change.Title
	}
	if change.Currency != nil {
		next.Currency = *change.Currency
	}
	set := []string{attrTitle + " = :title", attrCurrency + " = :currency", attrVersion + " = :next", attrFormatVersion + " = :format"}
	values := map[string]types.AttributeValue{
		":title": str(next.Title), ":currency": str(next.Currency.Code()),
		":v": number(int64(g.Version)), ":next": number(int64(next.Version + 1)), ":format": number(formatCurrent),
	}
	if change.JoinByIDAllowed != nil && (g.JoinByID == nil || *g.JoinByID != *change.JoinByIDAllowed) {
		// Written only when it changes, so that a rename leaves a group
		// created before the setting following Options.LegacyGroupsClosed.
		next.JoinByID = change.JoinByIDAllowed
		set = append(set, attrJoinByID+" = :joinById")
		values[":joinById"] = &types.AttributeValueMemberBOOL{Value: *change.JoinByIDAllowed}
	}
	var names map[string]string // timeZone is a reserved word
	if change.TimeZone != nil && *change.TimeZone != g.TimeZone {
		next.TimeZone = *change.TimeZone
		set = append(set, "#timeZone = :timeZone")
		values[":timeZone"], names = str(next.TimeZone), map[string]string{"#timeZone": attrTimeZone}
	}
	if change.WeeklyReminder != nil && *change.WeeklyReminder != g.WeeklyReminder {
		next.WeeklyReminder = *change.WeeklyReminder
		set = append(set, attrWeeklyReminder+" = :weekly")
		values[":weekly"] = &types.AttributeValueMemberBOOL{Value: next.WeeklyReminder}
	}
	if change.AdminOnly != nil && !slices.Equal(change.AdminOnly, g.AdminOnlyActions()) {
		next.AdminOnly = change.AdminOnly
		set = append(set, attrAdminOnly+" = :adminOnly")
		values[":adminOnly"] = str(adminOnlyText(next.AdminOnly))
	}
	if change.SimplifyDebts != nil && *change.SimplifyDebts != g.SimplifyDebts() {
		next.PairwiseDebts = !*change.SimplifyDebts
		set = append(set, attrSimplifyDebts+" = :simplify")
		values[":simplify"] = &types.AttributeValueMemberBOOL{Value: *change.SimplifyDebts}
	}
	changes := GroupChanges(&g, &next)
	if len(changes) == 0 {
		return g, nil
	}
	next.Version = g.Version + 1
	cond := attrVersion + " = :v"
	if g.Version == 1 {
		cond = "(" + attrNotExists(attrVersion) + " OR " + cond + ")"
	}
	update := &types.Update{
		TableName: &s.table, Key: tableKey(groupPK(g.ID), skMetadata),
		UpdateExpression:                    aws.String("SET " + strings.Join(set, ", ")),
		ConditionExpression:                 aws.String(condItemExists + " AND " + cond),
		ExpressionAttributeValues:           values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	update.ExpressionAttributeNames = names
	ev := Event{
		GroupID: g.ID, Type: EventGroupUpdated, ActorID: actor, At: s.stamp(),
		Subject: Subject{Kind: SubjectGroup, ID: g.ID}, Changes: changes,
	}
	items := []types.TransactWriteItem{{Update: update}}
	if next.WeeklyReminder != g.WeeklyReminder {
		// The weekly job's list follows the setting in the same
		// transaction (after the update: the indices below stay).
		entry, err := s.weeklyListEntry(g.ID, next.WeeklyReminder)
		if err != nil {
			return Group{}, err
		}
		items = append(items, entry)
	}
	err := s.writeWithEvent(ctx, &ev, func(*ledgerEdit) ([]types.TransactWriteItem, error) {
		return items, nil
	})
	switch {
	case condFailedAt(err, 1):
		old := oldItemAt(err, 1)
		if old == nil {
			return Group{}, notFoundf("group %s", g.ID)
		}
		gs, decodeErr := decodeAll([]map[string]types.AttributeValue{old}, (*groupRecord).group)
		if decodeErr != nil {
			return Group{}, decodeErr
		}
		return Group{}, &VersionConflict{What: "group", Current: gs[0].Version}
	case condFailedAt(err, 0):
		return Group{}, notFoundf("group %s", g.ID)
	case err != nil:
		return Group{}, fmt.Errorf("update group: %w", err)
	}
	return next, nil
}
