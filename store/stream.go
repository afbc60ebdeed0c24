package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ErrStreamDisabled means the table has no DynamoDB Stream, so live updates
// cannot be read from it.
var ErrStreamDisabled = errors.New("the table has no DynamoDB Stream")

// StreamSpecification is the table's stream: every change with the item's
// old and new images, which is what live updates read.
func StreamSpecification() *types.StreamSpecification {
	return &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
}

// StreamARN returns the ARN of the table's stream, or ErrStreamDisabled.
func (s *Store) StreamARN(ctx context.Context) (string, error) {
	out, err := s.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &s.table})
	if err != nil {
		return "", fmt.Errorf("describe table %s: %w", s.table, err)
	}
	spec := out.Table.StreamSpecification
	if spec == nil || !aws.ToBool(spec.StreamEnabled) || out.Table.LatestStreamArn == nil {
		return "", fmt.Errorf("%w: %s", ErrStreamDisabled, s.table)
	}
	if spec.StreamViewType != types.StreamViewTypeNewAndOldImages && spec.StreamViewType != types.StreamViewTypeNewImage {
		return "", fmt.Errorf("%w: %s streams %s, not NEW_AND_OLD_IMAGES", ErrStreamDisabled, s.table, spec.StreamViewType)
	}
	return *out.Table.LatestStreamArn, nil
}

// EnableStream turns the table's stream on (NEW_AND_OLD_IMAGES) if it is
// off, and reports whether it did. Local tables created before live updates
// existed get theirs this way; on AWS the operator enables it (README).
func (s *Store) EnableStream(ctx context.Context) (bool, error) {
	if _, err := s.StreamARN(ctx); err == nil {
		return false, nil
	} else if !errors.Is(err, ErrStreamDisabled) {
		return false, err
	}
	_, err := s.db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: &s.table, StreamSpecification: StreamSpecification()})
	if err != nil {
		return false, fmt.Errorf("enable the stream of %s: %w", s.table, err)
	}
	return true, nil
}

// EventFromImage decodes a stream record's new image into the activity
// event it holds; ok is false for every other kind of item. Only an event
// newly written (no old image) is news: events are never changed.
func EventFromImage(newImage, oldImage map[string]types.AttributeValue) (ev Event, ok bool, err error) {
	if len(newImage) == 0 || len(oldImage) != 0 {
		return Event{}, false, nil
	}
	if !strings.HasPrefix(keyAttr(newImage, attrPK), prefixGroup) || !strings.HasPrefix(keyAttr(newImage, attrSK), prefixEvent) {
		return Event{}, false, nil
	}
	var rec eventRecord
	if err := attributevalue.UnmarshalMap(newImage, &rec); err != nil {
		return Event{}, false, fmt.Errorf("decode streamed event %s: %w", keyAttr(newImage, attrSK), err)
	}
	ev, err = rec.event()
	if err != nil {
		return Event{}, false, err
	}
	return ev, true, nil
}

// ActiveMembers reports which of the users are active members of the group,
// read strongly consistent in as few BatchGetItem calls as possible, with
// the group itself: nobody is a member of a deleted group.
func (s *Store) ActiveMembers(ctx context.Context, groupID string, userIDs []string) (map[string]bool, error) {
	keys := make([]GroupItemKey, 0, len(userIDs)+1)
	keys = append(keys, GroupKey(groupID))
	for _, u := range userIDs {
		keys = append(keys, MemberKey{GroupID: groupID, UserID: u}.Item())
	}
	items, err := s.getGroupItems(ctx, keys, true)
	if err != nil {
		return nil, err
	}
	active := make(map[string]bool, len(userIDs))
	if items[0].Group == nil {
		return active, nil
	}
	for _, it := range items[1:] {
		if it.Member.Active() {
			active[it.Member.UserID] = true
		}
	}
	return active, nil
}

// UserGroupIDs lists the ids of every group the user is an active member
// of, all pages.
func (s *Store) UserGroupIDs(ctx context.Context, userID string) ([]string, error) {
	all, err := s.AllUserGroups(ctx, userID)
	var ids []string
	for _, m := range all {
		if m.Active() {
			ids = append(ids, m.GroupID)
		}
	}
	return ids, err
}
