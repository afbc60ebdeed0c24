package s3test_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/s3test"
	"github.com/fracti/api/objectstore"
	"github.com/stretchr/testify/require"
)

// TestRecorder: every call of the objectstore client, and the presigned
// requests a client makes with the URLs it mints, pass through the
// Recorder to the local server and are recorded as the IAM actions S3
// authorizes them by, with the store's answer.
func TestRecorder(t *testing.T) {
	ctx := context.Background()
	rec := s3test.NewRecorder(t)
	c := s3test.Client(t, func(o *objectstore.Options) { o.Endpoint = rec.URL })
	b := c.Bucket()
	obj := func(key string) string { return "arn:aws:s3:::" + b + "/" + key }

	up, err := c.PresignPut(ctx, "receipts/g/e/u", "image/jpeg", 4, "fracti-upload=pending", time.Minute)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(up.URL, rec.URL+"/"), "presigned through the Recorder")
	require.Equal(t, http.StatusOK, do(t, up, "jpeg"))
	_, err = c.Head(ctx, "receipts/g/e/u")
	require.NoError(t, err)
	_, err = c.Read(ctx, "receipts/g/e/u", 10)
	require.NoError(t, err)
	require.NoError(t, c.Put(ctx, "receipts/g/e/u.thumb", "image/webp", []byte("webp")))
	require.NoError(t, c.ClearTags(ctx, "receipts/g/e/u"))
	down, err := c.PresignGet(ctx, "receipts/g/e/u", time.Minute, objectstore.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, do(t, down, ""))
	down.URL = strings.Replace(down.URL, "X-Amz-Signature=", "X-Amz-Signature=0", 1)
	require.Equal(t, http.StatusForbidden, do(t, down, ""))
	for _, err := range c.List(ctx, "receipts/g/") {
		require.NoError(t, err)
	}
	require.NoError(t, c.Delete(ctx, "receipts/g/e/u", "receipts/g/e/u.thumb"))

	type call struct {
		Operation   string
		Presigned   bool
		Status      int
		Permissions []s3test.Permission
	}
	var got []call
	for _, c := range rec.Calls() {
		got = append(got, call{c.Operation, c.Presigned, c.Status, c.Permissions})
	}
	require.Equal(t, []call{
		{"PutObject", true, 200, []s3test.Permission{{"s3:PutObject", obj("receipts/g/e/u"), ""}, {"s3:PutObjectTagging", obj("receipts/g/e/u"), ""}}},
		{"HeadObject", false, 200, []s3test.Permission{{"s3:GetObject", obj("receipts/g/e/u"), ""}}},
		{"GetObject", false, 200, []s3test.Permission{{"s3:GetObject", obj("receipts/g/e/u"), ""}}},
		{"PutObject", false, 200, []s3test.Permission{{"s3:PutObject", obj("receipts/g/e/u.thumb"), ""}}},
		{"DeleteObjectTagging", false, 204, []s3test.Permission{{"s3:DeleteObjectTagging", obj("receipts/g/e/u"), ""}}},
		{"GetObject", true, 200, []s3test.Permission{{"s3:GetObject", obj("receipts/g/e/u"), ""}}},
		{"GetObject", true, 403, []s3test.Permission{{"s3:GetObject", obj("receipts/g/e/u"), ""}}},
		{"ListObjectsV2", false, 200, []s3test.Permission{{"s3:ListBucket", "arn:aws:s3:::" + b, "receipts/g/"}}},
		{"DeleteObjects", false, 200, []s3test.Permission{{"s3:DeleteObject", obj("receipts/g/e/u"), ""}, {"s3:DeleteObject", obj("receipts/g/e/u.thumb"), ""}}},
	}, got)
	require.Len(t, rec.Permissions(), 11)

	rec.Reset()
	require.Empty(t, rec.Calls())
}

// do makes the presigned request with body, as a browser would; it
// returns the status.
func do(t *testing.T, p objectstore.Presigned, body string) int {
	t.Helper()
	req, err := http.NewRequest(p.Method, p.URL, bytes.NewReader([]byte(body)))
	require.NoError(t, err)
	if body == "" {
		req.Body, req.ContentLength = nil, 0
	}
	for _, h := range p.Headers {
		req.Header.Set(h.Name, h.Value)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	return res.StatusCode
}
