package graph

import (
	"context"
	"fmt"
	"time"

	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/store"
)

// Visibility: every Group, Member, Expense, Settlement and Share a resolver
// returns has passed through one of these checks (or belongs to a group
// reached through one), so nested fields need not check again. A group the
// viewer is not in answers exactly like a group that does not exist.

// currentUser is the viewer as a User.
func currentUser(ctx context.Context) (*model.User, error) {
	id, err := viewer(ctx)
	if err != nil {
		return nil, err
	}
	return &model.User{ID: id.UserKey(), Name: id.Name, Username: nullable(id.Username)}, nil
}

// isMember reports whether the viewer belongs to the group now: someone who
// left sees it no more than someone who never joined, and nobody sees a
// deleted group (or anything of it) any more.
func isMember(ctx context.Context, groupID string) (bool, error) {
	g, err := visibleGroup(ctx, groupID)
	return g != nil, err
}

// visibleGroup is the group if it exists and the viewer is a member, else
// nil. A deleted group does not exist (the store reads it as missing).
func visibleGroup(ctx context.Context, groupID string) (*store.Group, error) {
	g, m, err := loaders.GroupAndMember(ctx, groupID, viewerID(ctx))
	if err != nil || !m.Active() {
		return nil, err
	}
	return g, nil
}

// visibleExpense is the expense if it exists and the viewer is in its group.
// A deleted expense exists until its restore window ends, though its
// tombstone may outlive it by the days TTL deletion lags.
func visibleExpense(ctx context.Context, ref store.ExpenseRef) (*store.Expense, error) {
	e, err := loaders.Expense(ctx, ref)
	if err != nil || e == nil {
		return nil, err
	}
	if e.DeletedAt != nil && !e.Restorable(time.Now()) {
		return nil, nil
	}
	if ok, err := isMember(ctx, e.GroupID); err != nil || !ok {
		return nil, err
	}
	return e, nil
}

// visibleSettlement is the settlement if it exists and the viewer is in its group.
func visibleSettlement(ctx context.Context, ref store.SettlementRef) (*store.Settlement, error) {
	st, err := loaders.Settlement(ctx, ref)
	if err != nil || st == nil {
		return nil, err
	}
	if ok, err := isMember(ctx, st.GroupID); err != nil || !ok {
		return nil, err
	}
	return st, nil
}

// expenseByID is the expense with this id if the viewer may see it.
func expenseByID(ctx context.Context, id string) (*store.Expense, error) {
	if !uuidPattern.MatchString(id) {
		return nil, nil
	}
	return visibleExpense(ctx, store.ExpenseRef{ID: id})
}

// settlementByID is the settlement with this id if the viewer may see it.
func settlementByID(ctx context.Context, id string) (*store.Settlement, error) {
	if !uuidPattern.MatchString(id) {
		return nil, nil
	}
	return visibleSettlement(ctx, store.SettlementRef{ID: id})
}

// group loads a group the viewer is known to see (it holds an object of it).
func group(ctx context.Context, groupID string) (*store.Group, error) {
	g, err := loaders.Group(ctx, groupID)
	if err == nil && g == nil {
		err = &internalError{fmt.Errorf("group %s is referenced but missing", groupID)}
	}
	return g, err
}

// memberIDFields are a Member's fields that its reference holds: asking
// only for them reads nothing (member, and the fast path's memberRef).
var memberIDFields = []string{"__typename", "id", "userId"}

// member loads a membership that an object of a visible group refers to
// (a payer, a beneficiary, a settlement's party), former members included.
// A reference asked only for the member's id reads nothing: the id is the
// group's and the user's, which the referring object holds.
func member(ctx context.Context, groupID, userID string) (*store.Member, error) {
	if !selectsBeyond(ctx, memberIDFields...) {
		return &store.Member{GroupID: groupID, UserID: userID}, nil
	}
	m, err := loaders.Member(ctx, groupID, userID)
	if err == nil && m == nil {
		err = missingMember(groupID, userID)
	}
	return m, err
}

// missingMember is the error of a member reference to nobody: the data is
// inconsistent, which the client cannot help.
func missingMember(groupID, userID string) error {
	return &internalError{fmt.Errorf("member %s of group %s is referenced but missing", userID, groupID)}
}

// optionalMember is member for a reference that may be unset: nil for "".
func optionalMember(ctx context.Context, groupID, userID string) (*store.Member, error) {
	if userID == "" {
		return nil, nil
	}
	return member(ctx, groupID, userID)
}

// nilIfHidden makes a typed nil pointer an untyped nil, which GraphQL
// renders as null where an abstract type (a Node, an event's subject) is
// expected: a typed nil inside an interface is not nil.
func nilIfHidden[T any](v *T, err error) (any, error) {
	if err != nil || v == nil {
		return nil, err
	}
	return v, nil
}

// currentExpense is the expense with this id if the viewer may see it, read
// again strongly consistent: a write must start from the latest version, and
// the lookup by id goes through an index that may lag behind. The consistent
// read goes out with the check that the viewer may see it.
func (r *Resolver) currentExpense(ctx context.Context, id string) (*store.Expense, error) {
	found, err := expenseByIDUnchecked(ctx, id)
	if err != nil || found == nil {
		return nil, err
	}
	type read struct {
		e   *store.Expense
		err error
	}
	current := make(chan read, 1)
	go func() {
		e, err := r.Store.CurrentExpense(ctx, found.Ref())
		current <- read{e, err}
	}()
	if e, err := visibleExpense(ctx, store.ExpenseRef{ID: id}); err != nil || e == nil {
		return nil, err
	}
	got := <-current
	return got.e, got.err
}

// expenseToEdit is currentExpense for an edit: the group and the
// memberships of the viewer, of the expense's users and of users (those the
// edit names) are read in the same call as the latest version (strongly
// consistent too), since the check and the edit read them next.
func (r *Resolver) expenseToEdit(ctx context.Context, id string, users []string) (*store.Expense, error) {
	found, err := expenseByIDUnchecked(ctx, id)
	if err != nil || found == nil {
		return nil, err
	}
	keys := loaders.GroupItemsToRead(ctx, found.GroupID, append(append([]string{viewerID(ctx)}, found.InvolvedUsers()...), users...))
	current, items, err := r.Store.CurrentExpenseWith(ctx, found.Ref(), keys)
	if err != nil {
		return nil, err
	}
	loaders.PrimeGroupItems(ctx, keys, items)
	if e, err := visibleExpense(ctx, store.ExpenseRef{ID: id}); err != nil || e == nil {
		return nil, err
	}
	return current, nil
}

// expenseByIDUnchecked is the expense with this id as the index has it,
// before any check of who may see it: only to start reads with that check.
func expenseByIDUnchecked(ctx context.Context, id string) (*store.Expense, error) {
	if !uuidPattern.MatchString(id) {
		return nil, nil
	}
	return loaders.Expense(ctx, store.ExpenseRef{ID: id})
}
