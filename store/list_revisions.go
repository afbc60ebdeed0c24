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
