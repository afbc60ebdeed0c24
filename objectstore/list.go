package objectstore

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// maxDeleteKeys is how many keys one DeleteObjects call may name.
const maxDeleteKeys = 1000

// List yields every object whose key starts with prefix, in key order,
// page by page (ListObjectsV2, each page within the Timeout). An error
// ends it, yielded with a zero Object.
func (c *Client) List(ctx context.Context, prefix string) iter.Seq2[Object, error] {
	return func(yield func(Object, error) bool) {
		pages := s3.NewListObjectsV2Paginator(c.s3, &s3.ListObjectsV2Input{Bucket: &c.bucket, Prefix: &prefix})
		for pages.HasMorePages() {
			page, err := c.listPage(ctx, pages)
			if err != nil {
				yield(Object{}, fail("list", prefix, err))
				return
			}
			for _, o := range page.Contents {
				obj := Object{Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size), ETag: aws.ToString(o.ETag), LastModified: aws.ToTime(o.LastModified)}
				if !yield(obj, nil) {
					return
				}
			}
		}
	}
}

// listPage is the next page, within the Timeout.
func (c *Client) listPage(ctx context.Context, pages *s3.ListObjectsV2Paginator) (*s3.ListObjectsV2Output, error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	return pages.NextPage(ctx)
}

// Delete removes the objects at keys, a thousand per call (DeleteObjects,
// each call within the Timeout); keys with no object are fine. Calls stop
// at the first that fails, and a key the store could not delete fails it.
func (c *Client) Delete(ctx context.Context, keys ...string) error {
	for batch := range chunks(keys, maxDeleteKeys) {
		if err := c.deleteBatch(ctx, batch); err != nil {
			return err
		}
	}
	return nil
}

// chunks are keys in runs of at most n.
func chunks(keys []string, n int) iter.Seq[[]string] {
	return func(yield func([]string) bool) {
		for len(keys) > 0 {
			k := min(n, len(keys))
			if !yield(keys[:k]) {
				return
			}
			keys = keys[k:]
		}
	}
}

// deleteBatch is one DeleteObjects call.
func (c *Client) deleteBatch(ctx context.Context, keys []string) error {
	objects := make([]types.ObjectIdentifier, len(keys))
	for i := range keys {
		objects[i] = types.ObjectIdentifier{Key: &keys[i]}
	}
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	out, err := c.s3.DeleteObjects(ctx, &s3.DeleteObjectsInput{
		Bucket: &c.bucket, Delete: &types.Delete{Objects: objects, Quiet: aws.Bool(true)},
	})
	if err != nil {
		return fail("delete", fmt.Sprintf("%s (and %d more)", keys[0], len(keys)-1), err)
	}
	if len(out.Errors) > 0 {
		e := out.Errors[0]
		return &opError{op: "delete", key: aws.ToString(e.Key), err: fmt.Errorf("%s: %s (%d of %d keys not deleted)",
			aws.ToString(e.Code), aws.ToString(e.Message), len(out.Errors), len(keys))}
	}
	return nil
}

// DeletePrefix removes every object whose key starts with prefix (a
// group's receipts) and says how many it removed; it deletes each page of
// keys as it lists them. An empty prefix is refused: it would empty the
// bucket.
func (c *Client) DeletePrefix(ctx context.Context, prefix string) (int, error) {
	if prefix == "" {
		return 0, errors.New("objectstore: delete prefix: an empty prefix would delete every object")
	}
	deleted := 0
	batch := make([]string, 0, maxDeleteKeys)
	flush := func() error {
		if err := c.Delete(ctx, batch...); err != nil {
			return err
		}
		deleted += len(batch)
		batch = batch[:0]
		return nil
	}
	for o, err := range c.List(ctx, prefix) {
		if err != nil {
			return deleted, err
		}
		if batch = append(batch, o.Key); len(batch) == maxDeleteKeys {
			if err := flush(); err != nil {
				return deleted, err
			}
		}
	}
	return deleted, flush()
}
