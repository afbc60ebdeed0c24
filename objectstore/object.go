package objectstore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Object is what the store says of an object.
type Object struct {
	// Key names it in the bucket.
	Key string
	// Size is its length in bytes.
	Size int64
	// ContentType is what it was stored with (Head only; "" from List).
	ContentType string
	// ETag is the store's tag of its content, quoted as S3 sends it.
	ETag string
	// LastModified is when it was written.
	LastModified time.Time
	// TagCount is how many tags it carries (Head only): an upload made
	// with a presigned PUT's tagging keeps it until ClearTags.
	TagCount int
}

// Head is what the store says of key, without its content; ErrNotFound
// when there is no such object.
func (c *Client) Head(ctx context.Context, key string) (Object, error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	out, err := c.s3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &c.bucket, Key: &key})
	if err != nil {
		return Object{}, fail("head", key, err)
	}
	return Object{
		Key: key, Size: aws.ToInt64(out.ContentLength), ContentType: aws.ToString(out.ContentType),
		ETag: aws.ToString(out.ETag), LastModified: aws.ToTime(out.LastModified), TagCount: int(aws.ToInt32(out.TagCount)),
	}, nil
}

// Read is key's whole content, refused with ErrTooLarge when it is longer
// than max bytes (nothing beyond max+1 bytes is read); ErrNotFound when
// there is no such object. The whole read is within the Timeout.
func (c *Client) Read(ctx context.Context, key string, max int64) ([]byte, error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	out, err := c.s3.GetObject(ctx, &s3.GetObjectInput{Bucket: &c.bucket, Key: &key})
	if err != nil {
		return nil, fail("read", key, err)
	}
	defer out.Body.Close()
	if size := aws.ToInt64(out.ContentLength); size > max {
		return nil, &opError{op: "read", key: key, kind: ErrTooLarge, err: fmt.Errorf("%d bytes, at most %d", size, max)}
	}
	b, err := io.ReadAll(io.LimitReader(out.Body, max+1))
	if err != nil {
		return nil, fail("read", key, err)
	}
	if int64(len(b)) > max {
		return nil, &opError{op: "read", key: key, kind: ErrTooLarge, err: fmt.Errorf("more than %d bytes", max)}
	}
	return b, nil
}

// Open streams key's content, for reads too long to hold (an export): it
// returns the body and its size. The Timeout bounds the wait for the
// answer and then each read of the body (a store that stops sending fails
// the read with ErrUnavailable), not the whole stream. The caller closes
// the body.
func (c *Client) Open(ctx context.Context, key string) (io.ReadCloser, int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	b := &body{key: key, timeout: c.timeout, cancel: cancel}
	b.timer = time.AfterFunc(c.timeout, b.expire)
	out, err := c.s3.GetObject(ctx, &s3.GetObjectInput{Bucket: &c.bucket, Key: &key})
	b.timer.Stop()
	if err != nil {
		cancel()
		return nil, 0, b.fail(err)
	}
	b.rc = out.Body
	return b, aws.ToInt64(out.ContentLength), nil
}

// body is an opened object's content, each read bounded by the timeout.
type body struct {
	key      string
	rc       io.ReadCloser
	timeout  time.Duration
	timer    *time.Timer
	timedOut atomic.Bool
	cancel   context.CancelFunc
}

// expire ends the request: the store took longer than the timeout.
func (b *body) expire() {
	b.timedOut.Store(true)
	b.cancel()
}

func (b *body) Read(p []byte) (int, error) {
	b.timer.Reset(b.timeout)
	n, err := b.rc.Read(p)
	b.timer.Stop()
	if err != nil && err != io.EOF {
		err = b.fail(err)
	}
	return n, err
}

func (b *body) Close() error {
	b.timer.Stop()
	err := b.rc.Close()
	b.cancel()
	return err
}

// fail is fail, knowing that a request canceled by the timer ran out of time.
func (b *body) fail(err error) error {
	if b.timedOut.Load() {
		return &opError{op: "open", key: b.key, kind: ErrUnavailable, err: fmt.Errorf("no answer within %s: %w", b.timeout, err)}
	}
	return fail("open", b.key, err)
}

// Put writes body to key with contentType (a thumbnail, an export),
// replacing what was there.
func (c *Client) Put(ctx context.Context, key, contentType string, body []byte) error {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	_, err := c.s3.PutObject(ctx, &s3.PutObjectInput{
		Bucket: &c.bucket, Key: &key, ContentType: &contentType,
		ContentLength: aws.Int64(int64(len(body))), Body: bytes.NewReader(body),
	})
	return fail("put", key, err)
}

// ClearTags removes every tag of key (DeleteObjectTagging): a confirmed
// upload is no longer pending, so the lifecycle rule that expires pending
// uploads passes it by.
func (c *Client) ClearTags(ctx context.Context, key string) error {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	_, err := c.s3.DeleteObjectTagging(ctx, &s3.DeleteObjectTaggingInput{Bucket: &c.bucket, Key: &key})
	return fail("clear tags", key, err)
}
