package metrics_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/smithy-go"
	"github.com/fracti/api/internal/testkit/dynamotest"
	"github.com/fracti/api/internal/testkit/scrape"
	"github.com/fracti/api/metrics"
	"github.com/fracti/api/store"
	"github.com/stretchr/testify/require"
)

func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk}}
}

func item(pk, sk, v string) map[string]types.AttributeValue {
	it := key(pk, sk)
	it["v"] = &types.AttributeValueMemberS{Value: v}
	return it
}

// Every kind of call on DynamoDB Local is counted as the Counter on the same
// client counts it, timed once, and its consumed capacity (which the
// middleware asks for) added up; the caller's input is left as it was.
func TestDynamoDBCalls(t *testing.T) {
	m := metrics.New()
	srv := httptest.NewServer(m.Handler())
	t.Cleanup(srv.Close)
	calls := &dynamotest.Counter{}
	db := dynamotest.Client(t, calls.Option(), m.DynamoDB())
	table := aws.String(dynamotest.Table(t))
	ctx := context.Background()

	put := &dynamodb.PutItemInput{TableName: table, Item: item("P#1", "A", "one")}
	_, err := db.PutItem(ctx, put)
	require.NoError(t, err)
	require.Empty(t, put.ReturnConsumedCapacity, "the caller's input is not changed")
	_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: table, Key: key("P#1", "A"),
		UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "uno"}}})
	require.NoError(t, err)
	_, err = db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{*table: {
		{PutRequest: &types.PutRequest{Item: item("P#1", "B", "two")}},
		{PutRequest: &types.PutRequest{Item: item("P#1", "C", "three")}},
	}}})
	require.NoError(t, err)
	_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: table, Item: item("P#2", "A", "four")}},
		{Put: &types.Put{TableName: table, Item: item("P#3", "A", "five")}},
	}})
	require.NoError(t, err)
	got, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: table, Key: key("P#1", "A"), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	require.NoError(t, err)
	require.NotNil(t, got.ConsumedCapacity, "a caller's own request for capacity is kept")
	_, err = db.Query(ctx, &dynamodb.QueryInput{TableName: table, KeyConditionExpression: aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "P#1"}}})
	require.NoError(t, err)
	_, err = db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{*table: {
		Keys: []map[string]types.AttributeValue{key("P#1", "A"), key("P#1", "B"), key("P#2", "A")}}}})
	require.NoError(t, err)
	_, err = db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: table, Key: key("P#2", "A")}}, {Get: &types.Get{TableName: table, Key: key("P#3", "A")}}}})
	require.NoError(t, err)
	_, err = db.Scan(ctx, &dynamodb.ScanInput{TableName: table})
	require.NoError(t, err)
	_, err = db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: table, Key: key("P#1", "C")})
	require.NoError(t, err)
	for range 2 {
		_, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: table, Key: key("P#9", strconv.Itoa(1))})
		require.NoError(t, err)
	}
	// A real failure: the item exists.
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: table, Item: item("P#1", "A", "again"), ConditionExpression: aws.String("attribute_not_exists(PK)")})
	require.True(t, store.IsCondCheckFailed(err), "%v", err)

	scraped := scrape.Get(t, srv.URL)
	want := calls.ByOperation()
	require.Len(t, want, 10)
	require.Equal(t, 3, want["GetItem"])
	for op, n := range want {
		l := scrape.Labels{"operation": op}
		require.Equal(t, float64(n), scraped.Sum("fracti_dynamodb_calls_total", l), op)
		require.Equal(t, uint64(n), scraped.Count("fracti_dynamodb_call_duration_seconds", l), op)
		require.Positive(t, scraped.Sum("fracti_dynamodb_consumed_capacity_units_total", l), "capacity of %s", op)
	}
	require.Equal(t, 1.0, scraped.Sum("fracti_dynamodb_call_errors_total", nil))
	require.Equal(t, 1.0, scraped.Sum("fracti_dynamodb_call_errors_total",
		scrape.Labels{"operation": "PutItem", "code": "ConditionalCheckFailedException"}))
	require.Zero(t, scraped.Sum("fracti_dynamodb_retries_total", nil))
	require.Zero(t, scraped.Sum("fracti_dynamodb_throttles_total", nil))
}

// Throttled attempts are retried by the client's own retryer: the call
// counts once, each throttled attempt as a throttle, each attempt after the
// first as a retry; a call throttled on every attempt fails with its code.
func TestDynamoDBThrottles(t *testing.T) {
	m := metrics.New()
	srv := httptest.NewServer(m.Handler())
	t.Cleanup(srv.Close)
	throttles := map[string]int{"PutItem": 2, "TransactWriteItems": 1, "Query": 100}
	throttle := dynamotest.NewThrottle(func(op string, n int) string {
		switch {
		case n > throttles[op]:
			return ""
		case op == "TransactWriteItems":
			return "ThrottlingException"
		}
		return "ProvisionedThroughputExceededException"
	})
	db := dynamotest.Client(t, m.DynamoDB(), throttle.Option())
	table := aws.String(dynamotest.Table(t))
	ctx := context.Background()

	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: table, Item: item("P#1", "A", "one")})
	require.NoError(t, err)
	_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: table, Item: item("P#2", "A", "two")}}}})
	require.NoError(t, err)
	_, err = db.Query(ctx, &dynamodb.QueryInput{TableName: table, KeyConditionExpression: aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "P#1"}}})
	var api smithy.APIError
	require.True(t, errors.As(err, &api), "%v", err)
	require.Equal(t, "ProvisionedThroughputExceededException", api.ErrorCode())

	scraped := scrape.Get(t, srv.URL)
	for op, want := range map[string]struct{ calls, throttles, retries float64 }{
		"PutItem":            {1, 2, 2},
		"TransactWriteItems": {1, 1, 1},
	} {
		l := scrape.Labels{"operation": op}
		require.Equal(t, want.calls, scraped.Sum("fracti_dynamodb_calls_total", l), op)
		require.Equal(t, want.throttles, scraped.Sum("fracti_dynamodb_throttles_total", l), op)
		require.Equal(t, want.retries, scraped.Sum("fracti_dynamodb_retries_total", l), op)
		require.Zero(t, scraped.Sum("fracti_dynamodb_call_errors_total", l), op)
		require.Positive(t, scraped.Sum("fracti_dynamodb_consumed_capacity_units_total", l), op)
	}
	query := scrape.Labels{"operation": "Query"}
	require.Equal(t, 1.0, scraped.Sum("fracti_dynamodb_calls_total", query))
	attempts := scraped.Sum("fracti_dynamodb_throttles_total", query)
	require.GreaterOrEqual(t, attempts, 2.0, "the retryer tried again")
	require.Equal(t, attempts-1, scraped.Sum("fracti_dynamodb_retries_total", query))
	require.Equal(t, 1.0, scraped.Sum("fracti_dynamodb_call_errors_total",
		scrape.Labels{"operation": "Query", "code": "ProvisionedThroughputExceededException"}))
}

// The Streams client's calls are counted too.
func TestDynamoDBStreamsCalls(t *testing.T) {
	m := metrics.New()
	srv := httptest.NewServer(m.Handler())
	t.Cleanup(srv.Close)
	streams, err := store.NewStreamsClient(context.Background(), store.ClientConfig{Endpoint: dynamotest.Endpoint(t)}, m.DynamoDBStreams())
	require.NoError(t, err)
	_, err = streams.ListStreams(context.Background(), &dynamodbstreams.ListStreamsInput{TableName: aws.String(dynamotest.Table(t))})
	require.NoError(t, err)
	scraped := scrape.Get(t, srv.URL)
	require.Equal(t, 1.0, scraped.Sum("fracti_dynamodb_calls_total", scrape.Labels{"operation": "ListStreams"}))
	require.Equal(t, uint64(1), scraped.Count("fracti_dynamodb_call_duration_seconds", scrape.Labels{"operation": "ListStreams"}))
}
