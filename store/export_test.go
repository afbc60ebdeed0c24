package store_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/fracti/api/internal/dynamotest"
)

func dynamotestClient(t *testing.T) *dynamodb.Client { return dynamotest.Client(t) }
