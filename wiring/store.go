package wiring

import (
	"context"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/fracti/api/config"
	"github.com/fracti/api/store"
)

// clientConfig is where the store's DynamoDB is.
func clientConfig(c config.Store) store.ClientConfig {
	return store.ClientConfig{Endpoint: c.Endpoint, Region: c.Region, DefaultCredentials: c.DefaultCredentials}
}

// OpenStore connects to DynamoDB as c says; with a local endpoint it also
// creates the table if it is missing, and gives it its stream. optFns add
// to the client (metrics).
func OpenStore(ctx context.Context, c config.Store, log *slog.Logger, optFns ...func(*dynamodb.Options)) (*store.Store, error) {
	db, err := store.NewClient(ctx, clientConfig(c), optFns...)
	if err != nil {
		return nil, err
	}
	s := store.New(db, c.Table, store.Options{
		CursorSecret: c.CursorSecret, MaxGroupCurrencies: c.MaxCurrencies, SpendingMaxDays: c.SpendingMaxDays,
		LegacyGroupsClosed: c.LegacyGroupsClosed, SyncRetention: c.SyncRetention,
	})
	if c.Endpoint != "" {
		created, err := s.EnsureTable(ctx)
		if err != nil {
			return nil, err
		}
		if created {
			log.Info("created table", "table", c.Table, "endpoint", c.Endpoint)
		}
		// A local table made before live updates existed gets its stream now.
		if enabled, err := s.EnableStream(ctx); err != nil {
			return nil, err
		} else if enabled {
			log.Info("enabled the table's stream for live updates", "table", c.Table)
		}
	}
	return s, nil
}

// Table is a store over the table named table where c says DynamoDB is,
// creating nothing: for the commands that make or inspect the table.
func Table(ctx context.Context, c config.Store, table string) (*store.Store, error) {
	db, err := store.NewClient(ctx, clientConfig(c))
	if err != nil {
		return nil, err
	}
	return store.New(db, table, store.Options{}), nil
}
