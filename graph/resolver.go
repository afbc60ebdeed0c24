package graph

import (
	"log/slog"

	"github.com/fracti/api/store"
)

// Resolver is the root of every resolver: thin functions that validate
// input, check who may see or change what, and call the store or the
// request's loaders.
type Resolver struct {
	Store *store.Store
	Log   *slog.Logger
}
