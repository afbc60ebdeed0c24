package wiring

import (
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/fracti/api/config"
	"github.com/fracti/api/objectstore"
)

// ObjectStore is the client of the bucket of receipts and avatars, built
// from c; nil when S3_BUCKET is unset (receipts and avatars then answer
// UNAVAILABLE, and everything else works). Keys set for a local store
// sign its calls; otherwise the AWS default chain does.
func ObjectStore(c config.ObjectStore) (*objectstore.Client, error) {
	if c.Bucket == "" {
		return nil, nil
	}
	o := objectstore.Options{Bucket: c.Bucket, Endpoint: c.Endpoint, Region: c.Region, PathStyle: c.PathStyle, Timeout: c.Timeout}
	if c.AccessKeyID != "" {
		o.Credentials = credentials.NewStaticCredentialsProvider(c.AccessKeyID, c.SecretAccessKey, "")
	}
	return objectstore.New(o)
}
