package objectstore_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/fracti/api/internal/testkit/s3test"
	"github.com/fracti/api/objectstore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPutHeadRead: what Put writes, Head describes and Read and Open give
// back byte for byte, whatever its type and size; Read refuses more than
// its max without reading it.
func TestPutHeadRead(t *testing.T) {
	ctx := context.Background()
	c := s3test.Client(t)
	for _, tc := range []struct {
		name, key, contentType string
		body                   []byte
	}{
		{"a thumbnail", "receipts/g1/e1/u1.thumb", "image/webp", bytes.Repeat([]byte{0x52, 0x49, 0x46, 0x46}, 1000)},
		{"a receipt of 10 MB", "receipts/g1/e1/u2", "application/pdf", bytes.Repeat([]byte("%PDF-1.7 "), 10<<20/9)},
		{"empty", "avatars/u3", "image/png", []byte{}},
		{"a key beyond ASCII", "receipts/g1/e2/чек 1+2.jpg", "image/jpeg", []byte("jpeg")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, c.Put(ctx, tc.key, tc.contentType, tc.body))

			o, err := c.Head(ctx, tc.key)
			require.NoError(t, err)
			assert.Equal(t, tc.key, o.Key)
			assert.Equal(t, int64(len(tc.body)), o.Size)
			assert.Equal(t, tc.contentType, o.ContentType)
			assert.Zero(t, o.TagCount)
			assert.NotEmpty(t, o.ETag)
			assert.False(t, o.LastModified.IsZero())

			got, err := c.Read(ctx, tc.key, int64(len(tc.body)))
			require.NoError(t, err, "exactly max bytes")
			assert.True(t, bytes.Equal(tc.body, got), "Read gives back what Put wrote")

			body, size, err := c.Open(ctx, tc.key)
			require.NoError(t, err)
			assert.Equal(t, int64(len(tc.body)), size)
			streamed, err := io.ReadAll(body)
			require.NoError(t, err)
			require.NoError(t, body.Close())
			assert.True(t, bytes.Equal(tc.body, streamed), "Open streams what Put wrote")

			if len(tc.body) > 0 {
				_, err = c.Read(ctx, tc.key, int64(len(tc.body))-1)
				require.ErrorIs(t, err, objectstore.ErrTooLarge)
				assert.False(t, objectstore.IsNotFound(err))
				assert.False(t, objectstore.IsUnavailable(err))
			}
		})
	}

	// Put replaces.
	require.NoError(t, c.Put(ctx, "avatars/u3", "image/jpeg", []byte("new")))
	o, err := c.Head(ctx, "avatars/u3")
	require.NoError(t, err)
	assert.Equal(t, objectstore.Object{Key: "avatars/u3", Size: 3, ContentType: "image/jpeg", ETag: o.ETag, LastModified: o.LastModified}, o)
}

// TestNotFound: every read of a key with no object answers ErrNotFound,
// and deleting keys with no object is fine.
func TestNotFound(t *testing.T) {
	ctx := context.Background()
	c := s3test.Client(t)
	require.NoError(t, c.Put(ctx, "receipts/g/e/there", "image/png", []byte("png")))
	const missing = "receipts/g/e/missing"
	for name, call := range map[string]func() error{
		"Head":      func() error { _, err := c.Head(ctx, missing); return err },
		"Read":      func() error { _, err := c.Read(ctx, missing, 100); return err },
		"Open":      func() error { _, _, err := c.Open(ctx, missing); return err },
		"ClearTags": func() error { return c.ClearTags(ctx, missing) },
	} {
		t.Run(name, func(t *testing.T) {
			err := call()
			require.ErrorIs(t, err, objectstore.ErrNotFound)
			assert.True(t, objectstore.IsNotFound(err))
			assert.False(t, objectstore.IsUnavailable(err))
			assert.Contains(t, err.Error(), missing)
		})
	}
	require.NoError(t, c.Delete(ctx, missing, "receipts/g/e/there", "receipts/other"))
	_, err := c.Head(ctx, "receipts/g/e/there")
	require.ErrorIs(t, err, objectstore.ErrNotFound)
	require.NoError(t, c.Delete(ctx), "no keys: no call")
}

// TestClearTags: an object uploaded with the pending tag carries it (HEAD
// counts it) until ClearTags, which leaves its content alone.
func TestClearTags(t *testing.T) {
	ctx := context.Background()
	c := s3test.Client(t)
	sdk := s3test.SDK(t)
	key := "receipts/g/e/u"
	_, err := sdk.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(c.Bucket()), Key: &key, Body: bytes.NewReader([]byte("jpeg")),
		ContentType: aws.String("image/jpeg"), Tagging: aws.String("fracti-upload=pending")})
	require.NoError(t, err)
	o, err := c.Head(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, 1, o.TagCount)

	require.NoError(t, c.ClearTags(ctx, key))
	o, err = c.Head(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, 0, o.TagCount)
	tags, err := sdk.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(c.Bucket()), Key: &key})
	require.NoError(t, err)
	assert.Empty(t, tags.TagSet)
	got, err := c.Read(ctx, key, 10)
	require.NoError(t, err)
	assert.Equal(t, "jpeg", string(got))
	require.NoError(t, c.ClearTags(ctx, key), "twice: nothing to clear")
}

// TestListAndDeletePrefix: List yields every object under a prefix in key
// order across pages; DeletePrefix deletes them, a thousand keys per
// DeleteObjects call (which S3 requires a checksum of: the SDK computes it
// where required, and the store takes it), and nothing outside the
// prefix. The calls are counted through the Recorder.
func TestListAndDeletePrefix(t *testing.T) {
	ctx := context.Background()
	rec := s3test.NewRecorder(t)
	c := s3test.Client(t, func(o *objectstore.Options) { o.Endpoint = rec.URL })
	const n = 1201 // two pages, two DeleteObjects calls
	var keys []string
	for i := range n {
		keys = append(keys, fmt.Sprintf("receipts/g1/e%02d/u%04d", i%7, i))
	}
	put(t, c, append(slices.Clone(keys), "receipts/g10/e/u", "receipts/g2/e/u", "avatars/g1"))
	slices.Sort(keys)

	var listed []string
	for o, err := range c.List(ctx, "receipts/g1/") {
		require.NoError(t, err)
		assert.Positive(t, o.Size)
		listed = append(listed, o.Key)
	}
	require.Equal(t, keys, listed, "every key under the prefix, in order, across pages")

	for _, err := range c.List(ctx, "receipts/g1/") {
		require.NoError(t, err)
		break // stopping early is fine
	}

	rec.Reset()
	deleted, err := c.DeletePrefix(ctx, "receipts/g1/")
	require.NoError(t, err)
	require.Equal(t, n, deleted)
	var ops []string
	deletes := 0
	for _, call := range rec.Calls() {
		ops = append(ops, call.Operation)
		require.Equal(t, 200, call.Status, call.Operation)
		if call.Operation == "DeleteObjects" {
			deletes += len(call.Permissions)
		}
	}
	// A page's thousand keys go before the next page is asked for.
	require.Equal(t, []string{"ListObjectsV2", "DeleteObjects", "ListObjectsV2", "DeleteObjects"}, ops)
	require.Equal(t, n, deletes, "each key named once")

	var rest []string
	for o, err := range c.List(ctx, "") {
		require.NoError(t, err)
		rest = append(rest, o.Key)
	}
	require.Equal(t, []string{"avatars/g1", "receipts/g10/e/u", "receipts/g2/e/u"}, rest, "nothing outside the prefix")

	deleted, err = c.DeletePrefix(ctx, "receipts/g1/")
	require.NoError(t, err)
	require.Zero(t, deleted)
	_, err = c.DeletePrefix(ctx, "")
	require.Error(t, err, "an empty prefix would empty the bucket")
}

// put writes a small object at each key, a few at a time.
func put(t *testing.T, c *objectstore.Client, keys []string) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(keys))
	work := make(chan string)
	for range 8 {
		wg.Go(func() {
			for k := range work {
				errs <- c.Put(context.Background(), k, "image/jpeg", []byte(k))
			}
		})
	}
	for _, k := range keys {
		work <- k
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}
