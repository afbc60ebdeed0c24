package graph

import (
	"log/slog"

	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
)

// MaxComplexity bounds the work one operation may ask for. A list field
// counts its children once per item it may return (`first`), so a page of
// 100 expenses with their splits' members is fine while the same nested
// inside 100 groups is refused before anything is read.
const MaxComplexity = 20_000

// NewHandler is the GraphQL endpoint: POST and GET (for persisted queries),
// Apollo's automatic persisted queries, introspection for Playground,
// per-field panic recovery and the error codes clients rely on.
func NewHandler(r *Resolver) *handler.Server {
	cfg := Config{Resolvers: r}
	pageCost(&cfg.Complexity)
	srv := handler.New(NewExecutableSchema(cfg))
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.Use(extension.Introspection{})
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](1000)})
	srv.Use(extension.FixedComplexityLimit(MaxComplexity))
	srv.SetErrorPresenter(ErrorPresenter(r.log()))
	srv.SetRecoverFunc(RecoverFunc(r.log()))
	srv.AroundFields(RequireAuth)
	return srv
}

func (r *Resolver) log() *slog.Logger {
	if r.Log == nil {
		return slog.Default()
	}
	return r.Log
}

// pageCost makes every connection cost its children times its page size.
func pageCost(c *ComplexityRoot) {
	perPage := func(child int, first *int, _ *string) int {
		n := defaultPageSize
		if first != nil && *first > 0 {
			n = min(*first, 100)
		}
		return 1 + child*n
	}
	c.User.Groups, c.User.ExpensesPaid, c.User.Owes, c.User.Settlements, c.User.Activity = perPage, perPage, perPage, perPage, perPage
	c.Group.Members, c.Group.Expenses, c.Group.Settlements = perPage, perPage, perPage
	// An expense's splits list is bounded by the participant limit but usually short.
	c.Expense.Splits = func(child int) int { return 1 + child*10 }
}
