// Package objectstore is the client of the bucket that holds receipts and
// avatars: presigned uploads and downloads, and the few calls the server
// makes itself (head, read, write, clear tags, list, delete), each bounded
// by a timeout. It speaks S3 to AWS or to any store that speaks it (the
// local versitygw of `make run` and `make test`): path style when asked,
// and checksums only where S3 requires them, which stores other than AWS
// handle (docs/receipts.md#storage).
package objectstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"mime"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// DefaultTimeout bounds each call to the store when Options.Timeout is 0:
// a request of the API never waits on storage longer.
const DefaultTimeout = 5 * time.Second

// DefaultRegion is the region when neither Options.Region nor the AWS
// default chain names one (a local store takes any).
const DefaultRegion = "us-east-1"

// idleConnsPerHost is how many connections to the store stay open between
// calls: the SDK's default of 10 reconnects under a busy server's load.
const idleConnsPerHost = 64

// backoffBase is the first wait between the SDK's attempts (a random part
// of it, doubling with each attempt): short, so that the retries fit in a
// call's Timeout (the SDK's own waits grow to 20 s).
const backoffBase = 100 * time.Millisecond

// backoff is how long the SDK waits before another attempt: up to
// backoffBase·2^attempt, at random.
func backoff(attempt int, _ error) (time.Duration, error) {
	return rand.N(backoffBase << min(attempt, 4)), nil
}

// Options say which bucket, where, and how.
type Options struct {
	// Bucket holds the objects (required).
	Bucket string
	// Endpoint is a store other than AWS, such as http://127.0.0.1:9000;
	// empty means AWS.
	Endpoint string
	// Region signs the calls and presigned URLs; empty: the AWS default
	// chain's, else DefaultRegion.
	Region string
	// PathStyle puts the bucket in the path (http://host/bucket/key) rather
	// than in the host name, as local stores need.
	PathStyle bool
	// Credentials sign calls and URLs; nil: the AWS default chain.
	Credentials aws.CredentialsProvider
	// HTTPClient makes the calls; nil: a client whose idle pool is sized
	// for a busy server.
	HTTPClient *http.Client
	// Timeout bounds each call, its retries included (DefaultTimeout if 0);
	// a call out of time fails with ErrUnavailable.
	Timeout time.Duration
}

// Client is the bucket's client, safe for concurrent use.
type Client struct {
	s3      *s3.Client
	presign *s3.PresignClient
	bucket  string
	timeout time.Duration
}

// New builds the client: it checks the options and loads the AWS default
// chain where they leave credentials or the region to it; it calls nothing.
func New(o Options) (*Client, error) {
	if o.Bucket == "" {
		return nil, errors.New("objectstore: no bucket")
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	var httpClient s3.HTTPClient = o.HTTPClient
	if o.HTTPClient == nil {
		httpClient = awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
			t.MaxIdleConns = idleConnsPerHost
			t.MaxIdleConnsPerHost = idleConnsPerHost
		})
	}
	cfg := aws.Config{Region: o.Region, Credentials: o.Credentials}
	if o.Region == "" || o.Credentials == nil {
		loaded, err := config.LoadDefaultConfig(context.Background(), config.WithHTTPClient(httpClient))
		if err != nil {
			return nil, fmt.Errorf("objectstore: load AWS config: %w", err)
		}
		if cfg.Region == "" {
			cfg.Region = loaded.Region
		}
		if cfg.Credentials == nil {
			cfg.Credentials = loaded.Credentials
		}
	}
	if cfg.Region == "" {
		cfg.Region = DefaultRegion
	}
	client := s3.NewFromConfig(cfg, func(so *s3.Options) {
		so.HTTPClient = httpClient
		so.UsePathStyle = o.PathStyle
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
		}
		// Checksums only where S3 requires them (DeleteObjects): the SDK's
		// default adds them to every upload and presigned URL, which stores
		// other than AWS refuse or cannot check, and which a browser's PUT
		// to a presigned URL does not send.
		so.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		so.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		so.Retryer = retry.NewStandard(func(ro *retry.StandardOptions) { ro.Backoff = retry.BackoffDelayerFunc(backoff) })
	})
	return &Client{s3: client, presign: s3.NewPresignClient(client), bucket: o.Bucket, timeout: o.Timeout}, nil
}

// Bucket is the bucket the client works in.
func (c *Client) Bucket() string { return c.bucket }

// bounded is ctx bounded by the client's Timeout, for one call.
func (c *Client) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.timeout)
}

// Disposition is a Content-Disposition for a presigned download of a file
// called filename: "attachment" saves it, "inline" shows it. Names beyond
// ASCII are encoded as RFC 2231 says; quotes and line breaks cannot escape.
func Disposition(kind, filename string) string {
	if v := mime.FormatMediaType(kind, map[string]string{"filename": filename}); v != "" {
		return v
	}
	return kind
}
