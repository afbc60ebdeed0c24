// Package config is the server's configuration: one typed Config with a
// section per subsystem, loaded from the environment once (Load). Every
// setting is declared in settings.go with its name, default and meaning;
// docs/configuration.md is generated from those declarations, and no other
// package of the server reads the environment.
package config

import (
	"net/url"
	"strings"
	"time"

	"github.com/fracti/api/graph/limits"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/quota"
)

// TableBaseName is the table's name without an environment: the default
// of DYNAMODB_TABLE, and FractiTable-<env> with `table --env`.
const TableBaseName = "FractiTable"

// Config is the whole configuration, a section per subsystem; each
// subsystem is built from its own section.
type Config struct {
	Server    Server
	Store     Store
	Objects   ObjectStore
	Receipts  Receipts
	Auth      Auth
	Quota     quota.Limits
	GraphQL   GraphQL
	Live      Live
	Stream    Stream
	Telegram  Telegram
	Notify    Notify
	Recurring Recurring
	Purge     Purge
	TON       TON
	Rates     Rates
	Metrics   Metrics
	GC        GC
}

// Server is the HTTP server: its port, the requests it takes, the
// Playground and its logs.
type Server struct {
	Port           string   // PORT
	CORSOrigins    []string // CORS_ALLOWED_ORIGINS
	MaxBodyBytes   int64    // MAX_BODY_BYTES
	MaxUploadBytes int64    // IMPORT_MAX_BYTES: a multipart request (importGroup's file)
	MaxUploads     int      // IMPORT_MAX_CONCURRENT: multipart requests read at once
	ClientIPHeader string   // CLIENT_IP_HEADER
	Playground     bool     // PLAYGROUND
	LogJSON        bool     // LOG_FORMAT=json
}

// Store is where the table is and what the store keeps in it.
type Store struct {
	Endpoint string // DYNAMODB_ENDPOINT: a local engine; empty means AWS
	Table    string // DYNAMODB_TABLE
	// TableSet says DYNAMODB_TABLE was set, and not defaulted.
	TableSet bool
	Region   string // AWS_REGION
	// DefaultCredentials: AWS_ACCESS_KEY_ID is set, so a local endpoint is
	// signed with the AWS default chain rather than dummy credentials.
	DefaultCredentials bool
	CursorSecret       []byte // CURSOR_SECRET, or random bytes
	// CursorSecretSet says CURSOR_SECRET was set: a random secret dies with
	// the process.
	CursorSecretSet    bool
	MaxCurrencies      int           // MAX_GROUP_CURRENCIES
	SpendingMaxDays    int           // SPENDING_MAX_DAYS
	LegacyGroupsClosed bool          // LEGACY_GROUPS_JOIN_BY_ID=false
	SyncRetention      time.Duration // SYNC_RETENTION
}

// LocalEngine reports whether the server talks to a DynamoDB of its own
// (DYNAMODB_ENDPOINT, such as DynamoDB Local), and not to AWS.
func (s Store) LocalEngine() bool {
	if s.Endpoint == "" {
		return false
	}
	u, err := url.Parse(s.Endpoint)
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	return host != "" && !strings.HasSuffix(host, ".amazonaws.com") && !strings.HasSuffix(host, ".amazonaws.com.cn")
}

// Receipts are what a receipt or picture may be, and how long its
// presigned URLs work.
type Receipts struct {
	MaxBytes    int64         // RECEIPT_MAX_BYTES
	MaxPixels   int64         // RECEIPT_MAX_PIXELS
	UploadTTL   time.Duration // RECEIPT_UPLOAD_TTL
	DownloadTTL time.Duration // RECEIPT_URL_TTL
}

// ObjectStore is the bucket of receipts and avatars, and how to reach it.
type ObjectStore struct {
	Bucket   string // S3_BUCKET: "" turns storage off
	Endpoint string // S3_ENDPOINT: a store other than AWS; "" means AWS
	// Region is S3_REGION, else AWS_REGION; "": the AWS default chain's.
	Region    string
	PathStyle bool // S3_PATH_STYLE
	// AccessKeyID and SecretAccessKey (S3_ACCESS_KEY_ID,
	// S3_SECRET_ACCESS_KEY) sign calls to a store other than AWS; "": the
	// AWS default chain.
	AccessKeyID, SecretAccessKey string
	Timeout                      time.Duration // S3_TIMEOUT: one call, its retries included
}

// Auth is how long sign-ins are trusted.
type Auth struct {
	MaxAge time.Duration // AUTH_MAX_AGE
	// TokenCacheTTL is TOKEN_CACHE_TTL; negative: no cache (as httpapi takes it).
	TokenCacheTTL time.Duration
}

// GraphQL is how operations run and what bounds them.
type GraphQL struct {
	LoaderWait       time.Duration // LOADER_WAIT
	TrustedDocuments string        // TRUSTED_DOCUMENTS: the manifest's path ("": any operation runs)
	Introspection    bool          // INTROSPECTION
	FieldSuggestions bool          // FIELD_SUGGESTIONS
	FastMarshal      bool          // FAST_MARSHAL: the executor's fast path for hot lists
	Limits           limits.Config // MAX_DOCUMENT_BYTES … MAX_COMPLEXITY
	MaxCalls         int           // MAX_DYNAMODB_CALLS per request
}

// Live is whether subscriptions are served, and their connections' limits.
type Live struct {
	On     bool               // LIVE_UPDATES
	Buffer int                // LIVE_BUFFER
	Limits httpapi.LiveLimits // the LIVE_* connection limits
}

// Stream is how the table's stream is read and shared.
type Stream struct {
	// Poll is STREAM_POLL_INTERVAL: how often each shard is read.
	Poll time.Duration
	// Broker is LIVE_BROKER (redis://host:port/db): unset, each instance
	// reads the stream for its own hub (the embedded mode).
	Broker string
	// LeaseTimeout is LEASE_TIMEOUT: how long a shard's lease may go
	// unrenewed before another instance takes the shard over.
	LeaseTimeout time.Duration
}

// Telegram is the bot: its token, the Bot API, invite links, the webhook.
type Telegram struct {
	BotToken      string // TELEGRAM_BOT_TOKEN: checks init data's hash; "" turns the Bot API off
	APIURL        string // TELEGRAM_API_URL
	WebhookSecret string // TELEGRAM_WEBHOOK_SECRET: turns /telegram/webhook on
	BotUsername   string // TELEGRAM_BOT_USERNAME, without @
	AppName       string // TELEGRAM_APP_NAME
	// BotID is TELEGRAM_BOT_ID, or the number before ':' in BotToken (0:
	// neither): without BotToken, init data's Ed25519 signature for this
	// bot is checked instead of its hash.
	BotID int64
	// TestEnvironment (TELEGRAM_TEST_ENVIRONMENT) checks that signature
	// with the key of Telegram's test environment.
	TestEnvironment bool
}

// Notify is how the notifier runs.
type Notify struct {
	On          bool          // NOTIFY: this serve instance runs the notifier too
	Window      time.Duration // NOTIFY_BATCH_WINDOW: a group's changes within it become one message
	MaxAge      time.Duration // NOTIFY_MAX_AGE: older events are not sent (after a restart)
	JobInterval time.Duration // NOTIFY_JOB_INTERVAL: how often digests and weekly reminders are looked for
	// NOTIFY_REMIND_TIMEOUT: remindDebtors' whole wait for Telegram.
	RemindTimeout time.Duration
}

// Recurring is how the scheduler creates recurring expenses' occurrences.
type Recurring struct {
	Interval time.Duration // RECURRING_INTERVAL: how often each instance looks for due series
	CatchUp  int           // RECURRING_CATCH_UP: most occurrences of one series per run
}

// Purge is how the scheduler purges deleted groups once they can no longer
// be restored (docs/groups.md).
type Purge struct {
	Interval time.Duration // PURGE_INTERVAL: how often each instance looks for groups to purge
}

// TON is how TON payments are verified on chain (docs/ton.md).
type TON struct {
	APIURL string // TON_API_URL: the toncenter v3 API
	APIKey string // TON_API_KEY: sent as X-API-Key; "" sends none
	// Interval (TON_VERIFY_INTERVAL) is how often each instance looks for
	// due checks, and the wait after a settlement's first check.
	Interval time.Duration
	// GiveUp (TON_VERIFY_GIVE_UP) is how long after its submission a
	// transaction that does not show is waited for.
	GiveUp time.Duration
}

// Rates is where the day's exchange rates come from: unset URLs mean no
// provider, and conversions then need their rate given.
type Rates struct {
	FiatURL   string        // RATES_URL: the ECB's daily reference rates XML
	CryptoURL string        // CRYPTO_RATES_URL: a CoinGecko-compatible simple/price endpoint
	Timeout   time.Duration // RATES_TIMEOUT: one call to a provider
}

// Metrics is whether Prometheus metrics are kept, and where they are served.
type Metrics struct {
	On   bool   // METRICS
	Addr string // METRICS_ADDR: a listener of their own ("": /metrics on PORT)
}

// GC is GOGC and GOMEMLIMIT as the environment sets them ("": unset). The
// Go runtime reads both itself; serve sets its defaults where they are unset.
type GC struct{ GOGC, GOMEMLIMIT string }
