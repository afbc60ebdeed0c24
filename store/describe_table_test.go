package store_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// fractiKeys and fractiIndexes are the table of the data model.
var (
	fractiKeys    = []store.KeyAttribute{{Name: "PK", Type: "S", Role: "HASH"}, {Name: "SK", Type: "S", Role: "RANGE"}}
	fractiIndexes = []store.IndexState{
		{Name: "GSI1", Keys: []store.KeyAttribute{{Name: "GSI1PK", Type: "S", Role: "HASH"}, {Name: "GSI1SK", Type: "S", Role: "RANGE"}}, Projection: "ALL", Status: "ACTIVE"},
		{Name: "GSI2", Keys: []store.KeyAttribute{{Name: "GSI2PK", Type: "S", Role: "HASH"}, {Name: "GSI2SK", Type: "S", Role: "RANGE"}}, Projection: "ALL", Status: "ACTIVE"},
		{Name: "GSI3", Keys: []store.KeyAttribute{{Name: "GSI3PK", Type: "S", Role: "HASH"}, {Name: "GSI3SK", Type: "S", Role: "RANGE"}}, Projection: "ALL", Status: "ACTIVE"},
	}
)

// On DynamoDB Local itself: what it has is read back, and what it lacks
// (continuous backups, tags) is NotSupported, neither an error nor a
// difference.
func TestDescribeTable(t *testing.T) {
	name := dynamotest.Table(t) // TTL on, no stream
	s := store.New(dynamotest.Client(t), name, store.Options{})
	st, err := s.DescribeTable(ctx)
	require.NoError(t, err)
	require.Equal(t, name, st.Name)
	require.Contains(t, st.ARN, ":table/"+name)
	require.Equal(t, "ACTIVE", st.Status)
	require.Equal(t, fractiKeys, st.Keys)
	require.Equal(t, fractiIndexes, st.Indexes)
	require.Equal(t, "PAY_PER_REQUEST", st.BillingMode)
	require.Equal(t, "ttl", st.TTLAttribute)
	require.Equal(t, "ENABLED", st.TTLStatus)
	require.Empty(t, st.StreamViewType)
	require.Empty(t, st.StreamARN)
	require.Equal(t, store.NotSupported, st.PointInTimeRecovery)
	require.True(t, st.TagsNotSupported)
	require.Nil(t, st.Tags)

	diffs := st.Differences(store.TableSetup{PointInTimeRecovery: true, Tags: map[string]string{"app": "fracti"}})
	require.Len(t, diffs, 1, "%v", diffs)
	require.Equal(t, "stream: off (live updates need NEW_AND_OLD_IMAGES)", diffs[0].String())
	require.True(t, diffs[0].Fixable)

	_, err = s.EnableStream(ctx)
	require.NoError(t, err)
	st, err = s.DescribeTable(ctx)
	require.NoError(t, err)
	require.Equal(t, "NEW_AND_OLD_IMAGES", st.StreamViewType)
	require.Contains(t, st.StreamARN, ":table/"+name+"/stream/")
	require.Empty(t, st.Differences(store.TableSetup{PointInTimeRecovery: true}))
}

// Where the engine has continuous backups and tags (the stand-in answers
// them as DynamoDB does; DynamoDB Local has neither), they are read.
func TestDescribeTableReadsBackupsAndTags(t *testing.T) {
	standIn := &dynamotest.StandIn{}
	db := dynamotest.Client(t, standIn.Option())
	s := store.New(db, dynamotest.Table(t), store.Options{})
	st, err := s.DescribeTable(ctx)
	require.NoError(t, err)
	require.Equal(t, "DISABLED", st.PointInTimeRecovery)
	require.False(t, st.TagsNotSupported)
	require.Empty(t, st.Tags)

	_, err = db.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: &st.ARN, Tags: tagsOf("app", "fracti", "env", "dev")})
	require.NoError(t, err)
	st, err = s.DescribeTable(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"app": "fracti", "env": "dev"}, st.Tags)
	var listed []string
	for _, r := range standIn.Requests() {
		if in, ok := r.(*dynamodb.ListTagsOfResourceInput); ok {
			listed = append(listed, aws.ToString(in.ResourceArn))
		}
	}
	require.Equal(t, []string{st.ARN, st.ARN}, listed, "the tags are listed by the table's ARN")
}

func TestDescribeMissingTable(t *testing.T) {
	s := store.New(dynamotest.Client(t), dynamotest.TableName(t), store.Options{})
	_, err := s.DescribeTable(ctx)
	require.ErrorIs(t, err, store.ErrNoTable)
}

// Every way a table can differ from what the server needs, and which of
// them SetUpTable changes in place.
func TestTableDifferences(t *testing.T) {
	good := store.TableState{
		Name: "FractiTable", Keys: fractiKeys, Indexes: fractiIndexes, BillingMode: "PAY_PER_REQUEST",
		TTLAttribute: "ttl", TTLStatus: "ENABLED", StreamViewType: "NEW_AND_OLD_IMAGES",
		PointInTimeRecovery: "ENABLED", Tags: map[string]string{"app": "fracti", "team": "x"},
	}
	want := store.TableSetup{PointInTimeRecovery: true, Tags: map[string]string{"app": "fracti"}}
	require.Empty(t, good.Differences(want))
	enabling := good
	enabling.TTLStatus = "ENABLING"
	require.Empty(t, enabling.Differences(want), "TTL being turned on is on")

	for _, c := range []struct {
		name    string
		change  func(*store.TableState)
		want    string
		fixable bool
	}{
		{"keys", func(s *store.TableState) { s.Keys = fractiKeys[:1] },
			"keys: PK (S, HASH) (the data model needs PK (S, HASH), SK (S, RANGE); keys cannot change, so this takes a new table)", false},
		{"missing index", func(s *store.TableState) { s.Indexes = fractiIndexes[:2] },
			"index GSI3: missing (the data model needs GSI3PK (S, HASH), GSI3SK (S, RANGE), projection ALL; add it with UpdateTable)", false},
		{"projection", func(s *store.TableState) {
			s.Indexes = append([]store.IndexState{{Name: "GSI1", Keys: fractiIndexes[0].Keys, Projection: "KEYS_ONLY"}}, fractiIndexes[1:]...)
		}, "index GSI1: GSI1PK (S, HASH), GSI1SK (S, RANGE), projection KEYS_ONLY (the data model needs GSI1PK (S, HASH), GSI1SK (S, RANGE), projection ALL; delete the index and add it again with UpdateTable)", false},
		{"billing", func(s *store.TableState) { s.BillingMode = "PROVISIONED" },
			"billing mode: PROVISIONED (the data model specifies PAY_PER_REQUEST; switch it with UpdateTable if you mean to)", false},
		{"TTL off", func(s *store.TableState) { s.TTLStatus, s.TTLAttribute = "DISABLED", "" },
			"TTL: off (TTL on ttl purges expired access tokens, invites, idempotency records and deleted expenses)", true},
		{"TTL elsewhere", func(s *store.TableState) { s.TTLAttribute = "expiresAt" },
			"TTL: on expiresAt (the server needs TTL on ttl; turn TTL off, then run this again)", false},
		{"TTL going", func(s *store.TableState) { s.TTLStatus = "DISABLING" },
			"TTL: being turned off (the server needs TTL on ttl; run this again once it is off)", false},
		{"stream off", func(s *store.TableState) { s.StreamViewType = "" },
			"stream: off (live updates need NEW_AND_OLD_IMAGES)", true},
		{"stream keys only", func(s *store.TableState) { s.StreamViewType = "KEYS_ONLY" },
			"stream: KEYS_ONLY (live updates need NEW_AND_OLD_IMAGES; turn the stream off, then run this again)", false},
		{"PITR off", func(s *store.TableState) { s.PointInTimeRecovery = "DISABLED" },
			"point-in-time recovery: off (restores to any second of the last 35 days)", true},
		{"tag missing", func(s *store.TableState) { s.Tags = map[string]string{"team": "x"} }, "tag app: missing (wanted fracti)", true},
		{"tag differs", func(s *store.TableState) { s.Tags = map[string]string{"app": "other"} }, "tag app: other (wanted fracti)", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := good
			c.change(&st)
			diffs := st.Differences(want)
			require.Len(t, diffs, 1, "%v", diffs)
			require.Equal(t, c.want, diffs[0].String())
			require.Equal(t, c.fixable, diffs[0].Fixable)
		})
	}

	// Unasked, or unsupported by the engine, is no difference.
	off := good
	off.PointInTimeRecovery, off.Tags = "DISABLED", nil
	require.Empty(t, off.Differences(store.TableSetup{}))
	local := good
	local.PointInTimeRecovery, local.Tags, local.TagsNotSupported = store.NotSupported, nil, true
	require.Empty(t, local.Differences(want))
}
