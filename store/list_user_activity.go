package store

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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
	streams := []listQuery{userActivityQuery(userID, prefixTx), userActivityQuery(userID, prefixSettle)}
	list := "activity:" + userID
	positions := make([]map[string]string, len(streams))
	if args.After != "" {
		keys, err := s.cursors.decode(list, args.After, len(streams))
		if err != nil {
			return Page[Activity]{}, err
		}
		positions = keys
	}

	// Read up to first+1 items of each stream: enough for the page whatever the mix.
	heads := make([][]map[string]types.AttributeValue, len(streams))
	for i, q := range streams {
		var start map[string]types.AttributeValue
		if len(positions[i]) > 0 {
			var err error
			if start, err = startKey(positions[i], q.keys); err != nil {
				return Page[Activity]{}, err
			}
		}
		items, err := s.collect(ctx, q, start, first+1)
		if err != nil {
			return Page[Activity]{}, err
		}
		heads[i] = items
	}

	var page Page[Activity]
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
		if len(page.Items) == first {
			page.HasNext = true
			break
		}
		item := heads[pick][next[pick]]
		next[pick]++
		positions[pick] = keyOf(item, streams[pick].keys)
		a, err := decodeActivity(item, pick == 0)
		if err != nil {
			return Page[Activity]{}, err
		}
		page.Items = append(page.Items, a)
		page.Cursors = append(page.Cursors, s.cursors.encode(list, positions...))
	}
	return page, nil
}

// activityOrder is the part of an activity's GSI3 sort key that orders the
// timeline: "<createdAt>#<id>" after the TX# or SETTLE# prefix.
func activityOrder(item map[string]types.AttributeValue) string {
	sk, _ := item[attrGSI3SK].(*types.AttributeValueMemberS)
	if sk == nil {
		return ""
	}
	_, rest, _ := strings.Cut(sk.Value, "#")
	return rest
}

func decodeActivity(item map[string]types.AttributeValue, isExpense bool) (Activity, error) {
	one := []map[string]types.AttributeValue{item}
	if isExpense {
		es, err := decodeAll(one, (*expenseRecord).expense)
		if err != nil {
			return Activity{}, err
		}
		return Activity{Expense: &es[0]}, nil
	}
	sts, err := decodeAll(one, (*settlementRecord).settlement)
	if err != nil {
		return Activity{}, err
	}
	return Activity{Settlement: &sts[0]}, nil
}
