package graph

import (
	"context"
	"fmt"

	"github.com/fracti/api/loaders"
	"github.com/fracti/api/store"
)

// Visibility: every Group, Member, Expense, Settlement and Share a resolver
// returns has passed through one of these checks (or belongs to a group
// reached through one), so nested fields need not check again. A group the
// viewer is not in answers exactly like a group that does not exist.

// isMember reports whether the viewer belongs to the group now: someone who
// left sees it no more than someone who never joined.
func isMember(ctx context.Context, groupID string) (bool, error) {
	m, err := loaders.For(ctx).Members.Load(ctx, store.MemberKey{GroupID: groupID, UserID: viewerID(ctx)})()
	return m.Active(), err
}

// visibleGroup is the group if it exists and the viewer is a member, else nil.
func visibleGroup(ctx context.Context, groupID string) (*store.Group, error) {
	l := loaders.For(ctx)
	// Both loads start before either is awaited, so they share a batch window.
	member := l.Members.Load(ctx, store.MemberKey{GroupID: groupID, UserID: viewerID(ctx)})
	group := l.Groups.Load(ctx, groupID)
	m, err := member()
	if err != nil || !m.Active() {
		return nil, err
	}
	return group()
}

// visibleExpense is the expense if it exists and the viewer is in its group.
func visibleExpense(ctx context.Context, ref store.ExpenseRef) (*store.Expense, error) {
	e, err := loaders.For(ctx).Expenses.Load(ctx, ref)()
	if err != nil || e == nil {
		return nil, err
	}
	if ok, err := isMember(ctx, e.GroupID); err != nil || !ok {
		return nil, err
	}
	return e, nil
}

// visibleSettlement is the settlement if it exists and the viewer is in its group.
func visibleSettlement(ctx context.Context, ref store.SettlementRef) (*store.Settlement, error) {
	st, err := loaders.For(ctx).Settlements.Load(ctx, ref)()
	if err != nil || st == nil {
		return nil, err
	}
	if ok, err := isMember(ctx, st.GroupID); err != nil || !ok {
		return nil, err
	}
	return st, nil
}

// group loads a group the viewer is known to see (it holds an object of it).
func group(ctx context.Context, groupID string) (*store.Group, error) {
	g, err := loaders.For(ctx).Groups.Load(ctx, groupID)()
	if err == nil && g == nil {
		err = &internalError{fmt.Errorf("group %s is referenced but missing", groupID)}
	}
	return g, err
}

// member loads a membership that an object of a visible group refers to
// (a payer, a beneficiary, a settlement's party), former members included.
func member(ctx context.Context, groupID, userID string) (*store.Member, error) {
	m, err := loaders.For(ctx).Members.Load(ctx, store.MemberKey{GroupID: groupID, UserID: userID})()
	if err == nil && m == nil {
		err = &internalError{fmt.Errorf("member %s of group %s is referenced but missing", userID, groupID)}
	}
	return m, err
}
