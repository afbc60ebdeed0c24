package commands

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"

	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

// `table create` on DynamoDB Local: the table from nothing, then again on
// the table it made, then `table describe`.
func TestTableCreateAndDescribe(t *testing.T) {
	ctx := context.Background()
	t.Setenv("DYNAMODB_ENDPOINT", dynamotest.Endpoint(t))
	name := dynamotest.TableName(t)
	t.Setenv("DYNAMODB_TABLE", name)

	var out bytes.Buffer
	require.NoError(t, call(t, tableCommand, []string{"create", "--tag", "team=payments"}, &out))
	require.Contains(t, out.String(), "Created table "+name+".\n  set TTL: on ttl\n")
	require.Contains(t, out.String(), "skipped point-in-time recovery and tags: this DynamoDB does not support them (DynamoDB Local)")
	require.Contains(t, out.String(), "stream       NEW_AND_OLD_IMAGES, arn:")

	st, err := store.New(dynamotest.Client(t), name, store.Options{}).DescribeTable(ctx)
	require.NoError(t, err)
	require.Equal(t, "ACTIVE", st.Status)
	require.Equal(t, "NEW_AND_OLD_IMAGES", st.StreamViewType)
	require.Equal(t, "ttl", st.TTLAttribute)
	require.Empty(t, st.Differences(store.TableSetup{PointInTimeRecovery: true, Tags: TableTags("")}))

	out.Reset()
	require.NoError(t, call(t, tableCommand, []string{"create"}, &out))
	require.Contains(t, out.String(), "Table "+name+" exists already.\n  nothing to change\n")

	out.Reset()
	require.NoError(t, call(t, tableCommand, []string{"describe"}, &out))
	for _, line := range []string{
		"table        " + name + "\n",
		"status       ACTIVE\n",
		"keys         PK (S, HASH), SK (S, RANGE)\n",
		"index GSI1   GSI1PK (S, HASH), GSI1SK (S, RANGE), projection ALL, ACTIVE\n",
		"index GSI2   GSI2PK (S, HASH), GSI2SK (S, RANGE), projection ALL, ACTIVE\n",
		"index GSI3   GSI3PK (S, HASH), GSI3SK (S, RANGE), projection ALL, ACTIVE\n",
		"billing      PAY_PER_REQUEST\n",
		"TTL          on ttl (ENABLED)\n",
		"PITR         not supported by this DynamoDB (DynamoDB Local)\n",
		"tags         not supported by this DynamoDB (DynamoDB Local)\n",
		"items        about 0, 0 B",
		"The table is what the server needs.",
	} {
		require.Contains(t, out.String(), line)
	}
}

// --env names the table FractiTable-<env>.
func TestTableCreateForAnEnvironment(t *testing.T) {
	t.Setenv("DYNAMODB_ENDPOINT", dynamotest.Endpoint(t))
	t.Setenv("DYNAMODB_TABLE", "")
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	env := "t" + hex.EncodeToString(b)
	s := store.New(dynamotest.Client(t), "FractiTable-"+env, store.Options{})
	t.Cleanup(func() { _ = s.DeleteTable(context.Background()) })

	var out bytes.Buffer
	require.NoError(t, call(t, tableCommand, []string{"create", "--env", env}, &out))
	require.Contains(t, out.String(), "Created table FractiTable-"+env+".")
	_, err := s.DescribeTable(context.Background())
	require.NoError(t, err)
}

// A table that lacks its stream: describe says so, and what `table create`
// would change; one with keys of another shape needs an operator, and
// create fails on it.
func TestTableDescribeFlagsDifferences(t *testing.T) {
	ctx := context.Background()
	t.Setenv("DYNAMODB_ENDPOINT", dynamotest.Endpoint(t))
	t.Setenv("DYNAMODB_TABLE", dynamotest.Table(t)) // no stream, as tests make them

	var out bytes.Buffer
	require.NoError(t, call(t, tableCommand, []string{"describe"}, &out))
	require.Contains(t, out.String(), "stream       off\n")
	require.Contains(t, out.String(), "Differs from what the server needs; `table create` changes this:\n  stream: off (live updates need NEW_AND_OLD_IMAGES)\n")

	odd := dynamotest.TableName(t)
	def := store.TableDefinition(odd)
	def.GlobalSecondaryIndexes = def.GlobalSecondaryIndexes[1:]
	def.AttributeDefinitions = append(def.AttributeDefinitions[:2], def.AttributeDefinitions[4:]...)
	_, err := dynamotest.Client(t).CreateTable(ctx, def)
	require.NoError(t, err)
	t.Setenv("DYNAMODB_TABLE", odd)
	out.Reset()
	require.NoError(t, call(t, tableCommand, []string{"describe"}, &out))
	require.Contains(t, out.String(), "change it by hand (or make a new table):\n  index GSI1: missing")
	out.Reset()
	err = call(t, tableCommand, []string{"create"}, &out)
	require.ErrorContains(t, err, "still differs from what the server needs")
	require.Contains(t, out.String(), "Still differs from what the server needs; change it by hand (or make a new table):\n  index GSI1: missing")
}

func TestTableDescribeMissingTable(t *testing.T) {
	t.Setenv("DYNAMODB_ENDPOINT", dynamotest.Endpoint(t))
	name := dynamotest.TableName(t)
	t.Setenv("DYNAMODB_TABLE", name)
	var out bytes.Buffer
	err := call(t, tableCommand, []string{"describe"}, &out)
	require.EqualError(t, err, "table "+name+" does not exist: create it with `table create` and the same flags (or deploy/fracti.yaml)")
	require.Empty(t, out.String())
	require.Error(t, run("table", "describe"), "the process exits non-zero")
	_, err = store.New(dynamotest.Client(t), name, store.Options{}).DescribeTable(context.Background())
	require.ErrorIs(t, err, store.ErrNoTable, "describe made no table")
}

// Where the engine has continuous backups and tags (the stand-in answers
// them; DynamoDB Local has neither), create sets and prints them.
func TestTableCreatePrintsBackupsAndTags(t *testing.T) {
	standIn := &dynamotest.StandIn{}
	s := store.New(dynamotest.Client(t, standIn.Option()), dynamotest.TableName(t), store.Options{})
	var out bytes.Buffer
	want := store.TableSetup{PointInTimeRecovery: true, Tags: TableTags("prod")}
	require.NoError(t, createTable(context.Background(), s, want, &out))
	require.Contains(t, out.String(), "  set TTL: on ttl\n  set point-in-time recovery: on\n\n")
	require.Contains(t, out.String(), "PITR         ENABLED\n")
	require.Contains(t, out.String(), "tags         app=fracti, env=prod\n")

	out.Reset()
	require.NoError(t, describeTable(context.Background(), s, store.TableSetup{PointInTimeRecovery: true, Tags: map[string]string{"team": "x"}}, &out))
	require.Contains(t, out.String(), "`table create` changes this:\n  tag team: missing (wanted x)\n")
}

func TestTableFlags(t *testing.T) {
	for _, c := range []struct {
		configured string
		set        bool
		env, want  string
	}{
		{"FractiTable", false, "", "FractiTable"},
		{"Custom", true, "", "Custom"},
		{"FractiTable", false, "prod", "FractiTable-prod"},
		{"FractiTable-prod", true, "prod", "FractiTable-prod"},
	} {
		got, err := TableName(c.configured, c.set, c.env)
		require.NoError(t, err)
		require.Equal(t, c.want, got)
	}
	_, err := TableName("FractiTable", true, "prod")
	require.ErrorContains(t, err, "DYNAMODB_TABLE is FractiTable")

	for _, args := range [][]string{
		{"table"},
		{"table", "drop"},
		{"table", "create", "--env", "Prod"},
		{"table", "create", "--env", "dev_1"},
		{"table", "create", "--tag", "novalue"},
		{"table", "create", "--tag", "=x"},
		{"table", "create", "--tag", "app=other"},
		{"table", "create", "--tag", "env=prod"},
		{"table", "describe", "extra"},
	} {
		require.Error(t, run(args...), args)
	}
}
