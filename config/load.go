package config

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fracti/api/graph/limits"
	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/live/redisbroker"
	"github.com/fracti/api/rates/coingecko"
	"github.com/fracti/api/rates/ecb"
)

// FromEnvironment loads the configuration from the process's environment:
// the one place the server reads it.
func FromEnvironment() (Config, error) { return Load(os.Getenv) }

// Load reads every declared setting through getenv (an empty value is
// unset) and checks it. The error names every setting that is wrong and
// what it accepts.
func Load(getenv func(string) string) (Config, error) {
	r := &reader{getenv: getenv}
	var c Config

	c.Server = Server{
		Port:           r.text(port),
		CORSOrigins:    r.list(corsAllowedOrigins),
		MaxBodyBytes:   r.bytes(maxBodyBytes),
		MaxUploadBytes: r.bytes(importMaxBytes),
		MaxUploads:     r.count(importMaxConcurrent, 0, "a positive number of uploads"),
		ClientIPHeader: r.text(clientIPHeader),
		LogJSON:        r.text(logFormat) == "json",
	}

	c.Store = Store{
		Endpoint:           r.text(dynamoDBEndpoint),
		Table:              r.text(dynamoDBTable),
		TableSet:           r.set(dynamoDBTable),
		Region:             r.text(awsRegion),
		DefaultCredentials: r.set(awsAccessKeyID),
		MaxCurrencies:      r.positive(maxGroupCurrencies),
		SpendingMaxDays:    r.positive(spendingMaxDays),
		LegacyGroupsClosed: !r.boolean(legacyGroupsJoinByID),
		SyncRetention:      r.duration(syncRetention),
	}
	if secret := r.text(cursorSecret); secret != "" {
		c.Store.CursorSecret, c.Store.CursorSecretSet = []byte(secret), true
	} else {
		// Cursors then stop working across restarts and between instances: fine locally only.
		c.Store.CursorSecret = make([]byte, 32)
		_, _ = rand.Read(c.Store.CursorSecret)
	}
	// The Playground is for local work: on AWS it is served only when asked for.
	c.Server.Playground = r.booleanOr(playground, c.Store.Endpoint != "")

	c.Receipts = Receipts{
		MaxBytes: r.bytes(receiptMaxBytes), MaxPixels: int64(r.positive(receiptMaxPixels)),
		UploadTTL: r.duration(receiptUploadTTL), DownloadTTL: r.duration(receiptDownloadTTL),
	}
	c.Objects = ObjectStore{
		Bucket:          r.text(s3Bucket),
		Endpoint:        r.httpURL(s3Endpoint, "http://127.0.0.1:9000"),
		Region:          r.text(s3Region),
		AccessKeyID:     r.text(s3AccessKeyID),
		SecretAccessKey: r.text(s3SecretAccessKey),
		Timeout:         r.duration(s3Timeout),
	}
	if c.Objects.Region == "" {
		c.Objects.Region = c.Store.Region
	}
	// Local stores answer at an address of their own, with the bucket in the path.
	c.Objects.PathStyle = r.booleanOr(s3PathStyle, c.Objects.Endpoint != "")
	if b := c.Objects.Bucket; b != "" && !bucketName.MatchString(b) {
		r.failValue(s3Bucket, "a bucket's name: 3 to 63 lower-case letters, digits, dots and hyphens, a letter or digit at each end")
	}
	if (c.Objects.AccessKeyID == "") != (c.Objects.SecretAccessKey == "") {
		// Neither is quoted: one is a secret.
		r.fail(s3AccessKeyID, "set with S3_SECRET_ACCESS_KEY, or both unset (the AWS default chain)")
	}

	c.Auth = Auth{MaxAge: r.duration(authMaxAge), TokenCacheTTL: r.tokenCacheTTL(tokenCacheTTL)}

	c.Quota.ReadsPerDay = r.limit(quotaReadsPerDay)
	c.Quota.WritesPerDay = r.limit(quotaWritesPerDay)
	c.Quota.Sample = r.positive(quotaSample)
	c.Quota.AnonymousPerMinute = int(r.limit(anonRateLimit))

	c.GraphQL = GraphQL{
		LoaderWait:       r.duration(loaderWait),
		TrustedDocuments: r.text(trustedDocuments),
		Introspection:    r.boolean(introspection),
		FastMarshal:      r.boolean(fastMarshal),
		MaxCalls:         r.positive(maxDynamoDBCalls),
	}
	// Suggestions would spell out the schema introspection hides.
	c.GraphQL.FieldSuggestions = r.booleanOr(fieldSuggestions, c.GraphQL.Introspection)
	c.GraphQL.Limits = limits.Config{
		MaxDocumentBytes:   int(r.bytes(maxDocumentBytes)),
		MaxTokens:          r.positive(maxTokens),
		MaxDepth:           r.positive(maxDepth),
		MaxAliases:         r.positive(maxAliases),
		MaxRootFields:      r.positive(maxRootFields),
		MaxSelections:      r.positive(maxSelections),
		MaxDirectives:      r.positive(maxDirectives),
		MaxFragmentSpreads: r.positive(maxFragmentSpreads),
		MaxComplexity:      r.positive(maxComplexity),
	}

	c.Live = Live{
		On:     r.boolean(liveUpdates),
		Buffer: r.positive(liveBuffer),
		Limits: httpapi.LiveLimits{
			ConnectionsPerUser:         r.positive(liveConnectionsPerUser),
			SubscriptionsPerConnection: r.positive(liveSubscriptionsPerConnection),
			PingInterval:               r.duration(livePingInterval),
			MaxMessageBytes:            r.bytes(liveMaxMessageBytes),
			// The default leaves descriptors for everything else (httpapi.DefaultMaxConnections).
			MaxConnections: r.positiveOr(liveMaxConnections, httpapi.DefaultMaxConnections()),
		},
	}

	c.Stream = Stream{Poll: r.duration(streamPollInterval), Broker: r.text(liveBroker), LeaseTimeout: r.duration(leaseTimeout)}
	if c.Stream.Broker != "" {
		if err := redisbroker.CheckURL(c.Stream.Broker); err != nil {
			r.fail(liveBroker, "a Redis URL such as redis://10.0.0.5:6379/0 ("+err.Error()+")")
		}
	}
	if c.Stream.LeaseTimeout > 0 && c.Stream.LeaseTimeout < time.Second {
		r.failValue(leaseTimeout, "at least 1s")
	}

	c.Telegram = Telegram{
		BotToken:      r.text(telegramBotToken),
		APIURL:        r.text(telegramAPIURL),
		WebhookSecret: r.text(telegramWebhookSecret),
		BotUsername:   strings.TrimPrefix(r.text(telegramBotUsername), "@"),
		AppName:       r.text(telegramAppName),
	}
	c.Telegram.BotID = r.botID(telegramBotID, c.Telegram.BotToken)
	c.Telegram.TestEnvironment = r.boolean(telegramTestEnv)

	c.Notify = Notify{
		On: r.boolean(notifyOn), Window: r.duration(notifyBatchWindow),
		MaxAge: r.duration(notifyMaxAge), JobInterval: r.duration(notifyJobInterval),
		RemindTimeout: r.duration(notifyRemindWait),
	}
	c.Recurring = Recurring{Interval: r.duration(recurringInterval), CatchUp: r.positive(recurringCatchUp)}
	c.Purge = Purge{Interval: r.duration(purgeInterval)}
	c.TON = TON{APIURL: r.text(tonAPIURL), APIKey: r.text(tonAPIKey), Interval: r.duration(tonVerifyInterval), GiveUp: r.duration(tonVerifyGiveUp)}
	c.Rates = Rates{
		FiatURL:   r.providerURL(ratesURL, ecb.ExampleURL),
		CryptoURL: r.providerURL(cryptoRatesURL, coingecko.ExampleURL),
		Timeout:   r.duration(ratesTimeout),
	}

	c.Metrics = Metrics{On: r.boolean(metricsOn), Addr: r.text(metricsAddr)}
	if c.Metrics.Addr != "" {
		if _, _, err := net.SplitHostPort(c.Metrics.Addr); err != nil || !c.Metrics.On {
			r.fail(metricsAddr, "an address such as :9090, with METRICS=true")
		}
	}

	c.GC = GC{GOGC: r.text(gogc), GOMEMLIMIT: r.text(gomemlimit)}
	return c, errors.Join(r.errs...)
}

// bucketName is what S3 accepts as a bucket's name.
var bucketName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)

// reader reads settings through getenv, gathering what is wrong with them.
type reader struct {
	getenv func(string) string
	errs   []error
}

// set reports whether s is set (to something other than "").
func (r *reader) set(s *Setting) bool { return r.getenv(s.Name) != "" }

// text is s's value, or its default when it is unset.
func (r *reader) text(s *Setting) string {
	if v := r.getenv(s.Name); v != "" {
		return v
	}
	return s.Default
}

// fail records that s, as set, is not what it accepts.
func (r *reader) fail(s *Setting, accepts string) {
	r.errs = append(r.errs, fmt.Errorf("%s must be %s", s.Name, accepts))
}

// failValue is fail quoting the value: for settings whose values are not
// secrets (numbers, durations, booleans).
func (r *reader) failValue(s *Setting, accepts string) {
	r.errs = append(r.errs, fmt.Errorf("%s must be %s, not %q", s.Name, accepts, r.text(s)))
}

// list is a comma-separated s, without blanks.
func (r *reader) list(s *Setting) []string {
	var out []string
	for _, v := range strings.Split(r.text(s), ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// boolean reads s as true or false.
func (r *reader) boolean(s *Setting) bool { return r.booleanOr(s, false) }

// booleanOr is boolean with def when s is unset and declares no default.
func (r *reader) booleanOr(s *Setting, def bool) bool {
	v := r.text(s)
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		r.failValue(s, "true or false")
	}
	return b
}

// positive reads s as a positive whole number.
func (r *reader) positive(s *Setting) int { return r.positiveOr(s, 0) }

// bytes reads s as a positive number of bytes.
func (r *reader) bytes(s *Setting) int64 { return int64(r.count(s, 0, "a positive number of bytes")) }

// positiveOr is positive with def when s is unset and declares no default.
func (r *reader) positiveOr(s *Setting, def int) int {
	return r.count(s, def, "a positive whole number")
}

// count reads s as a positive whole number, def when s is unset and
// declares no default; accepts says what of, for the error.
func (r *reader) count(s *Setting, def int, accepts string) int {
	v := r.text(s)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		r.failValue(s, accepts)
	}
	return n
}

// limit reads s as a whole number, 0 for no limit.
func (r *reader) limit(s *Setting) int64 {
	n, err := strconv.ParseInt(r.text(s), 10, 64)
	if err != nil || n < 0 {
		r.failValue(s, "a whole number (0: no limit)")
	}
	return n
}

// duration reads s as a positive duration.
func (r *reader) duration(s *Setting) time.Duration {
	d, err := time.ParseDuration(r.text(s))
	if err != nil || d <= 0 {
		r.failValue(s, "a positive duration such as 24h or 2ms")
	}
	return d
}

// tokenCacheTTL reads s as a duration, 0 turning the cache off (given to
// httpapi as a negative TTL).
func (r *reader) tokenCacheTTL(s *Setting) time.Duration {
	d, err := time.ParseDuration(r.text(s))
	switch {
	case err != nil || d < 0:
		r.failValue(s, "a duration such as 30s, or 0 for no cache")
	case d == 0:
		return -1
	}
	return d
}

// botID reads s as a bot's id, a positive whole number; unset, it is the
// number before ':' in token (0 when there is none). Set with a token, the
// two must agree.
func (r *reader) botID(s *Setting, token string) int64 {
	prefix, _, _ := strings.Cut(token, ":")
	fromToken, err := strconv.ParseInt(prefix, 10, 64)
	if err != nil || fromToken <= 0 {
		fromToken = 0
	}
	if !r.set(s) {
		return fromToken
	}
	id, err := strconv.ParseInt(r.text(s), 10, 64)
	switch {
	case err != nil || id <= 0:
		// Not quoted: it may be the token itself, pasted in the wrong place.
		r.fail(s, "a bot's id, the positive whole number before ':' in its token")
	case fromToken != 0 && id != fromToken:
		r.failValue(s, "the number before ':' in TELEGRAM_BOT_TOKEN")
	}
	return id
}

// providerURL reads s as an outside provider's http(s) URL, on by
// default: "off" turns the provider off (empty).
func (r *reader) providerURL(s *Setting, example string) string {
	if r.getenv(s.Name) == "off" {
		return ""
	}
	return r.httpURL(s, example)
}

// httpURL reads s as an http(s) URL, if set; example shows one.
func (r *reader) httpURL(s *Setting, example string) string {
	v := r.text(s)
	if v == "" {
		return ""
	}
	if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		r.fail(s, "an http(s) URL such as "+example)
	}
	return v
}
