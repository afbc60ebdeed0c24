package store

import (
	"context"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// What the lists of one user's items across groups share: the user's
// activity on GSI3, the filter that keeps only groups they are still in, and
// the expenses their entries stand for.

// userActivityQuery is one kind of the user's activity on GSI3, newest
// first, in the groups they are still in.
func (s *Store) userActivityQuery(ctx context.Context, userID, prefix string) listQuery {
	return listQuery{
		list:    "user-activity:" + prefix + userID,
		index:   indexGSI3,
		keyCond: gsi3PrefixCond,
		values:  prefixValues(userKey(userID), prefix),
		keys:    gsi3Keys,
		keep:    s.inCurrentGroups(ctx, userID),
	}
}

// CurrentGroupsFunc starts reading the ids of the groups a user is in now
// and returns what waits for them. A request's loaders provide one
// (WithCurrentGroups), so that every list of the request filters by one
// read made alongside its own, not by a read after each page.
type CurrentGroupsFunc func(ctx context.Context, userID string) func() ([]string, error)

type currentGroupsKey struct{}

// WithCurrentGroups makes the user lists read under ctx filter by f.
func WithCurrentGroups(ctx context.Context, f CurrentGroupsFunc) context.Context {
	return context.WithValue(ctx, currentGroupsKey{}, f)
}

// inCurrentGroups keeps the items (all in GROUP#<id> partitions) of groups
// the user is still a member of: what a group holds is for its members, and
// someone who left keeps no window into it. With a CurrentGroupsFunc on ctx,
// it starts that read now; without, it costs one BatchGetItem per page read.
func (s *Store) inCurrentGroups(ctx context.Context, userID string) func(context.Context, []map[string]types.AttributeValue) ([]bool, error) {
	if f, _ := ctx.Value(currentGroupsKey{}).(CurrentGroupsFunc); f != nil {
		wait := f(ctx, userID)
		return func(_ context.Context, items []map[string]types.AttributeValue) ([]bool, error) {
			ids, err := wait()
			if err != nil {
				return nil, err
			}
			keep := make([]bool, len(items))
			for i, it := range items {
				keep[i] = slices.Contains(ids, itemGroupID(it))
			}
			return keep, nil
		}
	}
	return func(ctx context.Context, items []map[string]types.AttributeValue) ([]bool, error) {
		var keys []MemberKey
		seen := map[string]bool{}
		for _, it := range items {
			g := itemGroupID(it)
			if !seen[g] {
				seen[g] = true
				keys = append(keys, MemberKey{GroupID: g, UserID: userID})
			}
		}
		members, err := s.GetMembers(ctx, keys)
		if err != nil {
			return nil, err
		}
		active := make(map[string]bool, len(keys))
		for i, m := range members {
			active[keys[i].GroupID] = m.Active()
		}
		keep := make([]bool, len(items))
		for i, it := range items {
			keep[i] = active[itemGroupID(it)]
		}
		return keep, nil
	}
}

// expensesOf turns a user's GSI3 TX# entries into expenses: an expense item
// is the expense (its main payer's entry); a participant record is another
// payer's entry, whose expense is then read by key, all in one batch.
func (s *Store) expensesOf(ctx context.Context, items []map[string]types.AttributeValue) ([]*Expense, error) {
	out := make([]*Expense, len(items))
	var refs []ExpenseRef
	var at []int
	for i, it := range items {
		if isExpenseSK(keyAttr(it, attrSK)) {
			es, err := decodeAll([]map[string]types.AttributeValue{it}, (*expenseRecord).expense)
			if err != nil {
				return nil, err
			}
			out[i] = &es[0]
			continue
		}
		shares, err := decodeAll([]map[string]types.AttributeValue{it}, (*participantRecord).share)
		if err != nil {
			return nil, err
		}
		refs, at = append(refs, shares[0].ExpenseRef()), append(at, i)
	}
	if len(refs) == 0 {
		return out, nil
	}
	found, err := s.GetExpenses(ctx, refs)
	if err != nil {
		return nil, err
	}
	for j, e := range found {
		out[at[j]] = e // nil only if deleted between the two reads
	}
	return out, nil
}
