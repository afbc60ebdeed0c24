package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// ErrNoTable means the table does not exist.
var ErrNoTable = errors.New("no such table")

// NotSupported is the status of a setting the DynamoDB engine has no
// operation for: DynamoDB Local has neither point-in-time recovery nor tags.
const NotSupported = "NOT_SUPPORTED"

// TableState is the table as DynamoDB describes it: its keys and indexes,
// billing, TTL, stream, point-in-time recovery and tags, and its size.
type TableState struct {
	Name   string
	ARN    string
	Status string // CREATING, ACTIVE, UPDATING, …
	// Keys is the table's key schema, the partition key first.
	Keys    []KeyAttribute
	Indexes []IndexState // by name
	// BillingMode is PAY_PER_REQUEST or PROVISIONED.
	BillingMode string
	// TTLAttribute is the attribute items expire by; TTLStatus is ENABLED,
	// ENABLING, DISABLED or DISABLING.
	TTLAttribute string
	TTLStatus    string
	// StreamViewType is what the stream carries, "" when there is no stream.
	StreamViewType string
	StreamARN      string
	// PointInTimeRecovery is ENABLED, DISABLED or NotSupported.
	PointInTimeRecovery string
	// Tags are the table's tags; TagsNotSupported says the engine has none.
	Tags             map[string]string
	TagsNotSupported bool
	// ItemCount and SizeBytes are DynamoDB's estimates, refreshed about
	// every six hours.
	ItemCount int64
	SizeBytes int64
}

// KeyAttribute is one key of a table or index.
type KeyAttribute struct {
	Name string
	Type string // S, N or B
	Role string // HASH or RANGE
}

// String reads "name (type, role)", such as "PK (S, HASH)".
func (k KeyAttribute) String() string { return fmt.Sprintf("%s (%s, %s)", k.Name, k.Type, k.Role) }

// IndexState is one global secondary index.
type IndexState struct {
	Name       string
	Keys       []KeyAttribute
	Projection string // ALL, KEYS_ONLY or INCLUDE
	Status     string // CREATING, ACTIVE, …; "" in a definition
}

// DescribeTable reads the table's description, TTL, continuous backups and
// tags. A table that does not exist is ErrNoTable; settings the engine has
// no operation for are NotSupported rather than an error.
func (s *Store) DescribeTable(ctx context.Context) (TableState, error) {
	out, err := s.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &s.table})
	var notFound *types.ResourceNotFoundException
	if errors.As(err, &notFound) {
		return TableState{}, fmt.Errorf("%w: %s", ErrNoTable, s.table)
	} else if err != nil {
		return TableState{}, fmt.Errorf("describe table %s: %w", s.table, err)
	}
	st := tableState(out.Table)

	ttl, err := s.db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: &s.table})
	if err != nil {
		return st, fmt.Errorf("describe the TTL of %s: %w", s.table, err)
	}
	if d := ttl.TimeToLiveDescription; d != nil {
		st.TTLAttribute, st.TTLStatus = aws.ToString(d.AttributeName), string(d.TimeToLiveStatus)
	}

	backups, err := s.db.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: &s.table})
	switch {
	case isUnsupported(err):
		st.PointInTimeRecovery = NotSupported
	case err != nil:
		return st, fmt.Errorf("describe the continuous backups of %s: %w", s.table, err)
	default:
		st.PointInTimeRecovery = string(types.PointInTimeRecoveryStatusDisabled)
		if d := backups.ContinuousBackupsDescription; d != nil && d.PointInTimeRecoveryDescription != nil {
			st.PointInTimeRecovery = string(d.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus)
		}
	}

	st.Tags, err = s.tableTags(ctx, st.ARN)
	switch {
	case isUnsupported(err):
		st.Tags, st.TagsNotSupported = nil, true
	case err != nil:
		return st, fmt.Errorf("list the tags of %s: %w", s.table, err)
	}
	return st, nil
}

// tableTags lists every tag of the table, all pages.
func (s *Store) tableTags(ctx context.Context, arn string) (map[string]string, error) {
	tags := map[string]string{}
	in := &dynamodb.ListTagsOfResourceInput{ResourceArn: &arn}
	for {
		out, err := s.db.ListTagsOfResource(ctx, in)
		if err != nil {
			return nil, err
		}
		for _, t := range out.Tags {
			tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
		}
		if out.NextToken == nil {
			return tags, nil
		}
		in.NextToken = out.NextToken
	}
}

// isUnsupported reports whether the engine has no such operation, as
// DynamoDB Local answers for continuous backups and tagging.
func isUnsupported(err error) bool {
	var apiErr smithy.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode() == "UnknownOperationException"
}

// tableState is the part of TableState DescribeTable itself answers.
func tableState(t *types.TableDescription) TableState {
	attrTypes := attributeTypes(t.AttributeDefinitions)
	st := TableState{
		Name:        aws.ToString(t.TableName),
		ARN:         aws.ToString(t.TableArn),
		Status:      string(t.TableStatus),
		Keys:        keyAttributes(t.KeySchema, attrTypes),
		BillingMode: "PROVISIONED", // a table created provisioned may have no BillingModeSummary
		StreamARN:   aws.ToString(t.LatestStreamArn),
		ItemCount:   aws.ToInt64(t.ItemCount),
		SizeBytes:   aws.ToInt64(t.TableSizeBytes),
	}
	if t.BillingModeSummary != nil && t.BillingModeSummary.BillingMode != "" {
		st.BillingMode = string(t.BillingModeSummary.BillingMode)
	}
	if spec := t.StreamSpecification; spec != nil && aws.ToBool(spec.StreamEnabled) {
		st.StreamViewType = string(spec.StreamViewType)
	} else {
		st.StreamARN = "" // the last stream's ARN stays after it is turned off
	}
	for _, gsi := range t.GlobalSecondaryIndexes {
		ix := IndexState{Name: aws.ToString(gsi.IndexName), Keys: keyAttributes(gsi.KeySchema, attrTypes), Status: string(gsi.IndexStatus)}
		if gsi.Projection != nil {
			ix.Projection = string(gsi.Projection.ProjectionType)
		}
		st.Indexes = append(st.Indexes, ix)
	}
	// DynamoDB lists indexes in no particular order.
	slices.SortFunc(st.Indexes, func(a, b IndexState) int { return strings.Compare(a.Name, b.Name) })
	return st
}

// definedState is the keys and indexes a CreateTableInput defines.
func definedState(def *dynamodb.CreateTableInput) (keys []KeyAttribute, indexes []IndexState) {
	attrTypes := attributeTypes(def.AttributeDefinitions)
	for _, gsi := range def.GlobalSecondaryIndexes {
		indexes = append(indexes, IndexState{Name: aws.ToString(gsi.IndexName), Keys: keyAttributes(gsi.KeySchema, attrTypes),
			Projection: string(gsi.Projection.ProjectionType)})
	}
	return keyAttributes(def.KeySchema, attrTypes), indexes
}

func attributeTypes(defs []types.AttributeDefinition) map[string]string {
	m := make(map[string]string, len(defs))
	for _, d := range defs {
		m[aws.ToString(d.AttributeName)] = string(d.AttributeType)
	}
	return m
}

func keyAttributes(schema []types.KeySchemaElement, attrTypes map[string]string) []KeyAttribute {
	keys := make([]KeyAttribute, 0, len(schema))
	for _, k := range schema {
		name := aws.ToString(k.AttributeName)
		keys = append(keys, KeyAttribute{Name: name, Type: attrTypes[name], Role: string(k.KeyType)})
	}
	return keys
}
