package graph

import (
	"context"

	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/store"
)

// eventSubject is the object a group event is about, as it is now, or nil
// when it is gone (an expense purged after its restore window, an invite
// purged after its expiry, a deleted recurring expense). The event
// belongs to a group the viewer sees, so its subject is visible too.
func eventSubject(ctx context.Context, ev *store.Event) (model.GroupEventSubject, error) {
	switch ev.Subject.Kind {
	case store.SubjectGroup:
		return nilIfHidden(group(ctx, ev.GroupID))
	case store.SubjectMember:
		return nilIfHidden(member(ctx, ev.GroupID, ev.Subject.ID))
	case store.SubjectExpense:
		ref, _ := ev.ExpenseRef()
		e, err := loaders.Expense(ctx, ref)
		if err == nil && e == nil {
			// Deleted since: its tombstone is found by id.
			e, err = loaders.Expense(ctx, store.ExpenseRef{ID: ref.ID})
		}
		return nilIfHidden(e, err)
	case store.SubjectSettlement:
		ref, _ := ev.SettlementRef()
		return nilIfHidden(loaders.Settlement(ctx, ref))
	case store.SubjectInvite:
		ref, _ := ev.InviteRef()
		inv, err := loaders.Invite(ctx, ref)
		if err != nil || inv == nil {
			return nil, err
		}
		return &model.Invite{Invite: *inv}, nil // never its secret: only createInvite's answer has that
	case store.SubjectRecurring:
		// Null once deleted: its occurrences stay, the recurring expense does not.
		return nilIfHidden(loaders.Series(ctx, store.SeriesKey{GroupID: ev.GroupID, SeriesID: ev.Subject.ID}))
	case store.SubjectComment:
		ref, _ := ev.CommentRef()
		return nilIfHidden(loaders.Comment(ctx, ref))
	}
	return nil, nil
}
