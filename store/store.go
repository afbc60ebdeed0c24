// Package store is Fracti's single DynamoDB table: key builders, item types,
// the access patterns of the data model, transactions and cursors. It is the
// only package that knows how items are keyed.
package store

import (
	"cmp"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"
)

// Store reads and writes Fracti's items in one DynamoDB table.
type Store struct {
	db      *dynamodb.Client
	table   string
	cursors cursorCodec
	now     func() time.Time
	newID   func() string
	// maxCurrencies bounds the currencies a group holds balances in.
	maxCurrencies int
	// legacyGroupsClosed: groups created before joinByIdAllowed existed do
	// not admit by id either.
	legacyGroupsClosed bool
	// syncRetention is how long a sync token stays usable.
	syncRetention time.Duration
	// turns serializes this process's writes to each group (chain.go).
	turns *chainTurns
	// committed is told of every event this process commits (OnCommit).
	committed atomic.Pointer[func(Event)]
	// spendingMaxDays bounds the days one spending query covers.
	spendingMaxDays int
	// imports remembers the completed imports met (import_gate.go).
	imports *importGate
}

// DefaultMaxGroupCurrencies is how many currencies one group may hold
// balances in unless Options say otherwise.
const DefaultMaxGroupCurrencies = 10

// Options tune a Store; the zero value is usable in tests.
type Options struct {
	// CursorSecret signs pagination cursors so that a forged or altered one is
	// rejected. Servers behind one load balancer must share it.
	CursorSecret []byte
	// Now overrides the clock (tests).
	Now func() time.Time
	// NewID overrides how new items' ids are made (default: a random UUID),
	// so that a golden test's responses are the same on every run.
	NewID func() string
	// MaxGroupCurrencies bounds the currencies one group may hold balances
	// in (default DefaultMaxGroupCurrencies), which bounds what reading a
	// group's balances and debts costs.
	MaxGroupCurrencies int
	// LegacyGroupsClosed makes groups created before the joinByIdAllowed
	// setting existed refuse joins by id, as new groups do by default; left
	// false they keep admitting anyone who knows their id.
	LegacyGroupsClosed bool
	// SyncRetention is how long a sync token stays usable after it was
	// issued (default DefaultSyncRetention); an older one must reload.
	SyncRetention time.Duration
	// SpendingMaxDays bounds how many days one Group.spending or
	// User.spending range covers (default DefaultSpendingMaxDays).
	SpendingMaxDays int
}

// New returns a Store over the named table.
func New(db *dynamodb.Client, table string, opts Options) *Store {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	maxCurrencies := opts.MaxGroupCurrencies
	if maxCurrencies <= 0 {
		maxCurrencies = DefaultMaxGroupCurrencies
	}
	newID := opts.NewID
	if newID == nil {
		newID = uuid.NewString
	}
	syncRetention := opts.SyncRetention
	if syncRetention <= 0 {
		syncRetention = DefaultSyncRetention
	}
	return &Store{
		db:            db,
		table:         table,
		cursors:       cursorCodec{secret: opts.CursorSecret},
		now:           now,
		newID:         newID,
		maxCurrencies: maxCurrencies,
		turns:         newChainTurns(),
		imports:       &importGate{},
		syncRetention: syncRetention,

		legacyGroupsClosed: opts.LegacyGroupsClosed,
		spendingMaxDays:    cmp.Or(max(opts.SpendingMaxDays, 0), DefaultSpendingMaxDays),
	}
}

// AdmitsByID reports whether anyone who knows g's id may join it without an
// invite: its own setting, or for a group created before the setting existed,
// whatever Options.LegacyGroupsClosed says.
func (s *Store) AdmitsByID(g *Group) bool {
	if g.JoinByID == nil {
		return !s.legacyGroupsClosed
	}
	return *g.JoinByID
}

// MaxGroupCurrencies is how many currencies one group may hold balances in.
func (s *Store) MaxGroupCurrencies() int { return s.maxCurrencies }

// Table is the name of the table the store works on.
func (s *Store) Table() string { return s.table }

// timeLayout is ISO 8601 in UTC with exactly three fractional digits, so that
// timestamps sort as strings in the same order as in time.
const timeLayout = "2006-01-02T15:04:05.000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) { return time.Parse(time.RFC3339Nano, s) }

// stamp is the current time truncated to what a stored timestamp keeps.
func (s *Store) stamp() time.Time { return s.now().UTC().Truncate(time.Millisecond) }
