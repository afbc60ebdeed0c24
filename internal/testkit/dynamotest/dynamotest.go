// Package dynamotest gives tests a fresh table on the DynamoDB Local engine
// that `make test` starts (DYNAMODB_ENDPOINT), SDK middleware to count
// calls and inject the faults DynamoDB Local cannot produce, and a Network
// in front of it that stages outages (refused, reset, hanging connections,
// HTTP 500, a write's answer lost).
package dynamotest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/fracti/api/store"
)

// Endpoint is the DynamoDB Local URL tests use; it fails the test when unset
// rather than skipping, so that a missing database never passes silently.
func Endpoint(t testing.TB) string {
	t.Helper()
	ep := os.Getenv("DYNAMODB_ENDPOINT")
	if ep == "" {
		t.Fatal("DYNAMODB_ENDPOINT is not set: run the tests with `make test`, which starts DynamoDB Local")
	}
	return ep
}

// Client returns a client for DynamoDB Local with extra options (middleware).
func Client(t testing.TB, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	t.Helper()
	db, err := store.NewClient(context.Background(), store.ClientConfig{Endpoint: Endpoint(t)}, optFns...)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// Table creates a uniquely named table and drops it when the test ends. It
// has no stream (DynamoDB Local is much slower keeping one): tests of live
// updates enable it (Store.EnableStream), as a server does on a local table.
func Table(t testing.TB) string {
	t.Helper()
	name := TableName(t)
	s := store.New(Client(t), name, store.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := s.EnsureTableWithoutStream(ctx); err != nil {
		t.Fatal(err)
	}
	return name
}

// TableName returns a unique name of a table that does not exist yet, for a
// test that creates it its own way; whatever table has it is dropped when
// the test ends.
func TableName(t testing.TB) string {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "fracti-test-" + hex.EncodeToString(b)
	s := store.New(Client(t), name, store.Options{})
	t.Cleanup(func() { _ = s.DeleteTable(context.Background()) })
	return name
}

// Store returns a store over a fresh table; optFns add SDK middleware to its client.
func Store(t testing.TB, optFns ...func(*dynamodb.Options)) *store.Store {
	t.Helper()
	return store.New(Client(t, optFns...), Table(t), store.Options{CursorSecret: []byte("test-secret")})
}
