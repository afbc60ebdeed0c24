package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"golang.org/x/sync/errgroup"
)

// rawClient is the baseline: the reads a hand-written backend would make for
// each screen with the bare SDK, independent calls sent at once, items
// decoded into generic maps and marshalled to JSON (the least that serving
// them takes). It knows the key layout of store/keys.go by heart, which is
// exactly what the store exists to avoid; that is fine for a yardstick.
type rawClient struct {
	db    *dynamodb.Client
	table string
	user  string
	calls *dynamotest.Counter
	// booksPrefix is the sort-key prefix of a group's per-currency books:
	// "LEDGER#" in the new layout, "BALANCES#" in the old one.
	booksPrefix string
}

// Item attributes the raw client follows from one read to the next.
const (
	rawAttrCurrencies = "currencies" // the ledger's string set of currencies
	rawAttrPayerID    = "payerId"    // an OWES item's payer
)

// item is one raw item as the SDK returns it.
type item = map[string]types.AttributeValue

// group reads the group screen in one wave: the ledger, the books and the
// metadata (a range of sort keys), the newest 21 expenses, and every
// membership.
func (r *rawClient) group(ctx context.Context, groupID string) error {
	pk := "GROUP#" + groupID
	queries := []*dynamodb.QueryInput{
		r.query(pk, "SK BETWEEN :a AND :b", ":a", "LEDGER", ":b", "METADATA"),
		r.limit(r.desc(r.query(pk, "begins_with(SK, :p)", ":p", "TX#")), 21),
		r.query(pk, "begins_with(SK, :p)", ":p", "USER#"),
	}
	if r.booksPrefix != "LEDGER#" {
		// The old layout keeps the books outside the LEDGER..METADATA range.
		queries = append(queries, r.query(pk, "begins_with(SK, :p)", ":p", r.booksPrefix))
	}
	results := make([][]item, len(queries))
	g, gctx := errgroup.WithContext(ctx)
	for i, q := range queries {
		g.Go(func() (err error) {
			results[i], err = r.queryAll(gctx, q, q.Limit == nil)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if len(results[0]) < 2 || len(results[1]) == 0 || len(results[2]) == 0 {
		return fmt.Errorf("group %s: missing items (%d ledger/metadata, %d expenses, %d members)", groupID, len(results[0]), len(results[1]), len(results[2]))
	}
	return serve(results...)
}

// home reads the home screen in three waves: the viewer's memberships and
// their newest expenses and settlements; then every group's metadata and
// ledger; then the books of the currencies each ledger names.
func (r *rawClient) home(ctx context.Context) error {
	u := "USER#" + r.user
	var memberships, expenses, settlements []item
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		memberships, err = r.queryAll(gctx, r.index("GSI1", "GSI1PK = :pk AND begins_with(GSI1SK, :p)", ":pk", u, ":p", "GROUP#"), true)
		return err
	})
	g.Go(func() (err error) {
		expenses, err = r.queryAll(gctx, r.limit(r.desc(r.index("GSI3", "GSI3PK = :pk AND begins_with(GSI3SK, :p)", ":pk", u, ":p", "TX#")), 21), false)
		return err
	})
	g.Go(func() (err error) {
		settlements, err = r.queryAll(gctx, r.limit(r.desc(r.index("GSI3", "GSI3PK = :pk AND begins_with(GSI3SK, :p)", ":pk", u, ":p", "SETTLE#")), 21), false)
		return err
	})
	if err := g.Wait(); err != nil {
		return err
	}
	var keys []item
	for _, m := range memberships {
		pk := stringAttr(m, "PK")
		keys = append(keys, key(pk, "METADATA"), key(pk, "LEDGER"))
	}
	groups, err := r.batchGet(ctx, keys)
	if err != nil {
		return err
	}
	var bookKeys []item
	for _, it := range groups {
		if stringAttr(it, "SK") != "LEDGER" {
			continue
		}
		if set, ok := it[rawAttrCurrencies].(*types.AttributeValueMemberSS); ok {
			for _, cur := range set.Value {
				bookKeys = append(bookKeys, key(stringAttr(it, "PK"), r.booksPrefix+cur))
			}
		}
	}
	books, err := r.batchGet(ctx, bookKeys)
	if err != nil {
		return err
	}
	if len(memberships) == 0 || len(books) == 0 {
		return fmt.Errorf("home: %d memberships, %d books", len(memberships), len(books))
	}
	return serve(memberships, expenses, settlements, groups, books)
}

// owes reads the owes screen in two waves: the viewer's newest 51 shares
// and memberships; then the metadata of the groups those shares are in and
// the memberships of their payers (for names), in one batch.
func (r *rawClient) owes(ctx context.Context) error {
	u := "USER#" + r.user
	var shares, memberships []item
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		shares, err = r.queryAll(gctx, r.limit(r.desc(r.index("GSI1", "GSI1PK = :pk AND begins_with(GSI1SK, :p)", ":pk", u, ":p", "OWES#")), 51), false)
		return err
	})
	g.Go(func() (err error) {
		memberships, err = r.queryAll(gctx, r.index("GSI1", "GSI1PK = :pk AND begins_with(GSI1SK, :p)", ":pk", u, ":p", "GROUP#"), true)
		return err
	})
	if err := g.Wait(); err != nil {
		return err
	}
	// Shares only of groups the viewer is still in, as the API shows them.
	member := map[string]bool{}
	for _, m := range memberships {
		member[stringAttr(m, "PK")] = true
	}
	seen := map[string]bool{}
	var keys []item
	add := func(pk, sk string) {
		if !seen[pk+"|"+sk] {
			seen[pk+"|"+sk] = true
			keys = append(keys, key(pk, sk))
		}
	}
	for _, s := range shares {
		pk := stringAttr(s, "PK")
		if !member[pk] {
			continue
		}
		add(pk, "METADATA")
		add(pk, "USER#"+stringAttr(s, rawAttrPayerID))
	}
	related, err := r.batchGet(ctx, keys)
	if err != nil {
		return err
	}
	if len(shares) == 0 || len(related) == 0 {
		return fmt.Errorf("owes: %d shares, %d groups and payers", len(shares), len(related))
	}
	return serve(shares, related)
}

// byID reads each expense through GSI2, all at once.
func (r *rawClient) byID(ctx context.Context, ids []string) error {
	results := make([][]item, len(ids))
	g, gctx := errgroup.WithContext(ctx)
	for i, id := range ids {
		g.Go(func() (err error) {
			q := r.limit(r.index("GSI2", "GSI2PK = :pk", ":pk", "EXPENSE#"+id), 1)
			results[i], err = r.queryAll(gctx, q, false)
			if err == nil && len(results[i]) == 0 {
				err = fmt.Errorf("expense %s not found", id)
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return serve(results...)
}

// query is a Query on the table's partition pk with a sort-key condition
// and its values (name, value pairs).
func (r *rawClient) query(pk, skCond string, values ...string) *dynamodb.QueryInput {
	q := r.index("", "PK = :pk AND "+skCond, append([]string{":pk", pk}, values...)...)
	return q
}

// index is a Query with a key condition and its values (name, value pairs);
// index "" is the table.
func (r *rawClient) index(index, cond string, values ...string) *dynamodb.QueryInput {
	vals := make(map[string]types.AttributeValue, len(values)/2)
	for i := 0; i+1 < len(values); i += 2 {
		vals[values[i]] = &types.AttributeValueMemberS{Value: values[i+1]}
	}
	q := &dynamodb.QueryInput{TableName: &r.table, KeyConditionExpression: &cond, ExpressionAttributeValues: vals}
	if index != "" {
		q.IndexName = aws.String(index)
	}
	return q
}

// desc reads newest first.
func (r *rawClient) desc(q *dynamodb.QueryInput) *dynamodb.QueryInput {
	q.ScanIndexForward = aws.Bool(false)
	return q
}

// limit reads at most n items.
func (r *rawClient) limit(q *dynamodb.QueryInput, n int32) *dynamodb.QueryInput {
	q.Limit = aws.Int32(n)
	return q
}

// queryAll runs the query, following pages when all is set (a bounded
// query stops at its first page, as a paginated screen does).
func (r *rawClient) queryAll(ctx context.Context, q *dynamodb.QueryInput, all bool) ([]item, error) {
	in := *q
	var items []item
	for {
		out, err := r.db.Query(ctx, &in)
		if err != nil {
			return nil, err
		}
		items = append(items, out.Items...)
		if !all || len(out.LastEvaluatedKey) == 0 {
			return items, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// batchGet reads the keys with BatchGetItem, 100 at a time (the API's
// limit; the chunks go out together), retrying unprocessed keys.
func (r *rawClient) batchGet(ctx context.Context, keys []item) ([]item, error) {
	var mu sync.Mutex
	var items []item
	g, gctx := errgroup.WithContext(ctx)
	for start := 0; start < len(keys); start += 100 {
		chunk := keys[start:min(start+100, len(keys))]
		g.Go(func() error {
			req := map[string]types.KeysAndAttributes{r.table: {Keys: chunk}}
			for tries := 0; len(req) > 0; tries++ {
				if tries == 10 {
					return errors.New("BatchGetItem: keys still unprocessed after 10 tries")
				}
				out, err := r.db.BatchGetItem(gctx, &dynamodb.BatchGetItemInput{RequestItems: req})
				if err != nil {
					return err
				}
				mu.Lock()
				items = append(items, out.Responses[r.table]...)
				mu.Unlock()
				req = out.UnprocessedKeys
			}
			return nil
		})
	}
	return items, g.Wait()
}

// serve is the minimal equivalent of answering: decode every item into
// generic values and marshal the lot to JSON.
func serve(lists ...[]item) error {
	decoded := make([][]map[string]any, len(lists))
	for i, l := range lists {
		if err := attributevalue.UnmarshalListOfMaps(l, &decoded[i]); err != nil {
			return err
		}
	}
	_, err := json.Marshal(decoded)
	return err
}

// key is a table key.
func key(pk, sk string) item {
	return item{"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk}}
}

// stringAttr is a string attribute of an item, "" if it has none.
func stringAttr(it item, name string) string {
	if v, ok := it[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// detectBooksPrefix finds where this version of the store keeps a group's
// per-currency books: the store is moving them from BALANCES#<currency> to
// LEDGER#<currency>, and the baseline must read what is actually there.
func detectBooksPrefix(ctx context.Context, db *dynamodb.Client, table, groupID string) (string, error) {
	for _, prefix := range []string{"LEDGER#", "BALANCES#"} {
		out, err := db.Query(ctx, &dynamodb.QueryInput{
			TableName:              &table,
			KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :p)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":pk": &types.AttributeValueMemberS{Value: "GROUP#" + groupID},
				":p":  &types.AttributeValueMemberS{Value: prefix},
			},
			Limit: aws.Int32(1),
		})
		if err != nil {
			return "", err
		}
		if len(out.Items) > 0 {
			return prefix, nil
		}
	}
	return "", fmt.Errorf("group %s has no per-currency books under LEDGER# or BALANCES#: has the key layout changed? (see store/keys.go)", strings.TrimSpace(groupID))
}
