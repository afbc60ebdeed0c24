package dynamotest

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// StandIn answers, on a client, the control-plane operations DynamoDB Local
// does not have (it answers UnknownOperationException): continuous backups
// (DescribeContinuousBackups, UpdateContinuousBackups) and tagging
// (TagResource, ListTagsOfResource). It keeps what they set per table, as
// DynamoDB would, and records every request, so a test can run the code
// that calls them and check what it sent. Every other operation goes to
// DynamoDB Local, which accepts CreateTable's tags and drops them: the
// stand-in keeps those of a table created through it. Its zero value is
// ready to use.
type StandIn struct {
	mu       sync.Mutex
	pitr     map[string]bool              // table name → point-in-time recovery on
	tags     map[string]map[string]string // table ARN → tags
	requests []any                        // the inputs answered, in order
}

// Option installs the stand-in on a client.
func (s *StandIn) Option() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Initialize.Add(middleware.InitializeMiddlewareFunc("StandIn",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					if create, ok := in.Parameters.(*dynamodb.CreateTableInput); ok {
						out, md, err := next.HandleInitialize(ctx, in)
						if created, ok := out.Result.(*dynamodb.CreateTableOutput); ok && err == nil {
							s.mu.Lock()
							s.setTags(aws.ToString(created.TableDescription.TableArn), create.Tags)
							s.mu.Unlock()
						}
						return out, md, err
					}
					out, ok := s.answer(in.Parameters)
					if !ok {
						return next.HandleInitialize(ctx, in)
					}
					return middleware.InitializeOutput{Result: out}, middleware.Metadata{}, nil
				}), middleware.After)
		})
	}
}

// Requests returns the inputs of the operations the stand-in answered, in
// the order they came, such as *dynamodb.TagResourceInput.
func (s *StandIn) Requests() []any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]any(nil), s.requests...)
}

// answer handles in when it is one of the stand-in's operations.
func (s *StandIn) answer(in any) (any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pitr == nil {
		s.pitr = map[string]bool{}
	}
	var out any
	switch in := in.(type) {
	case *dynamodb.DescribeContinuousBackupsInput:
		out = &dynamodb.DescribeContinuousBackupsOutput{ContinuousBackupsDescription: s.backups(aws.ToString(in.TableName))}
	case *dynamodb.UpdateContinuousBackupsInput:
		s.pitr[aws.ToString(in.TableName)] = aws.ToBool(in.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled)
		out = &dynamodb.UpdateContinuousBackupsOutput{ContinuousBackupsDescription: s.backups(aws.ToString(in.TableName))}
	case *dynamodb.TagResourceInput:
		s.setTags(aws.ToString(in.ResourceArn), in.Tags)
		out = &dynamodb.TagResourceOutput{}
	case *dynamodb.ListTagsOfResourceInput:
		var list []types.Tag
		for k, v := range s.tags[aws.ToString(in.ResourceArn)] {
			list = append(list, types.Tag{Key: aws.String(k), Value: aws.String(v)})
		}
		out = &dynamodb.ListTagsOfResourceOutput{Tags: list}
	default:
		return nil, false
	}
	s.requests = append(s.requests, in)
	return out, true
}

// setTags adds tags to the resource's; s.mu is held.
func (s *StandIn) setTags(arn string, tags []types.Tag) {
	if s.tags == nil {
		s.tags = map[string]map[string]string{}
	}
	if s.tags[arn] == nil {
		s.tags[arn] = map[string]string{}
	}
	for _, t := range tags {
		s.tags[arn][aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
}

func (s *StandIn) backups(table string) *types.ContinuousBackupsDescription {
	status := types.PointInTimeRecoveryStatusDisabled
	if s.pitr[table] {
		status = types.PointInTimeRecoveryStatusEnabled
	}
	return &types.ContinuousBackupsDescription{
		ContinuousBackupsStatus:        types.ContinuousBackupsStatusEnabled,
		PointInTimeRecoveryDescription: &types.PointInTimeRecoveryDescription{PointInTimeRecoveryStatus: status},
	}
}
