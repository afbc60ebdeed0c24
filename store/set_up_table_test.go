package store_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// tagsOf is tags from alternating keys and values.
func tagsOf(kv ...string) []types.Tag {
	var tags []types.Tag
	for i := 0; i+1 < len(kv); i += 2 {
		tags = append(tags, types.Tag{Key: aws.String(kv[i]), Value: aws.String(kv[i+1])})
	}
	return tags
}

var prodSetup = store.TableSetup{PointInTimeRecovery: true, Tags: map[string]string{"app": "fracti", "env": "prod"}}

// requestsOf is the inputs of type T the stand-in answered.
func requestsOf[T any](s *dynamotest.StandIn) []T {
	var out []T
	for _, r := range s.Requests() {
		if in, ok := r.(T); ok {
			out = append(out, in)
		}
	}
	return out
}

// A table made from nothing: the data model's keys and indexes, on demand,
// the stream, TTL on ttl, point-in-time recovery and the tags. DynamoDB
// refuses point-in-time recovery for a while after it creates a table
// (DynamoDB Local never does: the fault stands for it), so that is tried
// again. Continuous backups and tags are answered by the stand-in, since
// DynamoDB Local has neither; everything else is DynamoDB Local's.
func TestSetUpTableCreatesIt(t *testing.T) {
	standIn := &dynamotest.StandIn{}
	notYet := dynamotest.NewFault(func(op string, n int) error {
		if op == "UpdateContinuousBackups" && n == 1 {
			return &types.ContinuousBackupsUnavailableException{Message: aws.String("Backups are being enabled for the table")}
		}
		return nil
	})
	s := store.New(dynamotest.Client(t, notYet.Option(), standIn.Option()), dynamotest.TableName(t), store.Options{})

	res, err := s.SetUpTable(ctx, prodSetup)
	require.NoError(t, err)
	require.True(t, res.Created)
	require.Equal(t, []string{"TTL: on ttl", "point-in-time recovery: on"}, res.Changed)
	require.Empty(t, res.Remaining)

	st, err := s.DescribeTable(ctx)
	require.NoError(t, err)
	require.Equal(t, "ACTIVE", st.Status)
	require.Equal(t, fractiKeys, st.Keys)
	require.Equal(t, fractiIndexes, st.Indexes)
	require.Equal(t, "PAY_PER_REQUEST", st.BillingMode)
	require.Equal(t, "NEW_AND_OLD_IMAGES", st.StreamViewType)
	require.NotEmpty(t, st.StreamARN)
	require.Equal(t, "ttl", st.TTLAttribute)
	require.Equal(t, "ENABLED", st.TTLStatus)
	require.Equal(t, "ENABLED", st.PointInTimeRecovery)
	require.Equal(t, prodSetup.Tags, st.Tags, "the tags came with CreateTable")
	require.Equal(t, st, res.State)
	require.Empty(t, st.Differences(prodSetup))

	updates := requestsOf[*dynamodb.UpdateContinuousBackupsInput](standIn)
	require.Len(t, updates, 1, "the refused try never reached the stand-in")
	require.Equal(t, s.Table(), aws.ToString(updates[0].TableName))
	require.True(t, aws.ToBool(updates[0].PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled))
	require.Empty(t, requestsOf[*dynamodb.TagResourceInput](standIn))

	// Run again: nothing to do.
	again, err := s.SetUpTable(ctx, prodSetup)
	require.NoError(t, err)
	require.False(t, again.Created)
	require.Empty(t, again.Changed)
	require.Empty(t, again.Remaining)
	require.Len(t, requestsOf[*dynamodb.UpdateContinuousBackupsInput](standIn), 1)
}

// A table that exists without stream, TTL, backups or tags gets them, and
// keeps the tags it had; a second run changes nothing.
func TestSetUpTableWhenItExists(t *testing.T) {
	standIn := &dynamotest.StandIn{}
	db := dynamotest.Client(t, standIn.Option())
	name := dynamotest.TableName(t)
	bare := store.TableDefinition(name)
	bare.StreamSpecification = nil
	bare.Tags = tagsOf("team", "payments", "env", "staging")
	_, err := db.CreateTable(ctx, bare)
	require.NoError(t, err)
	s := store.New(db, name, store.Options{})

	res, err := s.SetUpTable(ctx, prodSetup)
	require.NoError(t, err)
	require.False(t, res.Created)
	require.Equal(t, []string{"stream: on (NEW_AND_OLD_IMAGES)", "TTL: on ttl", "point-in-time recovery: on", "tags: app=fracti, env=prod"}, res.Changed)
	require.Empty(t, res.Remaining)

	st, err := s.DescribeTable(ctx)
	require.NoError(t, err)
	require.Equal(t, "NEW_AND_OLD_IMAGES", st.StreamViewType)
	require.Equal(t, "ENABLED", st.TTLStatus)
	require.Equal(t, "ENABLED", st.PointInTimeRecovery)
	require.Equal(t, map[string]string{"app": "fracti", "env": "prod", "team": "payments"}, st.Tags)
	tagged := requestsOf[*dynamodb.TagResourceInput](standIn)
	require.Len(t, tagged, 1)
	require.Equal(t, st.ARN, aws.ToString(tagged[0].ResourceArn))
	require.Equal(t, tagsOf("app", "fracti", "env", "prod"), tagged[0].Tags, "only what was missing or different")

	again, err := s.SetUpTable(ctx, prodSetup)
	require.NoError(t, err)
	require.Empty(t, again.Changed)
	require.Empty(t, again.Remaining)
}

// What cannot change in place is reported, not changed, and the rest is
// still set up; without PointInTimeRecovery it is not turned on.
func TestSetUpTableLeavesWhatItCannotChange(t *testing.T) {
	standIn := &dynamotest.StandIn{}
	db := dynamotest.Client(t, standIn.Option())
	name := dynamotest.TableName(t)
	odd := store.TableDefinition(name)
	odd.GlobalSecondaryIndexes = odd.GlobalSecondaryIndexes[:2]
	odd.AttributeDefinitions = odd.AttributeDefinitions[:6]
	odd.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}
	_, err := db.CreateTable(ctx, odd)
	require.NoError(t, err)
	s := store.New(db, name, store.Options{})

	res, err := s.SetUpTable(ctx, store.TableSetup{Tags: map[string]string{"app": "fracti"}})
	require.NoError(t, err)
	var remaining []string
	for _, d := range res.Remaining {
		remaining = append(remaining, d.String())
	}
	require.Equal(t, []string{
		"index GSI3: missing (the data model needs GSI3PK (S, HASH), GSI3SK (S, RANGE), projection ALL; add it with UpdateTable)",
		"stream: KEYS_ONLY (live updates need NEW_AND_OLD_IMAGES; turn the stream off, then run this again)",
	}, remaining)
	require.Equal(t, []string{"TTL: on ttl", "tags: app=fracti"}, res.Changed)
	require.Equal(t, "KEYS_ONLY", res.State.StreamViewType)
	require.Equal(t, "DISABLED", res.State.PointInTimeRecovery)
	require.Empty(t, requestsOf[*dynamodb.UpdateContinuousBackupsInput](standIn))
}

// On DynamoDB Local as it is: no continuous backups and no tags, which are
// skipped; the rest is set up.
func TestSetUpTableOnDynamoDBLocal(t *testing.T) {
	s := store.New(dynamotest.Client(t), dynamotest.TableName(t), store.Options{})
	res, err := s.SetUpTable(ctx, prodSetup)
	require.NoError(t, err)
	require.True(t, res.Created)
	require.Equal(t, []string{"TTL: on ttl"}, res.Changed)
	require.Empty(t, res.Remaining)
	require.Equal(t, store.NotSupported, res.State.PointInTimeRecovery)
	require.True(t, res.State.TagsNotSupported)
	require.Equal(t, "NEW_AND_OLD_IMAGES", res.State.StreamViewType)
	require.Equal(t, "ENABLED", res.State.TTLStatus)
}
