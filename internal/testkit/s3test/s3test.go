// Package s3test gives tests a fresh bucket on the local S3 server that
// `make test` starts (versitygw, scripts/s3-local.sh: S3_ENDPOINT,
// S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY), an objectstore client over it,
// the SDK's client for what the server never does (buckets, reading tags),
// and a Recorder in front of the server that records every call as the IAM
// action it needs.
package s3test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/fracti/api/objectstore"
)

// Region is the region the local server is signed for.
const Region = "us-east-1"

// Endpoint is the local S3 server tests use; it fails the test when unset
// rather than skipping, so that a missing store never passes silently.
func Endpoint(t testing.TB) string {
	t.Helper()
	ep := os.Getenv("S3_ENDPOINT")
	if ep == "" {
		t.Fatal("S3_ENDPOINT is not set: run the tests with `make test` (scripts/test.sh), which starts the local S3 server")
	}
	return ep
}

// credentialsProvider is the local server's fixed credentials, from the environment.
func credentialsProvider(t testing.TB) aws.CredentialsProvider {
	t.Helper()
	id, secret := os.Getenv("S3_ACCESS_KEY_ID"), os.Getenv("S3_SECRET_ACCESS_KEY")
	if id == "" || secret == "" {
		t.Fatal("S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are not set: run the tests with `make test` (scripts/test.sh)")
	}
	return credentials.NewStaticCredentialsProvider(id, secret, "")
}

// Options are objectstore.Options for bucket on the local server, as the
// server builds them from S3_ENDPOINT and its keys (path style).
func Options(t testing.TB, bucket string) objectstore.Options {
	t.Helper()
	return objectstore.Options{Bucket: bucket, Endpoint: Endpoint(t), Region: Region, PathStyle: true, Credentials: credentialsProvider(t)}
}

// Client is an objectstore client over a fresh Bucket; optFns change its
// options (another endpoint, a timeout).
func Client(t testing.TB, optFns ...func(*objectstore.Options)) *objectstore.Client {
	t.Helper()
	o := Options(t, Bucket(t))
	for _, fn := range optFns {
		fn(&o)
	}
	c, err := objectstore.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// SDK is the SDK's client for the local server, for what tests check or
// prepare beyond the objectstore client (buckets, tags).
func SDK(t testing.TB) *s3.Client {
	t.Helper()
	return s3.New(s3.Options{
		Region: Region, BaseEndpoint: aws.String(Endpoint(t)), UsePathStyle: true, Credentials: credentialsProvider(t),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
}

// Bucket creates a uniquely named bucket and, when the test ends, deletes
// it with every object in it.
func Bucket(t testing.TB) string {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "fracti-test-" + hex.EncodeToString(b)
	sdk := SDK(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := sdk.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &name}); err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := objectstore.New(Options(t, name))
		if err != nil {
			t.Errorf("empty bucket %s: %v", name, err)
			return
		}
		var keys []string
		for o, err := range c.List(ctx, "") {
			if err != nil {
				t.Errorf("empty bucket %s: %v", name, err)
				return
			}
			keys = append(keys, o.Key)
		}
		if err := c.Delete(ctx, keys...); err != nil {
			t.Errorf("empty bucket %s: %v", name, err)
			return
		}
		if _, err := sdk.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: &name}); err != nil {
			t.Errorf("delete bucket %s: %v", name, err)
		}
	})
	return name
}
