package store

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
)

// ClientConfig says where DynamoDB is.
type ClientConfig struct {
	// Endpoint is a local engine's URL (DynamoDB Local); empty means AWS.
	Endpoint string
	// Region defaults to us-east-1 for a local endpoint.
	Region string
	// DefaultCredentials signs calls to a local endpoint with the AWS
	// default chain; without it they carry dummy credentials (DynamoDB
	// Local accepts any), so that nothing probes EC2 instance metadata.
	// Calls to AWS always use the default chain.
	DefaultCredentials bool
	// AttemptTimeout bounds one try of a call, from sending the request to
	// reading the whole answer (0 means DefaultAttemptTimeout). A try that
	// runs out of time (a dead connection, DynamoDB hanging) is retried like
	// a network failure, within the request's deadline.
	AttemptTimeout time.Duration
}

// DefaultAttemptTimeout is how long one try of a DynamoDB call may take by
// default: DynamoDB answers in milliseconds, so a try this slow is stuck,
// and the 30 seconds a request may take leave room for two more.
const DefaultAttemptTimeout = 10 * time.Second

// NewClient builds a DynamoDB client. Credentials and region come from the
// AWS default chain; a local endpoint gets dummy credentials unless
// cfg.DefaultCredentials (DynamoDB Local accepts any), and skips response checksums,
// which DynamoDB Local omits on error responses. Every client enforces the
// call budget a context carries (WithCallBudget), gives each try of a call
// cfg.AttemptTimeout, and retries throttled and failed calls within the
// context's deadline (newRetryer); what still fails is told by IsThrottled
// and IsUnavailable.
func NewClient(ctx context.Context, cfg ClientConfig, optFns ...func(*dynamodb.Options)) (*dynamodb.Client, error) {
	awsCfg, err := loadAWSConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	opts := []func(*dynamodb.Options){enforceCallBudget, func(o *dynamodb.Options) { o.Retryer = newRetryer() }}
	if cfg.Endpoint != "" {
		opts = append(opts, func(o *dynamodb.Options) {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
			o.DisableValidateResponseChecksum = true
		})
	}
	return dynamodb.NewFromConfig(awsCfg, append(opts, optFns...)...), nil
}

// NewStreamsClient builds a DynamoDB Streams client with the same
// configuration as NewClient, for reading the table's stream; optFns add to
// it (such as metrics middleware).
func NewStreamsClient(ctx context.Context, cfg ClientConfig, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.Client, error) {
	awsCfg, err := loadAWSConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return dynamodbstreams.NewFromConfig(awsCfg, append([]func(*dynamodbstreams.Options){func(o *dynamodbstreams.Options) {
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
		}
	}}, optFns...)...), nil
}

// idleConnsPerHost is how many connections to DynamoDB stay open between
// calls. The SDK's default of 10 made a server under 32 concurrent clients
// open a new TCP connection for every few calls.
const idleConnsPerHost = 256

// newHTTPClient is the SDK's HTTP client with an idle pool sized for a
// busy server, and attemptTimeout (DefaultAttemptTimeout if 0) on each try.
func newHTTPClient(attemptTimeout time.Duration) *awshttp.BuildableClient {
	if attemptTimeout <= 0 {
		attemptTimeout = DefaultAttemptTimeout
	}
	return awshttp.NewBuildableClient().WithTimeout(attemptTimeout).WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConns = idleConnsPerHost
		t.MaxIdleConnsPerHost = idleConnsPerHost
	})
}

// loadAWSConfig is the AWS default chain, with a region and dummy
// credentials for a local endpoint.
func loadAWSConfig(ctx context.Context, cfg ClientConfig) (aws.Config, error) {
	loadOpts := []func(*config.LoadOptions) error{config.WithHTTPClient(newHTTPClient(cfg.AttemptTimeout))}
	if cfg.Region != "" {
		loadOpts = append(loadOpts, config.WithRegion(cfg.Region))
	} else if cfg.Endpoint != "" {
		loadOpts = append(loadOpts, config.WithRegion("us-east-1"))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, loadOpts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load AWS config: %w", err)
	}
	if cfg.Endpoint != "" && !cfg.DefaultCredentials {
		// Not the default chain: it would probe EC2 instance metadata first.
		awsCfg.Credentials = aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider("local", "local", ""))
	}
	return awsCfg, nil
}
