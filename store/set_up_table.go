package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// SetUp is what SetUpTable did.
type SetUp struct {
	// Created says the table was made now; otherwise it existed already.
	Created bool
	// Changed lists, in words, what was turned on or set after CreateTable
	// (or on the table that existed).
	Changed []string
	// Remaining is what still differs: what is not changed in place.
	Remaining []Difference
	// State is the table afterwards.
	State TableState
}

// tableActiveTimeout bounds each wait for the table to become active.
const tableActiveTimeout = 5 * time.Minute

// pointInTimeRecoveryAttempts bounds the tries to turn on point-in-time
// recovery, about a second apart: DynamoDB refuses it for a while after it
// creates a table (ContinuousBackupsUnavailableException).
const pointInTimeRecoveryAttempts = 180

// SetUpTable makes the table what the server needs and the setup asks for,
// and waits until it is active. A missing table is created as
// TableDefinition specifies (stream included) with the tags; then TTL,
// point-in-time recovery (when asked), the stream and missing tags are
// turned on, on a new table and on one that existed alike. It never turns
// anything off nor removes a tag, and it leaves what cannot change in place
// (keys, indexes, billing mode, a stream or TTL set differently) in
// Remaining. Settings the engine does not support are skipped (DynamoDB
// Local: point-in-time recovery and tags).
func (s *Store) SetUpTable(ctx context.Context, want TableSetup) (SetUp, error) {
	var res SetUp
	def := TableDefinition(s.table)
	def.Tags = tagList(want.Tags)
	_, err := s.db.CreateTable(ctx, def)
	var inUse *types.ResourceInUseException
	switch {
	case err == nil:
		res.Created = true
	case !errors.As(err, &inUse):
		return res, fmt.Errorf("create table %s: %w", s.table, err)
	}
	if err := s.waitActive(ctx); err != nil {
		return res, err
	}
	st, err := s.DescribeTable(ctx)
	if err != nil {
		return res, err
	}

	fixes := map[fixKind]bool{}
	tags := map[string]string{}
	for _, d := range st.Differences(want) {
		switch d.fix {
		case fixNone:
			res.Remaining = append(res.Remaining, d)
		case fixTag:
			tags[d.tag] = want.Tags[d.tag]
		}
		fixes[d.fix] = true
	}
	// The stream first: UpdateTable leaves the table UPDATING for a while,
	// and the other changes wait for it to be active again.
	if fixes[fixStream] {
		_, err := s.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: &s.table, StreamSpecification: StreamSpecification()})
		if err != nil {
			return res, fmt.Errorf("turn on the stream of %s: %w", s.table, err)
		}
		if err := s.waitActive(ctx); err != nil {
			return res, err
		}
		res.Changed = append(res.Changed, "stream: on ("+string(StreamSpecification().StreamViewType)+")")
	}
	if fixes[fixTTL] {
		if err := s.enableTimeToLive(ctx); err != nil {
			return res, err
		}
		res.Changed = append(res.Changed, "TTL: on "+attrTTL)
	}
	if fixes[fixPointInTimeRecovery] {
		if err := s.enablePointInTimeRecovery(ctx); err != nil {
			return res, err
		}
		res.Changed = append(res.Changed, "point-in-time recovery: on")
	}
	if len(tags) > 0 {
		if _, err := s.db.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: &st.ARN, Tags: tagList(tags)}); err != nil {
			return res, fmt.Errorf("tag %s: %w", s.table, err)
		}
		res.Changed = append(res.Changed, "tags: "+formatTags(tags))
	}

	if res.State, err = s.DescribeTable(ctx); err != nil {
		return res, err
	}
	// ListTagsOfResource is eventually consistent: tags just set may not be
	// listed yet, and TagResource has succeeded.
	if len(tags) > 0 && !res.State.TagsNotSupported {
		maps.Copy(res.State.Tags, tags)
	}
	return res, nil
}

// waitActive waits until the table exists and is ACTIVE.
func (s *Store) waitActive(ctx context.Context) error {
	waiter := dynamodb.NewTableExistsWaiter(s.db, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 100 * time.Millisecond
		o.MaxDelay = 5 * time.Second
	})
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: &s.table}, tableActiveTimeout); err != nil {
		return fmt.Errorf("wait for table %s to be active: %w", s.table, err)
	}
	return nil
}

// enableTimeToLive turns on TTL on the attribute TimeToLive names.
func (s *Store) enableTimeToLive(ctx context.Context) error {
	_, err := s.db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: &s.table, TimeToLiveSpecification: TimeToLive()})
	if err != nil {
		return fmt.Errorf("turn on TTL on %s: %w", s.table, err)
	}
	return nil
}

// enablePointInTimeRecovery turns on continuous backups, trying again while
// DynamoDB says they are not available yet (a table just created).
func (s *Store) enablePointInTimeRecovery(ctx context.Context) error {
	err := retry(ctx, pointInTimeRecoveryAttempts, time.Second, func() (bool, error) {
		_, err := s.db.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{
			TableName:                        &s.table,
			PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)},
		})
		var unavailable *types.ContinuousBackupsUnavailableException
		return !errors.As(err, &unavailable), err
	})
	if err != nil {
		return fmt.Errorf("turn on point-in-time recovery for %s: %w", s.table, err)
	}
	return nil
}

// tagList is tags as DynamoDB takes them, sorted by key.
func tagList(tags map[string]string) []types.Tag {
	var list []types.Tag
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		list = append(list, types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	return list
}

// formatTags writes tags as "k=v, k=v", sorted by key.
func formatTags(tags map[string]string) string {
	s := ""
	for i, k := range slices.Sorted(maps.Keys(tags)) {
		if i > 0 {
			s += ", "
		}
		s += k + "=" + tags[k]
	}
	return s
}
