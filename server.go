// Command fracti-api is Fracti's GraphQL API server.
//
//	go run .                      serve (the default)
//	go run . serve [--demo]       serve; --demo prints a ready access token for a demo user
//	go run . token create --user <telegramId> --name <display name> [--scopes READ,WRITE] [--expires-in 2160h]
//	go run . verify [--group <id>]   recompute balances and the activity chains; exit 1 on drift
//	go run . migrate [--dry-run] [--segments N] [--restart]   bring items of earlier formats up to date
//	go run . table create [--env <name>] [--tag key=value ...] [--pitr=false]   make the table (or bring it up to what the server needs)
//	go run . table describe [--env <name>] [--tag key=value ...]   print the table and how it differs from what the server needs
//	go run . notify [--replay]   run the Telegram notifier alone; --replay sends its dead letters again
//
// Configuration comes from the environment; see README.md.
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/fracti/api/auth"
	"github.com/fracti/api/graph"
	"github.com/fracti/api/graph/limits"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/live"
	"github.com/fracti/api/loaders"
	"github.com/fracti/api/metrics"
	"github.com/fracti/api/quota"
	"github.com/fracti/api/store"
	"github.com/fracti/api/telegram"
)

// config is the server's configuration, read from the environment.
type config struct {
	Port          string
	Endpoint      string // DYNAMODB_ENDPOINT: a local engine; empty means AWS
	Table         string
	Region        string
	BotToken      string
	CORSOrigins   []string
	AuthMaxAge    time.Duration
	CursorSecret  []byte
	MaxBodyBytes  int64
	Playground    bool
	LoaderWait    time.Duration
	TokenCacheTTL time.Duration // TOKEN_CACHE_TTL; negative: no cache
	// Quota: QUOTA_READS_PER_DAY, QUOTA_WRITES_PER_DAY, QUOTA_SAMPLE, ANON_RATE_LIMIT.
	Quota quota.Limits
	// ClientIPHeader: CLIENT_IP_HEADER.
	ClientIPHeader string
	Limits         limits.Config
	MaxCalls       int // MAX_DYNAMODB_CALLS per request
	MaxCurrencies  int // MAX_GROUP_CURRENCIES
	LogJSON        bool
	// InviteLinks: TELEGRAM_BOT_USERNAME and TELEGRAM_APP_NAME.
	InviteLinks graph.InviteLinks
	// LegacyGroupsClosed: LEGACY_GROUPS_JOIN_BY_ID=false.
	LegacyGroupsClosed bool
	secretFromEnv      bool
	ShutdownGrace      time.Duration
	// Live updates: LIVE_UPDATES, STREAM_POLL_INTERVAL, LIVE_BUFFER and the
	// LIVE_* connection limits.
	LiveUpdates   bool
	StreamPoll    time.Duration
	LiveBuffer    int
	LiveLimits    httpapi.LiveLimits
	SyncRetention time.Duration // SYNC_RETENTION
	// TrustedDocuments: TRUSTED_DOCUMENTS, the manifest's path ("": any operation runs).
	TrustedDocuments string
	// Introspection and FieldSuggestions: INTROSPECTION and FIELD_SUGGESTIONS.
	Introspection    bool
	FieldSuggestions bool
	// FastMarshal: FAST_MARSHAL, the executor's fast path for hot lists.
	FastMarshal bool
	// Metrics: METRICS; MetricsAddr: METRICS_ADDR, a listener of their own
	// ("": /metrics on PORT).
	Metrics     bool
	MetricsAddr string
	// Rates: RATES_URL, CRYPTO_RATES_URL and RATES_TIMEOUT.
	Rates ratesConfig
	// Recurring expenses: RECURRING_INTERVAL and RECURRING_CATCH_UP.
	Recurring recurringConfig
	// SpendingMaxDays bounds a spending query's range (SPENDING_MAX_DAYS).
	SpendingMaxDays int
	// TelegramAPIURL is the Bot API's base URL (TELEGRAM_API_URL).
	TelegramAPIURL string
	// WebhookSecret turns on /telegram/webhook (TELEGRAM_WEBHOOK_SECRET).
	WebhookSecret string
	// Notify: NOTIFY, NOTIFY_BATCH_WINDOW, NOTIFY_MAX_AGE, NOTIFY_JOB_INTERVAL.
	Notify notifyConfig
	// Stream: LIVE_BROKER, LEASE_TIMEOUT (stream_config.go).
	Stream streamConfig
	// GC: GOGC and GOMEMLIMIT (gc_config.go).
	GC gcConfig
	// TON: TON_API_URL, TON_API_KEY, TON_VERIFY_INTERVAL, TON_VERIFY_GIVE_UP (ton_config.go).
	TON tonConfig

	// MaxUploadBytes bounds a multipart request (importGroup's file): IMPORT_MAX_BYTES.
	MaxUploadBytes int64
	// MaxUploads bounds the multipart requests read at once: IMPORT_MAX_CONCURRENT.
	MaxUploads int
}

// getenv reads one setting; every setting loadConfig reads goes through it,
// so that a test can list them against the configuration page.
var getenv = os.Getenv

func loadConfig() (config, error) {
	c := config{
		Port:          env("PORT", "8080"),
		Endpoint:      getenv("DYNAMODB_ENDPOINT"),
		Table:         env("DYNAMODB_TABLE", "FractiTable"),
		Region:        getenv("AWS_REGION"),
		BotToken:      getenv("TELEGRAM_BOT_TOKEN"),
		LogJSON:       getenv("LOG_FORMAT") == "json",
		ShutdownGrace: 15 * time.Second,
		InviteLinks: graph.InviteLinks{
			BotUsername: strings.TrimPrefix(getenv("TELEGRAM_BOT_USERNAME"), "@"),
			AppName:     getenv("TELEGRAM_APP_NAME"),
		},
		TelegramAPIURL: env("TELEGRAM_API_URL", telegram.DefaultAPIURL),
		WebhookSecret:  getenv("TELEGRAM_WEBHOOK_SECRET"),
	}
	for _, o := range strings.Split(getenv("CORS_ALLOWED_ORIGINS"), ",") {
		if o = strings.TrimSpace(o); o != "" {
			c.CORSOrigins = append(c.CORSOrigins, o)
		}
	}
	var err error
	if c.AuthMaxAge, err = durationEnv("AUTH_MAX_AGE", auth.DefaultMaxAge); err != nil {
		return c, err
	}
	if c.LoaderWait, err = durationEnv("LOADER_WAIT", loaders.DefaultWait); err != nil {
		return c, err
	}
	c.ClientIPHeader = getenv("CLIENT_IP_HEADER")
	for _, l := range []struct {
		name string
		into *int64
		def  int64
	}{
		{"QUOTA_READS_PER_DAY", &c.Quota.ReadsPerDay, defaultReadsPerDay},
		{"QUOTA_WRITES_PER_DAY", &c.Quota.WritesPerDay, defaultWritesPerDay},
	} {
		if *l.into, err = limitEnv(l.name, l.def); err != nil {
			return c, err
		}
	}
	anon, err := limitEnv("ANON_RATE_LIMIT", defaultAnonymousPerMinute)
	if err != nil {
		return c, err
	}
	c.Quota.AnonymousPerMinute = int(anon)
	if c.Quota.Sample, err = positiveIntEnv("QUOTA_SAMPLE", defaultQuotaSample); err != nil {
		return c, err
	}
	if c.TokenCacheTTL, err = tokenCacheTTLEnv(); err != nil {
		return c, err
	}
	if c.MaxBodyBytes, err = strconv.ParseInt(env("MAX_BODY_BYTES", strconv.Itoa(httpapi.DefaultMaxBodyBytes)), 10, 64); err != nil || c.MaxBodyBytes <= 0 {
		return c, fmt.Errorf("MAX_BODY_BYTES must be a positive number of bytes")
	}
	if c.MaxUploadBytes, err = strconv.ParseInt(env("IMPORT_MAX_BYTES", strconv.Itoa(httpapi.DefaultMaxUploadBytes)), 10, 64); err != nil || c.MaxUploadBytes <= 0 {
		return c, fmt.Errorf("IMPORT_MAX_BYTES must be a positive number of bytes")
	}
	if c.MaxUploads, err = strconv.Atoi(env("IMPORT_MAX_CONCURRENT", strconv.Itoa(httpapi.DefaultMaxUploads))); err != nil || c.MaxUploads <= 0 {
		return c, fmt.Errorf("IMPORT_MAX_CONCURRENT must be a positive number of uploads")
	}
	d := limits.Defaults()
	for _, l := range []struct {
		name string
		into *int
		def  int
	}{
		{"MAX_DOCUMENT_BYTES", &c.Limits.MaxDocumentBytes, d.MaxDocumentBytes},
		{"MAX_TOKENS", &c.Limits.MaxTokens, d.MaxTokens},
		{"MAX_DEPTH", &c.Limits.MaxDepth, d.MaxDepth},
		{"MAX_ALIASES", &c.Limits.MaxAliases, d.MaxAliases},
		{"MAX_ROOT_FIELDS", &c.Limits.MaxRootFields, d.MaxRootFields},
		{"MAX_SELECTIONS", &c.Limits.MaxSelections, d.MaxSelections},
		{"MAX_DIRECTIVES", &c.Limits.MaxDirectives, d.MaxDirectives},
		{"MAX_FRAGMENT_SPREADS", &c.Limits.MaxFragmentSpreads, d.MaxFragmentSpreads},
		{"MAX_COMPLEXITY", &c.Limits.MaxComplexity, d.MaxComplexity},
		{"MAX_DYNAMODB_CALLS", &c.MaxCalls, httpapi.DefaultMaxDynamoDBCalls},
		{"MAX_GROUP_CURRENCIES", &c.MaxCurrencies, store.DefaultMaxGroupCurrencies},
		{"SPENDING_MAX_DAYS", &c.SpendingMaxDays, store.DefaultSpendingMaxDays},
	} {
		if *l.into, err = positiveIntEnv(l.name, l.def); err != nil {
			return c, err
		}
	}
	if c.LiveUpdates, err = strconv.ParseBool(env("LIVE_UPDATES", "true")); err != nil {
		return c, fmt.Errorf("LIVE_UPDATES must be true or false")
	}
	for _, d := range []struct {
		name string
		into *time.Duration
		def  time.Duration
	}{
		{"STREAM_POLL_INTERVAL", &c.StreamPoll, live.DefaultPoll},
		{"LIVE_PING_INTERVAL", &c.LiveLimits.PingInterval, httpapi.DefaultPingInterval},
		{"SYNC_RETENTION", &c.SyncRetention, store.DefaultSyncRetention},
	} {
		if *d.into, err = durationEnv(d.name, d.def); err != nil {
			return c, err
		}
	}
	var maxMessage int
	for _, l := range []struct {
		name string
		into *int
		def  int
	}{
		{"LIVE_BUFFER", &c.LiveBuffer, live.DefaultBuffer},
		{"LIVE_CONNECTIONS_PER_USER", &c.LiveLimits.ConnectionsPerUser, httpapi.DefaultConnectionsPerUser},
		{"LIVE_SUBSCRIPTIONS_PER_CONNECTION", &c.LiveLimits.SubscriptionsPerConnection, httpapi.DefaultSubscriptionsPerConnection},
		{"LIVE_MAX_MESSAGE_BYTES", &maxMessage, httpapi.DefaultMaxMessageBytes},
		// Default: the descriptor limit less a reserve (httpapi.DefaultMaxConnections).
		{"LIVE_MAX_CONNECTIONS", &c.LiveLimits.MaxConnections, httpapi.DefaultMaxConnections()},
	} {
		if *l.into, err = positiveIntEnv(l.name, l.def); err != nil {
			return c, err
		}
	}
	c.LiveLimits.MaxMessageBytes = int64(maxMessage)
	// The Playground is for local work: on AWS it is served only when asked for.
	if c.Playground, err = strconv.ParseBool(env("PLAYGROUND", strconv.FormatBool(c.Endpoint != ""))); err != nil {
		return c, fmt.Errorf("PLAYGROUND must be true or false")
	}
	c.TrustedDocuments = getenv("TRUSTED_DOCUMENTS")
	if c.Introspection, err = strconv.ParseBool(env("INTROSPECTION", "true")); err != nil {
		return c, fmt.Errorf("INTROSPECTION must be true or false")
	}
	// Suggestions would spell out the schema introspection hides.
	if c.FieldSuggestions, err = strconv.ParseBool(env("FIELD_SUGGESTIONS", strconv.FormatBool(c.Introspection))); err != nil {
		return c, fmt.Errorf("FIELD_SUGGESTIONS must be true or false")
	}
	if c.FastMarshal, err = strconv.ParseBool(env("FAST_MARSHAL", "true")); err != nil {
		return c, fmt.Errorf("FAST_MARSHAL must be true or false")
	}
	if c.Metrics, err = strconv.ParseBool(env("METRICS", "true")); err != nil {
		return c, fmt.Errorf("METRICS must be true or false")
	}
	if c.MetricsAddr = getenv("METRICS_ADDR"); c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil || !c.Metrics {
			return c, fmt.Errorf("METRICS_ADDR must be an address such as :9090, with METRICS=true")
		}
	}
	if c.Recurring, err = loadRecurringConfig(); err != nil {
		return c, err
	}
	if c.Notify, err = loadNotifyConfig(); err != nil {
		return c, err
	}
	if c.Stream, err = loadStreamConfig(); err != nil {
		return c, err
	}
	if c.TON, err = loadTonConfig(); err != nil {
		return c, err
	}
	legacyOpen, err := strconv.ParseBool(env("LEGACY_GROUPS_JOIN_BY_ID", "true"))
	if err != nil {
		return c, fmt.Errorf("LEGACY_GROUPS_JOIN_BY_ID must be true or false")
	}
	c.LegacyGroupsClosed = !legacyOpen
	if c.Rates, err = loadRatesConfig(); err != nil {
		return c, err
	}
	c.GC = loadGCConfig()
	if s := getenv("CURSOR_SECRET"); s != "" {
		c.CursorSecret, c.secretFromEnv = []byte(s), true
	} else {
		// Cursors then stop working across restarts and between instances: fine locally only.
		c.CursorSecret = make([]byte, 32)
		_, _ = rand.Read(c.CursorSecret)
	}
	return c, nil
}

// localEngine reports whether the server talks to a DynamoDB of its own
// (DYNAMODB_ENDPOINT, such as DynamoDB Local), and not to AWS.
func (c config) localEngine() bool {
	if c.Endpoint == "" {
		return false
	}
	u, err := url.Parse(c.Endpoint)
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	return host != "" && !strings.HasSuffix(host, ".amazonaws.com") && !strings.HasSuffix(host, ".amazonaws.com.cn")
}

func env(name, def string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return def
}

// The default quotas: far above what a person in the Mini App does in a
// day, low enough that a runaway script stops before it costs much.
const (
	defaultReadsPerDay        = 20_000
	defaultWritesPerDay       = 2_000
	defaultQuotaSample        = 10
	defaultAnonymousPerMinute = 60
)

// limitEnv reads a limit: a whole number, 0 for none.
func limitEnv(name string, def int64) (int64, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s must be a whole number (0: no limit)", name)
	}
	return n, nil
}

func positiveIntEnv(name string, def int) (int, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s must be a positive whole number", name)
	}
	return n, nil
}

func durationEnv(name string, def time.Duration) (time.Duration, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s must be a positive duration such as 24h or 2ms", name)
	}
	return d, nil
}

// tokenCacheTTLEnv reads TOKEN_CACHE_TTL: unset is the default (30s), 0
// turns the cache off (given to httpapi as a negative TTL).
func tokenCacheTTLEnv() (time.Duration, error) {
	v := getenv("TOKEN_CACHE_TTL")
	if v == "" {
		return httpapi.DefaultTokenCacheTTL, nil
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil || d < 0:
		return 0, fmt.Errorf("TOKEN_CACHE_TTL must be a duration such as 30s, or 0 for no cache")
	case d == 0:
		return -1, nil
	}
	return d, nil
}

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	var handler slog.Handler = slog.NewTextHandler(os.Stderr, nil)
	if cfg.LogJSON {
		handler = slog.NewJSONHandler(os.Stderr, nil)
	}
	log := slog.New(handler)

	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, cfg, log, args)
	case "token":
		return tokenCommand(ctx, cfg, args)
	case "verify":
		return verifyCommand(ctx, cfg, args, os.Stdout)
	case "migrate":
		return migrateCommand(ctx, cfg, args, os.Stdout)
	case "table":
		return tableCommand(ctx, cfg, args, os.Stdout)
	case "rebuild-summaries":
		return rebuildSummariesCommand(ctx, cfg, args, os.Stdout)
	case "notify":
		return notifyCommand(ctx, cfg, args, log, os.Stdout)
	case "help", "-h", "--help":
		fmt.Println("usage: fracti-api [serve [--demo] | token create --user <telegramId> --name <name> | verify [--group <id>] | migrate [--dry-run] [--segments N] [--restart] | table create|describe [--env <name>] [--tag key=value ...] [--pitr=false] | rebuild-summaries [--group <id>] | notify [--replay]]")
		return nil
	}
	return fmt.Errorf("unknown command %q (try: serve, token create, verify, migrate, table create, table describe, rebuild-summaries, notify)", cmd)
}

// openStore connects to DynamoDB; with a local endpoint it also creates the
// table if it is missing. optFns add to the client (metrics).
func openStore(ctx context.Context, cfg config, log *slog.Logger, optFns ...func(*dynamodb.Options)) (*store.Store, error) {
	db, err := store.NewClient(ctx, store.ClientConfig{Endpoint: cfg.Endpoint, Region: cfg.Region}, optFns...)
	if err != nil {
		return nil, err
	}
	s := store.New(db, cfg.Table, store.Options{
		CursorSecret: cfg.CursorSecret, MaxGroupCurrencies: cfg.MaxCurrencies, SpendingMaxDays: cfg.SpendingMaxDays, LegacyGroupsClosed: cfg.LegacyGroupsClosed,
		SyncRetention: cfg.SyncRetention,
	})
	if cfg.Endpoint != "" {
		created, err := s.EnsureTable(ctx)
		if err != nil {
			return nil, err
		}
		if created {
			log.Info("created table", "table", cfg.Table, "endpoint", cfg.Endpoint)
		}
		// A local table made before live updates existed gets its stream now.
		if enabled, err := s.EnableStream(ctx); err != nil {
			return nil, err
		} else if enabled {
			log.Info("enabled the table's stream for live updates", "table", cfg.Table)
		}
	}
	return s, nil
}

// startLive feeds the hub subscriptions are served from until ctx ends,
// and returns it with its Delivery; nil when live updates are off. Without
// LIVE_BROKER the instance reads the stream for its own hub (the embedded
// mode); with it, events come from the broker (startStream publishes them).
func startLive(ctx context.Context, cfg config, s *store.Store, log *slog.Logger, m *metrics.Metrics) (*live.Hub, *live.Delivery, error) {
	if !cfg.LiveUpdates {
		return nil, nil, nil
	}
	streams, err := store.NewStreamsClient(ctx, store.ClientConfig{Endpoint: cfg.Endpoint, Region: cfg.Region}, m.DynamoDBStreams())
	if err != nil {
		return nil, nil, err
	}
	hub := live.NewHub(s, cfg.LiveBuffer, log)
	d, err := newDelivery(cfg, s, hub, streams, log, m)
	if err != nil {
		return nil, nil, err
	}
	s.OnCommit(d.Committed)
	go d.Run(ctx)
	if d.Broker == nil {
		tailer := &live.Tailer{API: streams, StreamARN: s.StreamARN, Handle: d.Records, Log: log, Poll: cfg.StreamPoll}
		hub.Status = tailer.Err
		go tailer.Run(ctx)
	}
	return hub, d, nil
}

func serve(ctx context.Context, cfg config, log *slog.Logger, args []string) error {
	demo := len(args) > 0 && args[0] == "--demo"
	if demo && !cfg.localEngine() {
		// Demo users and a token printed in the clear belong on a local table only.
		return errors.New("serve --demo needs DYNAMODB_ENDPOINT set to a local DynamoDB (such as DynamoDB Local); it never writes demo data to AWS")
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg.GC.apply(log)

	// A manifest that does not fit the schema stops the server before it serves anything.
	var trusted *graph.TrustedDocuments
	if cfg.TrustedDocuments != "" {
		var err error
		if trusted, err = graph.LoadTrustedDocuments(cfg.TrustedDocuments); err != nil {
			return err
		}
		log.Info("running only trusted documents", "path", cfg.TrustedDocuments, "operations", trusted.Len())
	}

	var m *metrics.Metrics // nil: no metrics
	if cfg.Metrics {
		m = metrics.New()
	}
	s, err := openStore(ctx, cfg, log, m.DynamoDB())
	if err != nil {
		return err
	}
	if !cfg.secretFromEnv {
		log.Warn("CURSOR_SECRET is not set: using a random one, so pagination cursors die with this process; set it in production")
	}
	liveCtx, endLive := context.WithCancel(context.WithoutCancel(ctx))
	defer endLive()
	hub, delivery, err := startLive(liveCtx, cfg, s, log, m)
	if err != nil {
		return err
	}
	bot := cfg.telegramBot() // one Bot API client for the resolvers, the webhook and the notifier
	notifier := newNotifier(cfg, s, bot, log)
	if cfg.Notify.On && notifier == nil {
		log.Warn("NOTIFY=true but TELEGRAM_BOT_TOKEN is not set: nothing is sent to Telegram")
	}
	waitStream, err := startStream(liveCtx, cfg, s, log, m, notifierIfOn(cfg, notifier), delivery)
	if err != nil {
		return err
	}
	ton := cfg.TON.verifier(s, log)
	jobs := startJobs(cfg, s, log, m, notifier, ton)
	if cfg.BotToken == "" {
		log.Warn("TELEGRAM_BOT_TOKEN is not set: Telegram Mini App sign-in (tma) is disabled; access tokens still work")
	}
	srv := &http.Server{
		Addr: ":" + cfg.Port,
		Handler: httpapi.New(httpapi.Config{
			Store: s, Log: log, BotToken: cfg.BotToken, AuthMaxAge: cfg.AuthMaxAge,
			CORSOrigins: cfg.CORSOrigins, MaxBodyBytes: cfg.MaxBodyBytes, MaxUploadBytes: cfg.MaxUploadBytes, MaxUploads: cfg.MaxUploads,
			Playground: cfg.Playground, PlaygroundHeadersFromLink: cfg.localEngine(), LoaderWait: cfg.LoaderWait,
			Limits: cfg.Limits, MaxDynamoDBCalls: cfg.MaxCalls, InviteLinks: cfg.InviteLinks,
			TokenCacheTTL: cfg.TokenCacheTTL, Quota: cfg.Quota, ClientIPHeader: cfg.ClientIPHeader,
			Live: hub, LiveLimits: cfg.LiveLimits, LiveDone: liveCtx,
			TrustedDocuments: trusted, DisableIntrospection: !cfg.Introspection, DisableSuggestions: !cfg.FieldSuggestions,
			Metrics: m, MetricsElsewhere: cfg.MetricsAddr != "", GenericMarshal: !cfg.FastMarshal,
			Rates: cfg.Rates.service(s, log),
			Bot:   bot, WebhookSecret: cfg.WebhookSecret,
			Reminders: reminders(notifier),
			TON:       ton,
		}),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	if demo {
		token, err := ensureDemo(ctx, s, ".local/demo-token")
		if err != nil {
			return fmt.Errorf("demo data: %w", err)
		}
		printWelcome(os.Stderr, cfg, token)
	}

	failed := make(chan error, 2)
	go func() {
		log.Info("listening", "addr", srv.Addr, "table", cfg.Table, "playground", cfg.Playground, "metrics", cfg.Metrics,
			"live_max_connections", cfg.LiveLimits.MaxConnections)
		if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
			failed <- err
		}
	}()
	var metricsSrv *http.Server // the metrics' own listener, when METRICS_ADDR asks for one
	if cfg.MetricsAddr != "" {
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", m.Handler())
		metricsSrv = &http.Server{Addr: cfg.MetricsAddr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() {
			log.Info("serving metrics", "addr", cfg.MetricsAddr)
			if err := metricsSrv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
				failed <- fmt.Errorf("metrics listener: %w", err)
			}
		}()
	}
	select {
	case err := <-failed:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing requests in flight")
	endLive() // live connections end now; the server does not wait for them
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	// No scheduled run starts from now; the one in flight may finish within the grace.
	jobsStopped := make(chan error, 1)
	go func() { jobsStopped <- jobs.Stop(shutdownCtx) }()
	defer func() { <-jobsStopped }()
	defer waitStream(shutdownCtx) // endLive stopped the readers: their leases are released meanwhile
	if metricsSrv != nil {
		defer func() { _ = metricsSrv.Shutdown(shutdownCtx) }() // scraped until the API has stopped
	}
	return srv.Shutdown(shutdownCtx)
}
