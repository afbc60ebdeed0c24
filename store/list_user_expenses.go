package store

import "context"

// ListUserExpenses pages through the expenses the user paid (alone or with
// others) in the groups they are in, newest first (access pattern 11).
func (s *Store) ListUserExpenses(ctx context.Context, userID string, args PageArgs) (Page[Expense], error) {
	items, cursors, hasNext, err := s.query(ctx, s.userActivityQuery(ctx, userID, prefixTx), args)
	if err != nil {
		return Page[Expense]{}, err
	}
	expenses, err := s.expensesOf(ctx, items)
	if err != nil {
		return Page[Expense]{}, err
	}
	page := Page[Expense]{HasNext: hasNext, HasPrevious: args.After != ""}
	for i, e := range expenses {
		if e != nil {
			page.Items, page.Cursors = append(page.Items, *e), append(page.Cursors, cursors[i])
		}
	}
	return page, nil
}
