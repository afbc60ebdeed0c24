package config

import (
	"fmt"
	"strconv"

	"github.com/fracti/api/auth"
	"github.com/fracti/api/graph/limits"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/internal/gctune"
	"github.com/fracti/api/live"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/media"
	"github.com/fracti/api/notify"
	"github.com/fracti/api/objectstore"
	"github.com/fracti/api/rates/coingecko"
	"github.com/fracti/api/rates/ecb"
	"github.com/fracti/api/receipts"
	"github.com/fracti/api/store"
	"github.com/fracti/api/telegram"
	"github.com/fracti/api/tonapi"
	"github.com/fracti/api/tonverify"
)

// Every setting the server reads, by section, in the order
// docs/configuration.md lists them: its name, default and meaning are
// written here and nowhere else (the page is generated from them:
// `go test ./config -update`).

var serverSection = section("Server", "The HTTP server: its port, what requests it takes, the Playground, logs.")

var (
	port                = serverSection.declare(Setting{Name: "PORT", Default: "8080", Meaning: "HTTP port"})
	corsAllowedOrigins  = serverSection.declare(Setting{Name: "CORS_ALLOWED_ORIGINS", Shown: "unset: no origin (`make run`: `*`)", Meaning: "comma-separated origins allowed to call from a browser; unset, the server sends no CORS headers, so browsers refuse every cross-origin call. The same origins may open WebSockets (clients that send no `Origin`, like apps and scripts, always may)"})
	maxBodyBytes        = serverSection.declare(Setting{Name: "MAX_BODY_BYTES", Default: strconv.Itoa(httpapi.DefaultMaxBodyBytes), Meaning: "request body limit (larger: HTTP 413)"})
	importMaxBytes      = serverSection.declare(Setting{Name: "IMPORT_MAX_BYTES", Default: strconv.Itoa(httpapi.DefaultMaxUploadBytes), Meaning: "limit of a multipart request, the upload of `importGroup` (larger: HTTP 413); other requests keep `MAX_BODY_BYTES` (docs/import.md)"})
	importMaxConcurrent = serverSection.declare(Setting{Name: "IMPORT_MAX_CONCURRENT", Default: strconv.Itoa(httpapi.DefaultMaxUploads), Meaning: "how many multipart requests (uploads of `importGroup`) an instance reads at once; one more is refused with HTTP 503 `UNAVAILABLE` and `Retry-After: 2` before its body is read, so uploads hold at most about this many times `IMPORT_MAX_BYTES` in memory (docs/import.md)"})
	clientIPHeader      = serverSection.declare(Setting{Name: "CLIENT_IP_HEADER", Shown: "unset: the connection's address", Meaning: "a header a trusted proxy sets to the client's address, e.g. `X-Forwarded-For` (its last address counts); set it only behind such a proxy, since clients can send it too"})
	playground          = serverSection.declare(Setting{Name: "PLAYGROUND", Shown: "`true` with `DYNAMODB_ENDPOINT`, else `false`", Meaning: "serve GraphiQL at `/` (its assets under `/playground/assets/`, its icon at `/favicon.ico`); off, all three answer 404. On AWS it is off unless set to `true`"})
	logFormat           = serverSection.declare(Setting{Name: "LOG_FORMAT", Shown: "text", Meaning: "`json` for structured logs"})
)

var storeSection = section("DynamoDB", "Where the table is, and what the store keeps in it.")

var (
	dynamoDBEndpoint     = storeSection.declare(Setting{Name: "DYNAMODB_ENDPOINT", Shown: "unset: AWS", Meaning: "a local engine such as `http://127.0.0.1:8000`; then the server creates the table at start if it is missing, and uses dummy credentials unless `AWS_ACCESS_KEY_ID` is set"})
	dynamoDBTable        = storeSection.declare(Setting{Name: "DYNAMODB_TABLE", Default: TableBaseName, Meaning: "the table (one per environment, e.g. `FractiTable-dev`)"})
	awsAccessKeyID       = storeSection.declare(Setting{Name: "AWS_ACCESS_KEY_ID", Shown: "unset: the AWS default chain", Meaning: "with `DYNAMODB_ENDPOINT` and no `AWS_ACCESS_KEY_ID`, the server signs with dummy credentials, which DynamoDB Local accepts (and does not probe EC2 metadata); set, the default chain is used as on AWS"})
	awsRegion            = storeSection.declare(Setting{Name: "AWS_REGION", Shown: "AWS default chain (`us-east-1` for a local endpoint)", Meaning: "region"})
	cursorSecret         = storeSection.declare(Setting{Name: "CURSOR_SECRET", Shown: "random per process", Meaning: "HMAC key signing pagination cursors. **Set it in production**, the same on every instance, or cursors break across restarts and instances"})
	maxGroupCurrencies   = storeSection.declare(Setting{Name: "MAX_GROUP_CURRENCIES", Default: strconv.Itoa(store.DefaultMaxGroupCurrencies), Meaning: "currencies one group may hold balances in"})
	spendingMaxDays      = storeSection.declare(Setting{Name: "SPENDING_MAX_DAYS", Default: strconv.Itoa(store.DefaultSpendingMaxDays), Meaning: "the most days one `Group.spending` or `User.spending` range may cover (longer: `BAD_USER_INPUT` naming it; see [Spending](spending.md))"})
	legacyGroupsJoinByID = storeSection.declare(Setting{Name: "LEGACY_GROUPS_JOIN_BY_ID", Default: "true", Meaning: "whether groups created before invites existed (no `joinByIdAllowed` stored) still admit anyone who knows their id; `false` closes them all at once (see [Joining a group](groups.md#joining-a-group-invites-and-placeholders))"})
	syncRetention        = storeSection.declare(Setting{Name: "SYNC_RETENTION", Default: durationText(store.DefaultSyncRetention), Meaning: "how long a sync token stays usable for `Group.changes(since:)` after it was issued"})
)

var objectStoreSection = section("Object storage", "The bucket of receipts and avatars, on S3 or a store that speaks it ([Receipts](receipts.md#storage)).")

var (
	s3Bucket          = objectStoreSection.declare(Setting{Name: "S3_BUCKET", Shown: "unset: no storage", Meaning: "the bucket of receipts and avatars (the stack's `ReceiptsBucketName`; `make run`: `fracti-receipts`); unset, attaching, showing and exporting receipts and avatars answer `UNAVAILABLE` with the reason, and everything else works"})
	s3Endpoint        = objectStoreSection.declare(Setting{Name: "S3_ENDPOINT", Shown: "unset: AWS", Meaning: "a store other than AWS that speaks S3, such as `http://127.0.0.1:9000` (`make run`'s versitygw). Presigned URLs point at it: the clients that upload and download must reach it at this address"})
	s3Region          = objectStoreSection.declare(Setting{Name: "S3_REGION", Shown: "`AWS_REGION`, else the AWS default chain's (`us-east-1` if none)", Meaning: "the bucket's region, which signs calls and presigned URLs"})
	s3PathStyle       = objectStoreSection.declare(Setting{Name: "S3_PATH_STYLE", Shown: "`true` with `S3_ENDPOINT`, else `false`", Meaning: "put the bucket in the URL's path (`http://host/bucket/key`) rather than in its host name (`https://bucket.s3.region.amazonaws.com/key`); local stores need it"})
	s3AccessKeyID     = objectStoreSection.declare(Setting{Name: "S3_ACCESS_KEY_ID", Shown: "unset: the AWS default chain", Meaning: "with `S3_SECRET_ACCESS_KEY`, the keys of a store other than AWS (`make run` and `make test`: `fracti-local`); on AWS leave both unset, and the server's role signs"})
	s3SecretAccessKey = objectStoreSection.declare(Setting{Name: "S3_SECRET_ACCESS_KEY", Shown: "unset: the AWS default chain", Meaning: "the secret of `S3_ACCESS_KEY_ID`, set with it"})
	s3Timeout         = objectStoreSection.declare(Setting{Name: "S3_TIMEOUT", Default: durationText(objectstore.DefaultTimeout), Meaning: "how long one call to the store may take, its retries included; a slower store answers `UNAVAILABLE` (to be tried again), and no request waits on storage longer. A presigned URL's upload or download does not go through the server, so it is not bounded by this"})
)

var receiptsSection = section("Receipts and pictures", "What a receipt or picture may be, and how long its presigned URLs work ([Receipts](receipts.md)).")

var (
	receiptMaxBytes    = receiptsSection.declare(Setting{Name: "RECEIPT_MAX_BYTES", Default: strconv.Itoa(receipts.DefaultMaxBytes), Meaning: "the largest receipt or picture accepted, in bytes (10 MB); a larger announced size is `BAD_USER_INPUT` before any URL is made"})
	receiptMaxPixels   = receiptsSection.declare(Setting{Name: "RECEIPT_MAX_PIXELS", Default: strconv.FormatInt(media.DefaultLimits.MaxPixels, 10), Meaning: "the most pixels (width × height) an image may have, read from its header before anything is decoded: a decoded image takes 4 bytes a pixel"})
	receiptUploadTTL   = receiptsSection.declare(Setting{Name: "RECEIPT_UPLOAD_TTL", Default: durationText(receipts.DefaultUploadTTL), Meaning: "how long a presigned upload URL works"})
	receiptDownloadTTL = receiptsSection.declare(Setting{Name: "RECEIPT_URL_TTL", Default: durationText(receipts.DefaultDownloadTTL), Meaning: "how long a presigned download URL (`Receipt.url`, `thumbnailUrl`, `avatarUrl`) works; each request mints new ones"})
)

var authSection = section("Sign-in", "How long a Mini App's init data and an access token's lookup are trusted.")

var (
	authMaxAge    = authSection.declare(Setting{Name: "AUTH_MAX_AGE", Default: durationText(auth.DefaultMaxAge), Meaning: "how long init data is accepted after its `auth_date`"})
	tokenCacheTTL = authSection.declare(Setting{Name: "TOKEN_CACHE_TTL", Default: durationText(httpapi.DefaultTokenCacheTTL), Meaning: "how long each instance remembers an access token lookup (found or unknown), and so how long a token revoked on another instance keeps working there; `0s` turns the cache off (every request reads its token)"})
)

// The default quotas: far above what a person in the Mini App does in a
// day, low enough that a runaway script stops before it costs much.
var quotaSection = section("Quotas", "What one user, or one address without credentials, may do.")

var (
	quotaReadsPerDay  = quotaSection.declare(Setting{Name: "QUOTA_READS_PER_DAY", Default: "20000", Meaning: "queries one user may run per UTC day (`0`: no limit)"})
	quotaWritesPerDay = quotaSection.declare(Setting{Name: "QUOTA_WRITES_PER_DAY", Default: "2000", Meaning: "mutations one user may run per UTC day (`0`: no limit)"})
	quotaSample       = quotaSection.declare(Setting{Name: "QUOTA_SAMPLE", Default: "10", Meaning: "how many of a user's operations an instance counts in memory before adding them to the table (`1`: every one)"})
	anonRateLimit     = quotaSection.declare(Setting{Name: "ANON_RATE_LIMIT", Default: "60", Meaning: "requests a minute, per client address and instance, without valid credentials (`0`: no limit)"})
)

var graphQLSection = section("GraphQL", "How operations run: batching, which documents, introspection, and the limits of an operation.")

var (
	loaderWait         = graphQLSection.declare(Setting{Name: "LOADER_WAIT", Default: durationText(loaders.DefaultWait), Meaning: "dataloader batch window"})
	trustedDocuments   = graphQLSection.declare(Setting{Name: "TRUSTED_DOCUMENTS", Shown: "unset: any operation runs", Meaning: "path of a manifest of trusted documents; when set, only those operations run, and automatic persisted queries are off (see [Trusted documents](api.md#trusted-documents))"})
	introspection      = graphQLSection.declare(Setting{Name: "INTROSPECTION", Default: "true", Meaning: "`false` refuses `__schema` and `__type` with `INTROSPECTION_DISABLED` (`__typename` still works)"})
	fieldSuggestions   = graphQLSection.declare(Setting{Name: "FIELD_SUGGESTIONS", Shown: "the value of `INTROSPECTION`", Meaning: "`false` leaves \"Did you mean …?\" out of validation errors, which would spell out the schema introspection hides"})
	fastMarshal        = graphQLSection.declare(Setting{Name: "FAST_MARSHAL", Default: "true", Meaning: "`false` turns the executor's fast path off: a group's members, expenses, balances and debts are then written by gqlgen's generic executor, field by field (the same bytes, more CPU; see [The fast path](performance.md#the-fast-path))"})
	maxDocumentBytes   = graphQLSection.declare(Setting{Name: "MAX_DOCUMENT_BYTES", Default: strconv.Itoa(limits.Defaults().MaxDocumentBytes), Meaning: "the longest query text (`DOCUMENT_TOO_LARGE`)"})
	maxTokens          = graphQLSection.declare(Setting{Name: "MAX_TOKENS", Default: strconv.Itoa(limits.Defaults().MaxTokens), Meaning: "lexical tokens in a query, counted before it is parsed (`TOKEN_LIMIT_EXCEEDED`)"})
	maxDepth           = graphQLSection.declare(Setting{Name: "MAX_DEPTH", Default: strconv.Itoa(limits.Defaults().MaxDepth), Meaning: "how deeply fields nest, fragments followed (`DEPTH_LIMIT_EXCEEDED`)"})
	maxAliases         = graphQLSection.declare(Setting{Name: "MAX_ALIASES", Default: strconv.Itoa(limits.Defaults().MaxAliases), Meaning: "aliased fields in an operation, fragments expanded (`ALIAS_LIMIT_EXCEEDED`)"})
	maxRootFields      = graphQLSection.declare(Setting{Name: "MAX_ROOT_FIELDS", Default: strconv.Itoa(limits.Defaults().MaxRootFields), Meaning: "top-level fields of an operation, fragments expanded (`ROOT_FIELD_LIMIT_EXCEEDED`)"})
	maxSelections      = graphQLSection.declare(Setting{Name: "MAX_SELECTIONS", Default: strconv.Itoa(limits.Defaults().MaxSelections), Meaning: "fields of an operation, fragments expanded (`SELECTION_LIMIT_EXCEEDED`)"})
	maxDirectives      = graphQLSection.declare(Setting{Name: "MAX_DIRECTIVES", Default: strconv.Itoa(limits.Defaults().MaxDirectives), Meaning: "directives written in a query (`DIRECTIVE_LIMIT_EXCEEDED`)"})
	maxFragmentSpreads = graphQLSection.declare(Setting{Name: "MAX_FRAGMENT_SPREADS", Default: strconv.Itoa(limits.Defaults().MaxFragmentSpreads), Meaning: "fragment spreads written in a query (`FRAGMENT_SPREAD_LIMIT_EXCEEDED`)"})
	maxComplexity      = graphQLSection.declare(Setting{Name: "MAX_COMPLEXITY", Default: strconv.Itoa(limits.Defaults().MaxComplexity), Meaning: "an operation's complexity (`COMPLEXITY_LIMIT_EXCEEDED`; see [Limits](api.md#limits))"})
	maxDynamoDBCalls   = graphQLSection.declare(Setting{Name: "MAX_DYNAMODB_CALLS", Default: strconv.Itoa(httpapi.DefaultMaxDynamoDBCalls), Meaning: "DynamoDB calls one request may make, the credential check included (`CALL_BUDGET_EXCEEDED`)"})
)

var liveSection = section("Live updates", "Subscriptions: whether they are served, and the limits of live connections.")

var (
	liveUpdates                    = liveSection.declare(Setting{Name: "LIVE_UPDATES", Default: "true", Meaning: "tail the table's stream and serve subscriptions; `false`: subscriptions are refused with `UNAVAILABLE`"})
	liveBuffer                     = liveSection.declare(Setting{Name: "LIVE_BUFFER", Default: strconv.Itoa(live.DefaultBuffer), Meaning: "events that may wait for one subscription before its connection is dropped as a slow consumer (close 1008)"})
	liveConnectionsPerUser         = liveSection.declare(Setting{Name: "LIVE_CONNECTIONS_PER_USER", Default: strconv.Itoa(httpapi.DefaultConnectionsPerUser), Meaning: "live connections (WebSockets, server-sent event and multipart streams) one user may hold on one instance (close 4429, or 429 over HTTP)"})
	liveMaxConnections             = liveSection.declare(Setting{Name: "LIVE_MAX_CONNECTIONS", Shown: "the descriptor limit less a reserve", Meaning: "live connections one instance holds at once, over every transport; past it a new one is refused with 503 and `Retry-After`. The default is `RLIMIT_NOFILE` (Go raises it to the hard limit at start) less the larger of 1024 and a fifth of it, for ordinary requests, DynamoDB connections and files, but at least half the limit: 65536 descriptors give 52429, 20000 give 16000, 1024 give 512. The value in use is in the `listening` log line. Each idle connection costs about 82 KB: size memory for the cap, or set it lower"})
	liveSubscriptionsPerConnection = liveSection.declare(Setting{Name: "LIVE_SUBSCRIPTIONS_PER_CONNECTION", Default: strconv.Itoa(httpapi.DefaultSubscriptionsPerConnection), Meaning: "subscriptions one WebSocket may carry at once (`RATE_LIMITED`)"})
	livePingInterval               = liveSection.declare(Setting{Name: "LIVE_PING_INTERVAL", Default: durationText(httpapi.DefaultPingInterval), Meaning: "how often the server pings a WebSocket (and keeps server-sent events alive); no answer within two intervals closes it"})
	liveMaxMessageBytes            = liveSection.declare(Setting{Name: "LIVE_MAX_MESSAGE_BYTES", Default: strconv.Itoa(httpapi.DefaultMaxMessageBytes), Meaning: "the largest message a client may send over a WebSocket (close 1009)"})
)

var streamSection = section("The table's stream", "How the stream is read for live updates and the notifier, and shared between instances.")

var (
	streamPollInterval = streamSection.declare(Setting{Name: "STREAM_POLL_INTERVAL", Default: durationText(live.DefaultPoll), Meaning: "how often each shard of the stream is read for new records (see [Live updates](live.md))"})
	liveBroker         = streamSection.declare(Setting{Name: "LIVE_BROKER", Shown: "unset: embedded", Meaning: "the live updates' broker, a Redis 7 (or Valkey, ElastiCache) URL such as `redis://10.0.0.5:6379/0` (`rediss://` for TLS): the holder of each shard's lease publishes its groups' events there and every instance receives the groups its subscribers watch, so each shard is read by one instance whatever their number; unset, every instance reads the stream for its own subscribers (see [Deployment](live.md#deployment-leases-and-the-broker))"})
	leaseTimeout       = streamSection.declare(Setting{Name: "LEASE_TIMEOUT", Default: durationText(live.DefaultLeaseTimeout), Meaning: "how long a shard's lease may go unrenewed (its holder dead or cut off) before another instance takes the shard over from its checkpoint; leases are renewed every third of it (at least `1s`)"})
)

var telegramSection = section("Telegram", "The bot: sign-in, the Bot API, invite links and the webhook.")

var (
	telegramBotToken      = telegramSection.declare(Setting{Name: "TELEGRAM_BOT_TOKEN", Shown: "unset: `tma` sign-in by `TELEGRAM_BOT_ID`, else off", Meaning: "the bot token: it checks Mini App init data's hash, and the server calls the Bot API with it (connecting chats, reminders, the notifier)"})
	telegramBotID         = telegramSection.declare(Setting{Name: "TELEGRAM_BOT_ID", Shown: "the number before `:` in `TELEGRAM_BOT_TOKEN`", Meaning: "the bot's id. Without `TELEGRAM_BOT_TOKEN`, `tma` sign-in checks init data's `signature` (Telegram's Ed25519 signature for this bot) instead of its hash, so an API instance can run without the bot's secret ([Sign-in without the bot token](authentication.md#sign-in-without-the-bot-token)); with the token, it must be the number before `:` in it"})
	telegramTestEnv       = telegramSection.declare(Setting{Name: "TELEGRAM_TEST_ENVIRONMENT", Default: "false", Meaning: "`true`: the init data `TELEGRAM_BOT_ID` checks comes from Telegram's test environment, and is checked with that environment's key instead of production's (never both)"})
	telegramBotUsername   = telegramSection.declare(Setting{Name: "TELEGRAM_BOT_USERNAME", Shown: "unset: invites have no link", Meaning: "the bot's @username (without @), for invite links `https://t.me/<bot>/<app>?startapp=<secret>`"})
	telegramAppName       = telegramSection.declare(Setting{Name: "TELEGRAM_APP_NAME", Shown: "unset: invites have no link", Meaning: "the Mini App's short name as registered with @BotFather, for invite links"})
	telegramAPIURL        = telegramSection.declare(Setting{Name: "TELEGRAM_API_URL", Default: telegram.DefaultAPIURL, Meaning: "the Bot API's base URL (`getChatMember` for `connectTelegramChat`, and the notifier's `sendMessage`); a local Bot API server, or a fake in tests ([Telegram](telegram.md))"})
	telegramWebhookSecret = telegramSection.declare(Setting{Name: "TELEGRAM_WEBHOOK_SECRET", Shown: "unset: `/telegram/webhook` is off (404)", Meaning: "the `secret_token` given to `setWebhook`: `POST /telegram/webhook` accepts only updates whose `X-Telegram-Bot-Api-Secret-Token` equals it ([The webhook](telegram.md#the-webhook))"})
)

var notifySection = section("The notifier", "Messages to Telegram chats and people, from the table's stream ([The notifier](telegram.md#the-notifier)).")

var (
	notifyOn          = notifySection.declare(Setting{Name: "NOTIFY", Default: "false", Meaning: "`true`: this `serve` instance also runs the Telegram notifier (tails the table's stream, sends group messages, direct messages, digests and weekly reminders; needs `TELEGRAM_BOT_TOKEN`). `go run . notify` runs it alone ([The notifier](telegram.md#the-notifier))"})
	notifyBatchWindow = notifySection.declare(Setting{Name: "NOTIFY_BATCH_WINDOW", Default: durationText(notify.DefaultWindow), Meaning: "a group's changes within this window after the first become one chat message, however many instances read them"})
	notifyMaxAge      = notifySection.declare(Setting{Name: "NOTIFY_MAX_AGE", Default: durationText(notify.DefaultMaxAge), Meaning: "events older than this when read (after a restart, the stream is read from its start) are not sent"})
	notifyJobInterval = notifySection.declare(Setting{Name: "NOTIFY_JOB_INTERVAL", Default: "5m", Meaning: "how often each notifier instance looks for digests and weekly reminders that are due (each is sent once per period by whichever instance comes first)"})
	notifyRemindWait  = notifySection.declare(Setting{Name: "NOTIFY_REMIND_TIMEOUT", Default: durationText(notify.DefaultRemindTimeout), Meaning: "the longest `remindDebtors` waits for Telegram in all (not per debtor): the reminders not sent by then stay queued and go out within a minute of Telegram answering again; the answer counts them as `queued` ([Reminders and digests](telegram.md#reminders-and-digests))"})
)

var recurringSection = section("Recurring expenses", "The scheduler that creates recurring expenses' occurrences ([Recurring expenses](recurring.md)).")

var (
	recurringInterval = recurringSection.declare(Setting{Name: "RECURRING_INTERVAL", Default: "1m", Meaning: "how often every instance looks for recurring expenses due today and creates their occurrences (plus up to 10% jitter; see [Recurring expenses](recurring.md))"})
	recurringCatchUp  = recurringSection.declare(Setting{Name: "RECURRING_CATCH_UP", Default: strconv.Itoa(store.DefaultCatchUp), Meaning: "the most occurrences of one recurring expense one run creates; after downtime the rest follow at the next runs"})
)

var purgeSection = section("Deleted groups", "The scheduler that purges deleted groups once their 30 days of restore are over ([Groups](groups.md#deleting-and-restoring-a-group)).")

var purgeInterval = purgeSection.declare(Setting{Name: "PURGE_INTERVAL", Default: "1h", Meaning: "how often every instance looks for deleted groups past their restore window and purges every item of them (an interrupted purge finishes at the next run; see [Operations](operations.md#the-purge-of-deleted-groups))"})

var tonSection = section("TON payments", "How TON payments are verified on chain ([TON payments](ton.md)).")

var (
	tonAPIURL         = tonSection.declare(Setting{Name: "TON_API_URL", Default: tonapi.DefaultURL, Meaning: "the TON HTTP API (toncenter v3: `/api/v3/transactions`, `/api/v3/transactionsByMessage`) that verifies TON payments; unreachable, submissions stay `PENDING` and are retried ([TON payments](ton.md))"})
	tonAPIKey         = tonSection.declare(Setting{Name: "TON_API_KEY", Shown: "unset: no key", Meaning: "sent as `X-API-Key` to `TON_API_URL` (toncenter allows more requests with one)"})
	tonVerifyInterval = tonSection.declare(Setting{Name: "TON_VERIFY_INTERVAL", Default: durationText(tonverify.DefaultBackoff), Meaning: fmt.Sprintf("how often every instance looks for due TON payment checks, and the wait after a payment's first check (doubling up to %s) ([TON payments](ton.md))", durationText(tonverify.DefaultMaxBackoff))})
	tonVerifyGiveUp   = tonSection.declare(Setting{Name: "TON_VERIFY_GIVE_UP", Default: durationText(tonverify.DefaultGiveUp), Meaning: "how long after its submission a transaction the chain does not show (or an API that does not answer) is waited for before the verification is `FAILED`"})
)

var ratesSection = section("Exchange rates", "Where the day's exchange rates come from ([Currencies](currencies.md)).")

var (
	ratesURL       = ratesSection.declare(Setting{Name: "RATES_URL", Default: ecb.ExampleURL, Meaning: "the ECB's daily reference rates XML, for conversions between fiat currencies without a given `rate` (see [Currencies](currencies.md): the provider's terms and limits); `off`: no fiat rate provider, and such a conversion needs its `rate` (`RATE_UNAVAILABLE` otherwise)"})
	cryptoRatesURL = ratesSection.declare(Setting{Name: "CRYPTO_RATES_URL", Default: coingecko.ExampleURL, Meaning: "a CoinGecko-compatible `simple/price` endpoint for the price of TON (CoinGecko's public one by default: see [Currencies](currencies.md) for its limits); `off`: no TON rate provider, and a conversion to or from TON needs its `rate`"})
	ratesTimeout   = ratesSection.declare(Setting{Name: "RATES_TIMEOUT", Default: "5s", Meaning: "how long one call to a rate provider may take; a slower one counts as down"})
)

var metricsSection = section("Metrics", "Prometheus metrics ([Metrics](operations.md#metrics)).")

var (
	metricsOn   = metricsSection.declare(Setting{Name: "METRICS", Default: "true", Meaning: "record Prometheus metrics and serve them at `GET /metrics` (see [Metrics](operations.md#metrics)); `false`: neither"})
	metricsAddr = metricsSection.declare(Setting{Name: "METRICS_ADDR", Shown: "unset: `/metrics` on `PORT`", Meaning: "an address such as `:9090` to serve `/metrics` on a listener of its own instead, and not on the public port"})
)

var gcSection = section("The Go runtime", "The garbage collector, which the Go runtime configures from these itself; `serve` sets defaults for a request server where they are unset.")

var (
	gogc       = gcSection.declare(Setting{Name: "GOGC", Shown: fmt.Sprintf("`%d` (set by `serve` when unset)", gctune.DefaultGOGC), Meaning: "the garbage collector's target, read by the Go runtime: the heap may grow to 1 + GOGC/100 times what survived the last collection before the next. Go's own default, 100, spends about a tenth of a busy server's CPU collecting requests' short-lived garbage ([What a screen costs](performance.md))"})
	gomemlimit = gcSection.declare(Setting{Name: "GOMEMLIMIT", Shown: fmt.Sprintf("%.0f%% of the container's memory limit (its cgroup's `memory.max`) when it has one, else none (set by `serve` when unset)", gctune.LimitShare*100), Meaning: "the Go runtime's soft memory limit (e.g. `400MiB`): the collector works harder as the heap nears it, so the larger `GOGC` never runs the process out of memory"})
)
