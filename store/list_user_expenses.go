package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ListUserExpenses pages through the expenses the user paid (alone or with
// others) in the groups they are in, newest first (access pattern 11).
func (s *Store) ListUserExpenses(ctx context.Context, userID string, args PageArgs) (Page[Expense], error) {
	items, cursors, hasNext, err := s.query(ctx, s.userActivityQuery(userID, prefixTx), args)
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

// userActivityQuery is one kind of the user's activity on GSI3, newest
// first, in the groups they are still in.
func (s *Store) userActivityQuery(userID, prefix string) listQuery {
	return listQuery{
		list:    "user-activity:" + prefix + userID,
		index:   indexGSI3,
		keyCond: "GSI3PK = :pk AND begins_with(GSI3SK, :prefix)",
		values:  map[string]types.AttributeValue{":pk": str(userKey(userID)), ":prefix": str(prefix)},
		keys:    gsi3Keys,
		keep:    s.inCurrentGroups(userID),
	}
}
