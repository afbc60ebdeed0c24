package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// The raw side of a write screen replays, with the bare SDK, the very writes
// the server made: the same items with the same conditions, into a copy of
// each group the server wrote to, taken before it did. Every id in the copy
// and in the replayed writes is renamed consistently (group, expense,
// settlement, invite and comment ids, the activity chain's hashes), so that the copies never answer the server's lookups by id and
// every condition holds in the copy exactly as it held in the original.

// recording is the writes one server request made, in order.
type recording struct {
	mu     sync.Mutex
	writes []any // *dynamodb.TransactWriteItemsInput, *dynamodb.PutItemInput, …
}

type recordingKey struct{}

// withRecording records the writes made under the returned context into r.
func withRecording(ctx context.Context, r *recording) context.Context {
	return context.WithValue(ctx, recordingKey{}, r)
}

// recorderOption installs the recorder of writes on a client.
func recorderOption(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
		return st.Initialize.Add(middleware.InitializeMiddlewareFunc("RecordWrites",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleInitialize(ctx, in)
				if r, _ := ctx.Value(recordingKey{}).(*recording); r != nil && err == nil && len(writtenItems(in.Parameters)) > 0 {
					r.mu.Lock()
					r.writes = append(r.writes, in.Parameters)
					r.mu.Unlock()
				}
				return out, md, err
			}), middleware.Before)
	})
}

// renamable are the ids the renamer replaces: uuids, 64-digit hex hashes
// and 32-digit hex ids (comments'), the longest first.
var renamable = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{64}|[0-9a-f]{32}`)

// renamer gives every id it meets a fresh one of the same shape and length,
// always the same for the same id.
type renamer struct {
	mu sync.Mutex
	m  map[string]string
}

// newRenamer is a renamer that has met no id yet.
func newRenamer() *renamer { return &renamer{m: map[string]string{}} }

// id is the new name of one id.
func (r *renamer) id(old string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if v, ok := r.m[old]; ok {
		return v
	}
	b := make([]byte, (len(old)+1)/2)
	_, _ = rand.Read(b)
	v := hex.EncodeToString(b)[:len(old)]
	if len(old) == 36 { // a uuid keeps its dashes
		v = v[:8] + "-" + v[9:13] + "-" + v[14:18] + "-" + v[19:23] + "-" + v[24:]
	}
	r.m[old] = v
	return v
}

// str renames every id in s.
func (r *renamer) str(s string) string { return renamable.ReplaceAllStringFunc(s, r.id) }

// value is a deep copy of v with every id in its strings renamed.
func (r *renamer) value(v types.AttributeValue) types.AttributeValue {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return &types.AttributeValueMemberS{Value: r.str(x.Value)}
	case *types.AttributeValueMemberSS:
		out := make([]string, len(x.Value))
		for i, s := range x.Value {
			out[i] = r.str(s)
		}
		return &types.AttributeValueMemberSS{Value: out}
	case *types.AttributeValueMemberL:
		out := make([]types.AttributeValue, len(x.Value))
		for i, e := range x.Value {
			out[i] = r.value(e)
		}
		return &types.AttributeValueMemberL{Value: out}
	case *types.AttributeValueMemberM:
		return &types.AttributeValueMemberM{Value: r.item(x.Value)}
	}
	return v // numbers, binaries, booleans: nothing to rename
}

// item is a copy of an item (or a map of expression values) with every id renamed.
func (r *renamer) item(it map[string]types.AttributeValue) map[string]types.AttributeValue {
	if it == nil {
		return nil
	}
	out := make(map[string]types.AttributeValue, len(it))
	for name, v := range it {
		out[r.str(name)] = r.value(v)
	}
	return out
}

// names is a copy of expression attribute names with every id renamed.
func (r *renamer) names(n map[string]string) map[string]string {
	if n == nil {
		return nil
	}
	out := make(map[string]string, len(n))
	for k, v := range n {
		out[k] = r.str(v)
	}
	return out
}

// optional renames an optional string.
func (r *renamer) optional(s *string) *string {
	if s == nil {
		return nil
	}
	return ptr(r.str(*s))
}

// write is a renamed copy of a recorded write operation's input.
func (r *renamer) write(params any) (any, error) {
	switch in := params.(type) {
	case *dynamodb.TransactWriteItemsInput:
		c := *in
		c.ReturnConsumedCapacity = ""
		c.ClientRequestToken = r.optional(in.ClientRequestToken)
		c.TransactItems = make([]types.TransactWriteItem, len(in.TransactItems))
		for i, t := range in.TransactItems {
			switch {
			case t.Put != nil:
				p := *t.Put
				p.Item, p.ExpressionAttributeNames, p.ExpressionAttributeValues = r.item(p.Item), r.names(p.ExpressionAttributeNames), r.item(p.ExpressionAttributeValues)
				c.TransactItems[i].Put = &p
			case t.Update != nil:
				u := *t.Update
				u.Key, u.ExpressionAttributeNames, u.ExpressionAttributeValues = r.item(u.Key), r.names(u.ExpressionAttributeNames), r.item(u.ExpressionAttributeValues)
				c.TransactItems[i].Update = &u
			case t.Delete != nil:
				d := *t.Delete
				d.Key, d.ExpressionAttributeNames, d.ExpressionAttributeValues = r.item(d.Key), r.names(d.ExpressionAttributeNames), r.item(d.ExpressionAttributeValues)
				c.TransactItems[i].Delete = &d
			case t.ConditionCheck != nil:
				k := *t.ConditionCheck
				k.Key, k.ExpressionAttributeNames, k.ExpressionAttributeValues = r.item(k.Key), r.names(k.ExpressionAttributeNames), r.item(k.ExpressionAttributeValues)
				c.TransactItems[i].ConditionCheck = &k
			}
		}
		return &c, nil
	case *dynamodb.PutItemInput:
		c := *in
		c.ReturnConsumedCapacity = ""
		c.Item, c.ExpressionAttributeNames, c.ExpressionAttributeValues = r.item(in.Item), r.names(in.ExpressionAttributeNames), r.item(in.ExpressionAttributeValues)
		return &c, nil
	case *dynamodb.UpdateItemInput:
		c := *in
		c.ReturnConsumedCapacity = ""
		c.Key, c.ExpressionAttributeNames, c.ExpressionAttributeValues = r.item(in.Key), r.names(in.ExpressionAttributeNames), r.item(in.ExpressionAttributeValues)
		return &c, nil
	case *dynamodb.DeleteItemInput:
		c := *in
		c.ReturnConsumedCapacity = ""
		c.Key, c.ExpressionAttributeNames, c.ExpressionAttributeValues = r.item(in.Key), r.names(in.ExpressionAttributeNames), r.item(in.ExpressionAttributeValues)
		return &c, nil
	}
	return nil, fmt.Errorf("replay: cannot replay a %T", params)
}

// copyPartition copies a group's partition to the group's renamed id and
// returns that id: the raw side's copy of the group as it is now.
func copyPartition(ctx context.Context, db *dynamodb.Client, table string, r *renamer, groupID string) (string, error) {
	pk := "GROUP#" + groupID
	in := &dynamodb.QueryInput{
		TableName:                 &table,
		KeyConditionExpression:    ptr("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}},
		ConsistentRead:            ptr(true),
	}
	var items []item
	for {
		out, err := db.Query(ctx, in)
		if err != nil {
			return "", err
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	for start := 0; start < len(items); start += 25 {
		var reqs []types.WriteRequest
		for _, it := range items[start:min(start+25, len(items))] {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: r.item(it)}})
		}
		req := map[string][]types.WriteRequest{table: reqs}
		for len(req) > 0 {
			out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: req})
			if err != nil {
				return "", err
			}
			req = out.UnprocessedItems
		}
	}
	return r.id(groupID), nil
}

// replayWrite sends one renamed write with the bare SDK.
func replayWrite(ctx context.Context, db *dynamodb.Client, params any) error {
	var err error
	switch in := params.(type) {
	case *dynamodb.TransactWriteItemsInput:
		_, err = db.TransactWriteItems(ctx, in)
	case *dynamodb.PutItemInput:
		_, err = db.PutItem(ctx, in)
	case *dynamodb.UpdateItemInput:
		_, err = db.UpdateItem(ctx, in)
	case *dynamodb.DeleteItemInput:
		_, err = db.DeleteItem(ctx, in)
	default:
		err = fmt.Errorf("replay: cannot send a %T", params)
	}
	return err
}
