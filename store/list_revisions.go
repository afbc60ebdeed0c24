package store

import "context"

// ListRevisions returns every revision of an expense, newest first (seed
// 003's versioned items: the newest version has the greatest sort key).
func (s *Store) ListRevisions(ctx context.Context, groupID, expenseID string) ([]Revision, error) {
	q := listQuery{
		list:    "revisions:" + expenseID,
		keyCond: tablePrefixCond,
		values:  prefixValues(groupPK(groupID), revisionSK(expenseID, 0)),
		keys:    tableKeys,
		// Read right after the write that added to it, by the writer.
		consistent: true,
	}
	var out []Revision
	err := eachPage(ctx, func(a PageArgs) (Page[Revision], error) {
		return listPage(ctx, s, q, a, (*revisionRecord).revision)
	}, func(r *Revision) { out = append(out, *r) })
	return out, err
}

// ListExpenseRevisions returns every revision of the expense e (as read),
// newest first: those stored, and its first, while it waits for the
// expense's first change (Expense.firstRevisionLater), made from e itself.
func (s *Store) ListExpenseRevisions(ctx context.Context, e *Expense) ([]Revision, error) {
	revs, err := s.ListRevisions(ctx, e.GroupID, e.ID)
	if err != nil || !e.firstRevisionLater || e.Version != 1 || len(revs) > 0 {
		return revs, err
	}
	first := createdRevision(e)
	first.raw = nil // as a stored revision reads back
	return []Revision{first}, nil
}
