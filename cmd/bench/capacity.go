package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// indexKeys are the table's global secondary indexes and their key
// attributes (seed 000: three, projecting ALL).
var indexKeys = [][2]string{{"GSI1PK", "GSI1SK"}, {"GSI2PK", "GSI2SK"}, {"GSI3PK", "GSI3SK"}}

// usage is what the requests served under one context consumed: the
// capacity DynamoDB reported (ReturnConsumedCapacity INDEXES), and every item
// they wrote with what it costs by AWS's published rules.
//
// Both are kept because DynamoDB Local reports a transaction's write
// capacity for the transaction as a whole rather than item by item (9 items
// of under 1 KB report 6 units on the table, where AWS charges 2 per item),
// while its reads and single-item writes follow the rules.
type usage struct {
	mu sync.Mutex
	// reportedRead and reportedWrite are DynamoDB's ConsumedCapacity of the
	// read and write operations, table and indexes together.
	reportedRead, reportedWrite float64
	items                       []itemCost
}

// itemCost is one item one write touched and the write units it costs.
type itemCost struct {
	op       string // Put, Update, Delete or ConditionCheck
	kind     string // the sort key up to its first separator: TX#…, PART#…, LEDGER, …
	size     int    // bytes, the larger of the item before and after
	table    float64
	index    float64 // every global secondary index together
	transact bool
	// stored is the bytes the write adds to what the table stores (a new
	// item: its size and 100 bytes of overhead, in the table and in each
	// index that holds it).
	stored int
}

// units is the write units of the item on the table and its indexes.
func (c itemCost) units() float64 { return c.table + c.index }

// writeUnits is what everything usage saw written costs by the rules.
func (u *usage) writeUnits() float64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	var sum float64
	for _, c := range u.items {
		sum += c.units()
	}
	return sum
}

type usageKey struct{}

// withUsage measures the capacity of the calls made under the returned context into u.
func withUsage(ctx context.Context, u *usage) context.Context {
	return context.WithValue(ctx, usageKey{}, u)
}

// meter is the client option that measures capacity for requests whose
// context carries a usage; images reads the items before and after each
// write (consistently, and through a client the meter is not installed on).
type meter struct {
	images *dynamodb.Client
	table  string
}

// option installs the meter on a client.
func (m *meter) option() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Initialize.Add(middleware.InitializeMiddlewareFunc("MeasureCapacity", m.measure), middleware.After)
		})
	}
}

func (m *meter) measure(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	u, _ := ctx.Value(usageKey{}).(*usage)
	if u == nil {
		return next.HandleInitialize(ctx, in)
	}
	in.Parameters = askIndexes(in.Parameters)
	writes := writtenItems(in.Parameters)
	before, err := m.read(ctx, writes)
	if err != nil {
		return middleware.InitializeOutput{}, middleware.Metadata{}, err
	}
	out, md, err := next.HandleInitialize(ctx, in)
	if err != nil {
		return out, md, err
	}
	after, err := m.read(ctx, writes)
	if err != nil {
		return out, md, err
	}
	read, write := reported(out.Result)
	u.mu.Lock()
	defer u.mu.Unlock()
	u.reportedRead += read
	u.reportedWrite += write
	for _, w := range writes {
		k := w.keyString()
		u.items = append(u.items, w.cost(before[k], after[k]))
	}
	return out, md, nil
}

// written is one item a write operation touches.
type written struct {
	op       string
	key      item
	transact bool
}

// keyString identifies the item.
func (w written) keyString() string {
	return stringAttr(w.key, "PK") + "\x00" + stringAttr(w.key, "SK")
}

// kind is the item's sort key up to its first separator ("TX#…").
func (w written) kind() string {
	sk := stringAttr(w.key, "SK")
	if i := strings.IndexAny(sk, "#!"); i > 0 {
		return sk[:i+1] + "…"
	}
	return sk
}

// cost is what writing the item costs by AWS's rules, given what it was
// before and after (nil where it did not exist): on the table, one unit per
// started KB of the larger of the two, twice in a transaction (a condition
// check included, as a write); on each index, the change to the index's
// entry (with projection ALL, the whole item): nothing when it is the same,
// the larger one in place, both when its key moved.
func (w written) cost(before, after item) itemCost {
	c := itemCost{op: w.op, kind: w.kind(), transact: w.transact}
	b, a := itemSize(before), itemSize(after)
	c.size = max(b, a)
	factor := 1.0
	if w.transact {
		factor = 2
	}
	c.table = factor * writeUnits(c.size)
	if w.op == "ConditionCheck" {
		return c
	}
	for _, keys := range indexKeys {
		c.index += indexUnits(before, after, keys)
		if before == nil && inIndex(after, keys) {
			c.stored += itemSize(after) + storageOverhead
		}
	}
	if before == nil && after != nil {
		c.stored += itemSize(after) + storageOverhead
	}
	return c
}

// storageOverhead is what DynamoDB adds to each item it stores, in the
// table and in every index, for billing.
const storageOverhead = 100

// indexUnits is what a write costs one index with projection ALL.
func indexUnits(before, after item, keys [2]string) float64 {
	inBefore, inAfter := inIndex(before, keys), inIndex(after, keys)
	switch {
	case !inBefore && !inAfter:
		return 0
	case !inBefore:
		return writeUnits(itemSize(after))
	case !inAfter:
		return writeUnits(itemSize(before))
	case stringAttr(before, keys[0]) != stringAttr(after, keys[0]) || stringAttr(before, keys[1]) != stringAttr(after, keys[1]):
		return writeUnits(itemSize(before)) + writeUnits(itemSize(after))
	case sameItem(before, after):
		return 0
	}
	return max(writeUnits(itemSize(before)), writeUnits(itemSize(after)))
}

// inIndex reports whether the item has both of an index's keys.
func inIndex(it item, keys [2]string) bool {
	return it != nil && stringAttr(it, keys[0]) != "" && stringAttr(it, keys[1]) != ""
}

// sameItem reports whether two items hold the same attributes and values.
func sameItem(a, b item) bool {
	if len(a) != len(b) {
		return false
	}
	for name, v := range a {
		w, ok := b[name]
		if !ok || !sameValue(v, w) {
			return false
		}
	}
	return true
}

// sameValue compares two attribute values by their content.
func sameValue(a, b types.AttributeValue) bool {
	switch x := a.(type) {
	case *types.AttributeValueMemberS:
		y, ok := b.(*types.AttributeValueMemberS)
		return ok && x.Value == y.Value
	case *types.AttributeValueMemberN:
		y, ok := b.(*types.AttributeValueMemberN)
		return ok && x.Value == y.Value
	case *types.AttributeValueMemberSS:
		y, ok := b.(*types.AttributeValueMemberSS)
		return ok && slices.Equal(x.Value, y.Value)
	case *types.AttributeValueMemberM:
		y, ok := b.(*types.AttributeValueMemberM)
		return ok && sameItem(x.Value, y.Value)
	case *types.AttributeValueMemberL:
		y, ok := b.(*types.AttributeValueMemberL)
		if !ok || len(x.Value) != len(y.Value) {
			return false
		}
		for i := range x.Value {
			if !sameValue(x.Value[i], y.Value[i]) {
				return false
			}
		}
		return true
	}
	return fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b) // BOOL, NULL, binary and number sets: rare here
}

// writeUnits is the write units of an item of size bytes: one per started KB.
func writeUnits(size int) float64 { return max(1, math.Ceil(float64(size)/1024)) }

// itemSize is an item's size as DynamoDB counts it: each attribute's name
// and value in UTF-8 bytes; a number one byte per two significant digits and
// one more; a list or map 3 bytes, and 1 per element besides its own size
// (a map's element with its name). 0 for no item.
func itemSize(it item) int {
	n := 0
	for name, v := range it {
		n += len(name) + valueSize(v)
	}
	return n
}

// valueSize is the size of one attribute value.
func valueSize(v types.AttributeValue) int {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return len(x.Value)
	case *types.AttributeValueMemberN:
		return numberSize(x.Value)
	case *types.AttributeValueMemberB:
		return len(x.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range x.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range x.Value {
			n += numberSize(s)
		}
		return n
	case *types.AttributeValueMemberBS:
		n := 0
		for _, b := range x.Value {
			n += len(b)
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range x.Value {
			n += 1 + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for name, e := range x.Value {
			n += 1 + len(name) + valueSize(e)
		}
		return n
	}
	return 0
}

// numberSize is a number's size: its significant digits (leading and
// trailing zeros trimmed), one byte per two, and one more.
func numberSize(s string) int {
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, strings.SplitN(strings.ToLower(s), "e", 2)[0])
	digits = strings.Trim(digits, "0")
	return (len(digits)+1)/2 + 1
}

// read reads the items the writes touch, consistently, by key.
func (m *meter) read(ctx context.Context, writes []written) (map[string]item, error) {
	got := map[string]item{}
	seen := map[string]bool{}
	var keys []item
	for _, w := range writes {
		if k := w.keyString(); !seen[k] {
			seen[k] = true
			keys = append(keys, key(stringAttr(w.key, "PK"), stringAttr(w.key, "SK")))
		}
	}
	for start := 0; start < len(keys); start += 100 {
		req := map[string]types.KeysAndAttributes{m.table: {Keys: keys[start:min(start+100, len(keys))], ConsistentRead: ptr(true)}}
		for len(req) > 0 {
			out, err := m.images.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
			if err != nil {
				return nil, fmt.Errorf("read the written items: %w", err)
			}
			for _, it := range out.Responses[m.table] {
				got[stringAttr(it, "PK")+"\x00"+stringAttr(it, "SK")] = it
			}
			req = out.UnprocessedKeys
		}
	}
	return got, nil
}

// writtenItems lists the items a write operation touches (none for a read).
func writtenItems(params any) []written {
	var out []written
	switch in := params.(type) {
	case *dynamodb.TransactWriteItemsInput:
		for _, t := range in.TransactItems {
			switch {
			case t.Put != nil:
				out = append(out, written{"Put", t.Put.Item, true})
			case t.Update != nil:
				out = append(out, written{"Update", t.Update.Key, true})
			case t.Delete != nil:
				out = append(out, written{"Delete", t.Delete.Key, true})
			case t.ConditionCheck != nil:
				out = append(out, written{"ConditionCheck", t.ConditionCheck.Key, true})
			}
		}
	case *dynamodb.PutItemInput:
		out = append(out, written{"Put", in.Item, false})
	case *dynamodb.UpdateItemInput:
		out = append(out, written{"Update", in.Key, false})
	case *dynamodb.DeleteItemInput:
		out = append(out, written{"Delete", in.Key, false})
	case *dynamodb.BatchWriteItemInput:
		for _, reqs := range in.RequestItems {
			for _, r := range reqs {
				if r.PutRequest != nil {
					out = append(out, written{"Put", r.PutRequest.Item, false})
				} else if r.DeleteRequest != nil {
					out = append(out, written{"Delete", r.DeleteRequest.Key, false})
				}
			}
		}
	}
	return out
}

// askIndexes is a copy of an operation's input asking for its consumed
// capacity by table and index (the caller's input stays as it was).
func askIndexes(params any) any {
	switch in := params.(type) {
	case *dynamodb.GetItemInput:
		return ask(in, func(c *dynamodb.GetItemInput) *types.ReturnConsumedCapacity { return &c.ReturnConsumedCapacity })
	case *dynamodb.QueryInput:
		return ask(in, func(c *dynamodb.QueryInput) *types.ReturnConsumedCapacity { return &c.ReturnConsumedCapacity })
	case *dynamodb.ScanInput:
		return ask(in, func(c *dynamodb.ScanInput) *types.ReturnConsumedCapacity { return &c.ReturnConsumedCapacity })
	case *dynamodb.BatchGetItemInput:
		return ask(in, func(c *dynamodb.BatchGetItemInput) *types.ReturnConsumedCapacity { return &c.ReturnConsumedCapacity })
	case *dynamodb.TransactGetItemsInput:
		return ask(in, func(c *dynamodb.TransactGetItemsInput) *types.ReturnConsumedCapacity {
			return &c.ReturnConsumedCapacity
		})
	case *dynamodb.PutItemInput:
		return ask(in, func(c *dynamodb.PutItemInput) *types.ReturnConsumedCapacity { return &c.ReturnConsumedCapacity })
	case *dynamodb.UpdateItemInput:
		return ask(in, func(c *dynamodb.UpdateItemInput) *types.ReturnConsumedCapacity { return &c.ReturnConsumedCapacity })
	case *dynamodb.DeleteItemInput:
		return ask(in, func(c *dynamodb.DeleteItemInput) *types.ReturnConsumedCapacity { return &c.ReturnConsumedCapacity })
	case *dynamodb.BatchWriteItemInput:
		return ask(in, func(c *dynamodb.BatchWriteItemInput) *types.ReturnConsumedCapacity { return &c.ReturnConsumedCapacity })
	case *dynamodb.TransactWriteItemsInput:
		return ask(in, func(c *dynamodb.TransactWriteItemsInput) *types.ReturnConsumedCapacity {
			return &c.ReturnConsumedCapacity
		})
	}
	return params
}

// ask is a copy of in with ReturnConsumedCapacity INDEXES.
func ask[T any](in *T, field func(*T) *types.ReturnConsumedCapacity) any {
	c := *in
	*field(&c) = types.ReturnConsumedCapacityIndexes
	return &c
}

// reported is the read and the write capacity an operation's output reports.
func reported(result any) (read, write float64) {
	var list []types.ConsumedCapacity
	isWrite := false
	switch out := result.(type) {
	case *dynamodb.GetItemOutput:
		list = one(out.ConsumedCapacity)
	case *dynamodb.QueryOutput:
		list = one(out.ConsumedCapacity)
	case *dynamodb.ScanOutput:
		list = one(out.ConsumedCapacity)
	case *dynamodb.BatchGetItemOutput:
		list = out.ConsumedCapacity
	case *dynamodb.TransactGetItemsOutput:
		list = out.ConsumedCapacity
	case *dynamodb.PutItemOutput:
		list, isWrite = one(out.ConsumedCapacity), true
	case *dynamodb.UpdateItemOutput:
		list, isWrite = one(out.ConsumedCapacity), true
	case *dynamodb.DeleteItemOutput:
		list, isWrite = one(out.ConsumedCapacity), true
	case *dynamodb.BatchWriteItemOutput:
		list, isWrite = out.ConsumedCapacity, true
	case *dynamodb.TransactWriteItemsOutput:
		list, isWrite = out.ConsumedCapacity, true
	}
	var sum float64
	for _, c := range list {
		if c.CapacityUnits != nil {
			sum += *c.CapacityUnits
		}
	}
	if isWrite {
		return 0, sum
	}
	return sum, 0
}

// one is a single consumed capacity as a list (none for nil).
func one(c *types.ConsumedCapacity) []types.ConsumedCapacity {
	if c == nil {
		return nil
	}
	return []types.ConsumedCapacity{*c}
}

// ptr is a pointer to v.
func ptr[T any](v T) *T { return &v }

// capacity is what one request of a screen consumes, on average over the
// counted runs.
type capacity struct {
	readUnits     float64 // read units, as DynamoDB reports them
	writeUnits    float64 // write units, by the rules, item by item
	reportedWrite float64 // write units, as DynamoDB (Local) reports them
	itemsWritten  float64
	stored        float64    // bytes added to storage
	items         []itemCost // the items of the last run, for the breakdown
}

// add adds one run's usage, of runs.
func (c *capacity) add(u *usage, runs int) {
	u.mu.Lock()
	items := u.items
	read, write := u.reportedRead, u.reportedWrite
	u.mu.Unlock()
	n := float64(runs)
	c.readUnits += read / n
	c.reportedWrite += write / n
	c.itemsWritten += float64(len(items)) / n
	c.writeUnits += u.writeUnits() / n
	for _, it := range items {
		c.stored += float64(it.stored) / n
	}
	c.items = items
}
