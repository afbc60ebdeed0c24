package wiring

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fracti/api/config"
	"github.com/fracti/api/internal/testkit/s3test"
	"github.com/fracti/api/objectstore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestObjectStoreOff: without S3_BUCKET there is no client, and no error.
func TestObjectStoreOff(t *testing.T) {
	c, err := ObjectStore(config.ObjectStore{Endpoint: "http://127.0.0.1:9000", Timeout: time.Second})
	require.NoError(t, err)
	assert.Nil(t, c)
}

// TestObjectStoreFromSettings: the client the server builds from the
// S3_* settings, as `make run` sets them (make test's local server, a
// fresh bucket), writes and reads the bucket, and signs presigned URLs for
// the endpoint, path style, with the local keys.
func TestObjectStoreFromSettings(t *testing.T) {
	bucket := s3test.Bucket(t)
	t.Setenv("S3_BUCKET", bucket)
	cfg, err := config.Load(func(name string) string {
		if strings.HasPrefix(name, "S3_") {
			return os.Getenv(name) // S3_ENDPOINT and its keys: scripts/test.sh sets them
		}
		return ""
	})
	require.NoError(t, err)
	require.True(t, cfg.Objects.PathStyle, "the default with S3_ENDPOINT")

	c, err := ObjectStore(cfg.Objects)
	require.NoError(t, err)
	require.Equal(t, bucket, c.Bucket())
	ctx := context.Background()
	require.NoError(t, c.Put(ctx, "avatars/u1", "image/png", []byte("png")))
	o, err := c.Head(ctx, "avatars/u1")
	require.NoError(t, err)
	assert.Equal(t, "image/png", o.ContentType)

	p, err := c.PresignGet(ctx, "avatars/u1", time.Minute, objectstore.GetOptions{})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(p.URL, s3test.Endpoint(t)+"/"+bucket+"/avatars/u1?"), p.URL)
	u, err := url.Parse(p.URL)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(u.Query().Get("X-Amz-Credential"), os.Getenv("S3_ACCESS_KEY_ID")+"/"))
	assert.Contains(t, u.Query().Get("X-Amz-Credential"), "/us-east-1/s3/")
}

// TestObjectStoreOnAWS: without an endpoint the URLs are AWS's, the bucket
// in the host name, in the configured region.
func TestObjectStoreOnAWS(t *testing.T) {
	c, err := ObjectStore(config.ObjectStore{Bucket: "fracti-receipts-prod", Region: "eu-west-1",
		AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret", Timeout: time.Second})
	require.NoError(t, err)
	p, err := c.PresignGet(context.Background(), "receipts/g/e/u", time.Minute, objectstore.GetOptions{})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(p.URL, "https://fracti-receipts-prod.s3.eu-west-1.amazonaws.com/receipts/g/e/u?"), p.URL)
}
