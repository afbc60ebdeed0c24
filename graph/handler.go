package graph

import (
	"context"
	"log/slog"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/fracti/api/graph/generated"
	"github.com/fracti/api/graph/limits"
	"github.com/fracti/api/graph/model"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/receipts"
	"github.com/fracti/api/store"
	"github.com/vektah/gqlparser/v2/ast"
)

// HandlerConfig tunes the GraphQL executor.
type HandlerConfig struct {
	// Limits bound what one operation may ask for; zero fields take limits.Defaults.
	Limits limits.Config
	// LoaderWait is the batch window of the loaders each subscription event
	// (and each operation sent over a WebSocket) gets.
	LoaderWait time.Duration
	// Calls is how many DynamoDB calls resolving one such response may make.
	Calls int
	// TrustedDocuments, when set, are the only operations that run; automatic
	// persisted queries are off then.
	TrustedDocuments *TrustedDocuments
	// DisableIntrospection refuses __schema and __type (INTROSPECTION_DISABLED).
	DisableIntrospection bool
	// DisableSuggestions leaves "Did you mean …?" out of validation errors.
	DisableSuggestions bool
	// LoaderBatches, when set, is told the size of every batch read those
	// loaders make (metrics).
	LoaderBatches loaders.BatchObserver
	// ErrorCodes, when set, is told the extensions.code of every error the
	// executor presents, once per error (metrics).
	ErrorCodes func(code string)
	// GenericMarshal turns the fast path off (FAST_MARSHAL=false): every
	// field is written by gqlgen's generic executor (see fastpath.go).
	GenericMarshal bool
}

// liveResponseTimeout bounds resolving one response of an operation sent
// over a WebSocket (a subscription's wait for its next event excepted).
const liveResponseTimeout = 30 * time.Second

// typicalBalances is how many entries a group's balance or debt list is
// costed at: twenty members in five currencies. The exact worst case (every
// member in every allowed currency) would price a home screen of twenty
// groups out; this keeps it in while lists nested in lists still multiply.
const typicalBalances = 100

// NewHandler is the GraphQL executor: Apollo's automatic persisted queries
// (or only trusted documents), the limits (checked before gqlgen parses,
// validates or runs anything), introspection for the Playground (unless
// turned off), per-field panic recovery and the error codes clients rely on.
// The caller adds the HTTP transports.
func NewHandler(r *Resolver, cfg HandlerConfig) *handler.Server {
	if r.Receipts == nil {
		r.Receipts = receipts.New(r.Store, nil, receipts.Options{}) // answers as a server without a bucket
	}
	ec := generated.Config{Resolvers: r}
	// Balance lists cost as many entries as the store lets a group's currencies grow to.
	listCosts(&ec.Complexity, r.Store.MaxGroupCurrencies())
	schema := generated.NewExecutableSchema(ec)
	srv := handler.New(schema)
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	if cfg.DisableIntrospection {
		srv.Use(noIntrospection{})
	} else {
		srv.Use(extension.Introspection{})
	}
	// Order matters: the persisted query fills in the document the limits check.
	if cfg.TrustedDocuments != nil {
		srv.Use(trustedOnly{cfg.TrustedDocuments})
	} else {
		srv.Use(newPersistedQueries())
	}
	srv.Use(limits.New(cfg.Limits))
	present := ErrorPresenter(r.log())
	if cfg.DisableSuggestions {
		srv.SetDisableSuggestion(true)
		present = withoutSuggestions(present)
	}
	srv.SetErrorPresenter(countCodes(present, cfg.ErrorCodes))
	srv.SetRecoverFunc(RecoverFunc(r.log()))
	srv.AroundOperations(r.limitRate)
	srv.AroundFields(RequireAuth)
	if !cfg.GenericMarshal {
		fp := newFastPath(schema.Schema())
		srv.AroundRootFields(fp.aroundRootField)
		srv.AroundFields(fp.around)
	}
	srv.AroundResponses(r.freshLoaders(cfg))
	return srv
}

// freshLoaders gives every event of a subscription its own loaders and call
// budget, so that nothing one event read is served stale to the next; an
// operation sent over a WebSocket (which has no per-request middleware) gets
// them too, with a deadline.
func (r *Resolver) freshLoaders(cfg HandlerConfig) graphql.ResponseMiddleware {
	return func(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
		var subscription bool
		if graphql.HasOperationContext(ctx) {
			op := graphql.GetOperationContext(ctx).Operation
			subscription = op != nil && op.Operation == ast.Subscription
		}
		if !subscription && loaders.Present(ctx) {
			return next(ctx)
		}
		if !subscription {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, liveResponseTimeout)
			defer cancel()
		}
		fresh := func() *loaders.Loaders {
			if subscription {
				// An event's loaders may be shared by all its subscribers:
				// their reads must not end with the first one's stream.
				return loaders.New(r.Store, cfg.LoaderWait, loaders.ObserveBatches(cfg.LoaderBatches), loaders.Detached(liveResponseTimeout))
			}
			return loaders.New(r.Store, cfg.LoaderWait, loaders.ObserveBatches(cfg.LoaderBatches))
		}
		// One event's subscribers share its loaders: one read per event on
		// this instance, whatever the number of subscribers.
		switch e := eventFrom(ctx); {
		case subscription && e != nil: // rendered once per payload key (ForEvent)
			ctx = loaders.With(ctx, e.shared.Once(e.event, func() any { return fresh() }).(*loaders.Loaders))
		case subscription: // a stream of its own: the event is known once it yields it (shareEventLoaders)
			ctx, _ = loaders.WithSlot(ctx, fresh)
		default:
			ctx = loaders.With(ctx, fresh())
		}
		if cfg.Calls > 0 {
			ctx = store.WithCallBudget(ctx, cfg.Calls)
		}
		return next(ctx)
	}
}

func (r *Resolver) log() *slog.Logger {
	if r.Log == nil {
		return slog.Default()
	}
	return r.Log
}

// listCosts makes every list field cost its children once per item it may
// return, so that nesting lists multiplies: a connection by its page size,
// the others by a realistic bound.
func listCosts(c *generated.ComplexityRoot, currencies int) {
	perPage := func(child int, first *int, _ *string) int {
		n := defaultPageSize
		if first != nil && *first > 0 {
			n = min(*first, 100)
		}
		return 1 + child*n
	}
	c.User.Groups = func(child int, _ *bool, first *int, after *string) int { return perPage(child, first, after) }
	c.User.ExpensesPaid, c.User.Owes, c.User.Settlements, c.User.Activity = perPage, perPage, perPage, perPage
	c.Group.Members, c.Group.Settlements = perPage, perPage
	c.Group.Expenses = func(child int, first *int, after *string, _ *model.ExpenseFilter) int {
		return perPage(child, first, after)
	}
	c.User.Expenses = func(child int, _ *model.ExpenseFilter, first *int, after *string) int {
		return perPage(child, first, after)
	}
	// Each expense's comments are a Query of their own: a page of expenses
	// asking for them multiplies.
	c.Expense.Comments = perPage

	times := func(n int) func(int) int { return func(child int) int { return 1 + child*n } }
	// An expense's splits and payers are bounded by the participant limit but usually short.
	c.Expense.Splits, c.Expense.Payers = times(10), times(10)
	// An itemized expense's lines: a receipt's worth, each shared by a few.
	c.Expense.Items, c.ExpenseItem.Shares, c.Expense.Adjustments = times(10), times(3), times(3)
	// One balance per member and currency; at most one debt per member and currency.
	c.Group.Balances = times(typicalBalances)
	c.Group.Debts = func(child int, _ *bool, _ *string) int { return 1 + child*typicalBalances }
	c.Member.Balances = times(currencies)
	// A user's totals: one per currency across their groups.
	c.UserSummary.Totals = times(2 * currencies)
	// A user's access tokens, a group's live invites: a handful.
	c.User.AccessTokens, c.Group.Invites = times(20), times(20)
}
