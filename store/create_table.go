package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// TableDefinition is the table exactly as the data model specifies it:
// string PK/SK, GSI1–GSI3 on string keys with projection ALL, on demand.
func TableDefinition(name string) *dynamodb.CreateTableInput {
	attr := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	keys := func(hash, rng string) []types.KeySchemaElement {
		return []types.KeySchemaElement{
			{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(rng), KeyType: types.KeyTypeRange},
		}
	}
	gsi := func(name, hash, rng string) types.GlobalSecondaryIndex {
		return types.GlobalSecondaryIndex{
			IndexName:  aws.String(name),
			KeySchema:  keys(hash, rng),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}
	}
	return &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		KeySchema: keys(attrPK, attrSK),
		AttributeDefinitions: []types.AttributeDefinition{
			attr(attrPK), attr(attrSK),
			attr(attrGSI1PK), attr(attrGSI1SK),
			attr(attrGSI2PK), attr(attrGSI2SK),
			attr(attrGSI3PK), attr(attrGSI3SK),
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			gsi(indexGSI1, attrGSI1PK, attrGSI1SK),
			gsi(indexGSI2, attrGSI2PK, attrGSI2SK),
			gsi(indexGSI3, attrGSI3PK, attrGSI3SK),
		},
		BillingMode:         types.BillingModePayPerRequest,
		StreamSpecification: StreamSpecification(),
	}
}

// TimeToLive is the table's TTL setting: items with a `ttl` attribute (epoch
// seconds) expire, such as idempotency records.
func TimeToLive() *types.TimeToLiveSpecification {
	return &types.TimeToLiveSpecification{AttributeName: aws.String(attrTTL), Enabled: aws.Bool(true)}
}

// EnsureTable creates the table if it does not exist and waits until it is
// active. It reports whether it created it.
func (s *Store) EnsureTable(ctx context.Context) (bool, error) {
	return s.ensureTable(ctx, TableDefinition(s.table))
}

// EnsureTableWithoutStream is EnsureTable for tests that do not read the
// stream: DynamoDB Local spends much of its CPU keeping streams.
func (s *Store) EnsureTableWithoutStream(ctx context.Context) (bool, error) {
	def := TableDefinition(s.table)
	def.StreamSpecification = nil
	return s.ensureTable(ctx, def)
}

func (s *Store) ensureTable(ctx context.Context, def *dynamodb.CreateTableInput) (bool, error) {
	_, err := s.db.CreateTable(ctx, def)
	var inUse *types.ResourceInUseException
	switch {
	case errors.As(err, &inUse):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("create table %s: %w", s.table, err)
	}
	waiter := dynamodb.NewTableExistsWaiter(s.db, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 100 * time.Millisecond
	})
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: &s.table}, 2*time.Minute); err != nil {
		return true, fmt.Errorf("wait for table %s: %w", s.table, err)
	}
	return true, s.enableTimeToLive(ctx)
}

// pingError names why DescribeTable on table failed: no such table, no
// answer in time, a refusal (credentials, IAM) with DynamoDB's own code and
// message, or no connection at all.
func pingError(table string, err error) error {
	var notFound *types.ResourceNotFoundException
	var refused smithy.APIError
	switch {
	case errors.As(err, &notFound):
		return fmt.Errorf("table %s does not exist", table)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("DynamoDB did not answer DescribeTable on %s in time: %w", table, err)
	case errors.As(err, &refused):
		return fmt.Errorf("DynamoDB refused DescribeTable on %s: %s: %s", table, refused.ErrorCode(), refused.ErrorMessage())
	}
	return fmt.Errorf("DynamoDB is unreachable: %w", err)
}

// DeleteTable drops the table (tests clean up with it).
func (s *Store) DeleteTable(ctx context.Context) error {
	_, err := s.db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: &s.table})
	return err
}

// Ping checks that the table is reachable and active, in one attempt: a
// probe answers now, with the real reason, rather than after retries. Its
// error says why not in words an operator can act on.
func (s *Store) Ping(ctx context.Context) error {
	out, err := s.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &s.table},
		func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	if err != nil {
		return pingError(s.table, err)
	}
	if st := out.Table.TableStatus; st != types.TableStatusActive && st != types.TableStatusUpdating {
		return fmt.Errorf("table %s is %s", s.table, st)
	}
	return nil
}
