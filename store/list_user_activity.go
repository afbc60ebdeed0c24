package store

import (
	"context"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// Activity is one entry of a user's timeline: exactly one of its fields is set.
type Activity struct {
	Expense    *Expense
	Settlement *Settlement
}

// ListUserActivity pages through everything the user paid, expenses and
// settlements interleaved, newest first (access pattern 13: GSI3PK =
// USER#<id>). Under one partition key the TX# and SETTLE# items sort by type
// before time, so the two kinds are read as two newest-first streams and
// merged by time; a cursor holds the position in each stream.
func (s *Store) ListUserActivity(ctx context.Context, userID string, args PageArgs) (Page[Activity], error) {
	first := min(max(args.First, 0), MaxPageSize)
	streams := []listQuery{s.userActivityQuery(ctx, userID, prefixTx), s.userActivityQuery(ctx, userID, prefixSettle)}
	list := "activity:" + userID
	positions := make([]map[string]string, len(streams))
	if args.After != "" {
		keys, err := s.cursors.decode(list, args.After, len(streams))
		if err != nil {
			return Page[Activity]{}, err
		}
		positions = keys
	}

	// Read up to first+1 items of each stream, both at once: enough for the
	// page whatever the mix.
	starts := make([]map[string]types.AttributeValue, len(streams))
	for i, q := range streams {
		if len(positions[i]) > 0 {
			var err error
			if starts[i], err = startKey(positions[i], q.keys); err != nil {
				return Page[Activity]{}, err
			}
		}
	}
	heads := make([][]map[string]types.AttributeValue, len(streams))
	g, gctx := errgroup.WithContext(ctx)
	for i, q := range streams {
		g.Go(func() error {
			var err error
			heads[i], err = s.collect(gctx, q, starts[i], first+1)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return Page[Activity]{}, err
	}

	var page Page[Activity]
	var picked []map[string]types.AttributeValue
	page.HasPrevious = args.After != ""
	next := make([]int, len(streams))
	for {
		// Pick the newest head; ties cannot happen, ids differ.
		pick := -1
		for i := range streams {
			if next[i] < len(heads[i]) && (pick < 0 || activityOrder(heads[i][next[i]]) > activityOrder(heads[pick][next[pick]])) {
				pick = i
			}
		}
		if pick < 0 {
			break
		}
		if len(picked) == first {
			page.HasNext = true
			break
		}
		item := heads[pick][next[pick]]
		next[pick]++
		positions[pick] = keyOf(item, streams[pick].keys)
		picked = append(picked, item)
		page.Cursors = append(page.Cursors, s.cursors.at(list, slices.Clone(positions)...))
	}
	return page, s.decodeActivities(ctx, picked, &page)
}

// decodeActivities fills the page with the picked items, expenses (read in
// one batch where the item is another payer's record) and settlements.
func (s *Store) decodeActivities(ctx context.Context, items []map[string]types.AttributeValue, page *Page[Activity]) error {
	var txItems []map[string]types.AttributeValue
	var txAt []int
	page.Items = make([]Activity, len(items))
	for i, it := range items {
		if isExpenseSK(keyAttr(it, attrGSI3SK)) {
			txItems, txAt = append(txItems, it), append(txAt, i)
			continue
		}
		sts, err := decodeAll([]map[string]types.AttributeValue{it}, (*settlementRecord).settlement)
		if err != nil {
			return err
		}
		page.Items[i] = Activity{Settlement: &sts[0]}
	}
	expenses, err := s.expensesOf(ctx, txItems)
	if err != nil {
		return err
	}
	for j, e := range expenses {
		page.Items[txAt[j]] = Activity{Expense: e}
	}
	// An expense deleted between the two reads drops out with its cursor.
	kept := 0
	for i, a := range page.Items {
		if a.Expense != nil || a.Settlement != nil {
			page.Items[kept], page.Cursors[kept] = a, page.Cursors[i]
			kept++
		}
	}
	page.Items, page.Cursors = page.Items[:kept], page.Cursors[:kept]
	return nil
}

// activityOrder orders the timeline by the activity's GSI3 sort key.
func activityOrder(item map[string]types.AttributeValue) string {
	return timelineOrder(keyAttr(item, attrGSI3SK))
}
