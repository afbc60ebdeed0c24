package config

import (
	"testing"
	"time"

	"github.com/fracti/api/httpapi"
	"github.com/fracti/api/tonapi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// load is FromEnvironment, which must succeed.
func load(t *testing.T) Config {
	t.Helper()
	c, err := FromEnvironment()
	require.NoError(t, err)
	return c
}

func TestConfigDefaults(t *testing.T) {
	for _, v := range []string{"PORT", "DYNAMODB_TABLE", "AUTH_MAX_AGE", "CURSOR_SECRET", "CORS_ALLOWED_ORIGINS", "PLAYGROUND", "MAX_BODY_BYTES"} {
		t.Setenv(v, "")
	}
	c := load(t)
	require.Equal(t, "8080", c.Server.Port)
	require.Equal(t, "FractiTable", c.Store.Table)
	require.Equal(t, TableBaseName, c.Store.Table, "FractiTable is DYNAMODB_TABLE's default")
	require.False(t, c.Store.TableSet)
	require.Equal(t, 24*time.Hour, c.Auth.MaxAge)
	require.Len(t, c.Store.CursorSecret, 32)
	require.False(t, c.Store.CursorSecretSet)
	require.Empty(t, c.Server.CORSOrigins)
	require.Equal(t, 30*time.Second, c.Auth.TokenCacheTTL)
}

// TestConfigPlayground: the Playground is on by default against a local
// engine (DYNAMODB_ENDPOINT), off by default against AWS, and PLAYGROUND
// decides either way.
func TestConfigPlayground(t *testing.T) {
	for _, tc := range []struct {
		endpoint, playground string
		want                 bool
	}{
		{"http://127.0.0.1:8000", "", true},
		{"", "", false},
		{"", "true", true},
		{"http://127.0.0.1:8000", "false", false},
		{"", "false", false},
	} {
		t.Setenv("DYNAMODB_ENDPOINT", tc.endpoint)
		t.Setenv("PLAYGROUND", tc.playground)
		require.Equal(t, tc.want, load(t).Server.Playground, "DYNAMODB_ENDPOINT=%q PLAYGROUND=%q", tc.endpoint, tc.playground)
	}
}

func TestConfigTokenCacheTTL(t *testing.T) {
	for value, want := range map[string]time.Duration{"": 30 * time.Second, "5s": 5 * time.Second, "0s": -1, "0": -1} {
		t.Setenv("TOKEN_CACHE_TTL", value)
		c, err := FromEnvironment()
		require.NoError(t, err, value)
		require.Equal(t, want, c.Auth.TokenCacheTTL, "%q (negative: no cache)", value)
	}
	for _, value := range []string{"-1s", "soon"} {
		t.Setenv("TOKEN_CACHE_TTL", value)
		_, err := FromEnvironment()
		require.ErrorContains(t, err, "TOKEN_CACHE_TTL", value)
	}
}

func TestConfigFromEnvironment(t *testing.T) {
	t.Setenv("PORT", "9000")
	t.Setenv("DYNAMODB_TABLE", "Fracti-prod")
	t.Setenv("AUTH_MAX_AGE", "1h")
	t.Setenv("CURSOR_SECRET", "s3cret")
	t.Setenv("CORS_ALLOWED_ORIGINS", "https://a.example, https://b.example")
	t.Setenv("PLAYGROUND", "false")
	c := load(t)
	require.Equal(t, "9000", c.Server.Port)
	require.Equal(t, "Fracti-prod", c.Store.Table)
	require.True(t, c.Store.TableSet)
	require.Equal(t, time.Hour, c.Auth.MaxAge)
	require.Equal(t, []byte("s3cret"), c.Store.CursorSecret)
	require.True(t, c.Store.CursorSecretSet)
	require.Equal(t, []string{"https://a.example", "https://b.example"}, c.Server.CORSOrigins)
	require.False(t, c.Server.Playground)

	for name, value := range map[string]string{"AUTH_MAX_AGE": "a day", "PLAYGROUND": "maybe", "MAX_BODY_BYTES": "-1", "LOADER_WAIT": "0s"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, value)
			_, err := FromEnvironment()
			require.ErrorContains(t, err, name)
		})
	}
}

// TestConfigErrorsNameEverySetting: every setting that is wrong is named at
// once, each with what it accepts and the value it was given.
func TestConfigErrorsNameEverySetting(t *testing.T) {
	t.Setenv("AUTH_MAX_AGE", "a day")
	t.Setenv("QUOTA_SAMPLE", "0")
	t.Setenv("NOTIFY", "yes please")
	_, err := FromEnvironment()
	require.EqualError(t, err, "AUTH_MAX_AGE must be a positive duration such as 24h or 2ms, not \"a day\"\n"+
		"QUOTA_SAMPLE must be a positive whole number, not \"0\"\n"+
		"NOTIFY must be true or false, not \"yes please\"")
}

func TestConfigIntrospectionAndSuggestions(t *testing.T) {
	for _, tc := range []struct {
		introspection, suggestions   string
		wantIntrospection, wantHints bool
	}{
		{"", "", true, true},
		{"false", "", false, false}, // hints would spell out the hidden schema
		{"false", "true", false, true},
		{"true", "false", true, false},
	} {
		t.Setenv("INTROSPECTION", tc.introspection)
		t.Setenv("FIELD_SUGGESTIONS", tc.suggestions)
		c := load(t)
		require.Equal(t, tc.wantIntrospection, c.GraphQL.Introspection, "%+v", tc)
		require.Equal(t, tc.wantHints, c.GraphQL.FieldSuggestions, "%+v", tc)
	}
	for _, name := range []string{"INTROSPECTION", "FIELD_SUGGESTIONS"} {
		t.Setenv(name, "off")
		_, err := FromEnvironment()
		require.ErrorContains(t, err, name)
		t.Setenv(name, "")
	}
}

// LIVE_MAX_CONNECTIONS defaults to what the descriptor limit allows, and
// takes a positive number.
func TestConfigLiveMaxConnections(t *testing.T) {
	t.Setenv("LIVE_MAX_CONNECTIONS", "")
	require.Equal(t, httpapi.DefaultMaxConnections(), load(t).Live.Limits.MaxConnections)
	t.Setenv("LIVE_MAX_CONNECTIONS", "5000")
	require.Equal(t, 5000, load(t).Live.Limits.MaxConnections)
	for _, bad := range []string{"0", "-1", "many"} {
		t.Setenv("LIVE_MAX_CONNECTIONS", bad)
		_, err := FromEnvironment()
		require.ErrorContains(t, err, "LIVE_MAX_CONNECTIONS", bad)
	}
}

// LocalEngine: `serve --demo` (make run) writes demo data and prints a
// token only against a DynamoDB of its own, never AWS.
func TestLocalEngine(t *testing.T) {
	for endpoint, local := range map[string]bool{
		"":                           false,
		"http://127.0.0.1:8000":      true,
		"http://dynamodb-local:8000": true,
		"https://dynamodb.eu-west-1.amazonaws.com":     false,
		"https://dynamodb.cn-north-1.amazonaws.com.cn": false,
	} {
		require.Equal(t, local, Store{Endpoint: endpoint}.LocalEngine(), endpoint)
	}
}

func TestConfigMetrics(t *testing.T) {
	t.Setenv("METRICS", "")
	t.Setenv("METRICS_ADDR", "")
	c := load(t)
	require.True(t, c.Metrics.On, "on by default")
	require.Empty(t, c.Metrics.Addr, "on the API's port by default")

	t.Setenv("METRICS", "false")
	require.False(t, load(t).Metrics.On)

	for name, env := range map[string][2]string{
		"not a boolean":              {"maybe", ""},
		"not an address":             {"true", "9090"},
		"an address with no metrics": {"false", ":9090"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("METRICS", env[0])
			t.Setenv("METRICS_ADDR", env[1])
			_, err := FromEnvironment()
			require.ErrorContains(t, err, "METRICS")
		})
	}
}

// TestConfigNotify: the notifier is off by default, with a 20 s batch
// window, a 1 h bound on an event's age, jobs every 5 minutes and 5 s for
// remindDebtors' wait; each may be set, and bad values stop the server.
func TestConfigNotify(t *testing.T) {
	for _, name := range []string{"NOTIFY", "NOTIFY_BATCH_WINDOW", "NOTIFY_MAX_AGE", "NOTIFY_JOB_INTERVAL", "NOTIFY_REMIND_TIMEOUT"} {
		t.Setenv(name, "")
	}
	require.Equal(t, Notify{On: false, Window: 20 * time.Second, MaxAge: time.Hour, JobInterval: 5 * time.Minute, RemindTimeout: 5 * time.Second}, load(t).Notify)

	t.Setenv("NOTIFY", "true")
	t.Setenv("NOTIFY_BATCH_WINDOW", "5s")
	t.Setenv("NOTIFY_MAX_AGE", "30m")
	t.Setenv("NOTIFY_JOB_INTERVAL", "1m")
	t.Setenv("NOTIFY_REMIND_TIMEOUT", "2s")
	require.Equal(t, Notify{On: true, Window: 5 * time.Second, MaxAge: 30 * time.Minute, JobInterval: time.Minute, RemindTimeout: 2 * time.Second}, load(t).Notify)

	for name, bad := range map[string]string{"NOTIFY": "yes please", "NOTIFY_BATCH_WINDOW": "soon", "NOTIFY_MAX_AGE": "-1h", "NOTIFY_JOB_INTERVAL": "0s", "NOTIFY_REMIND_TIMEOUT": "never"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, bad)
			_, err := FromEnvironment()
			require.ErrorContains(t, err, name)
		})
	}
}

// TestConfigTelegramBotID: the bot id is TELEGRAM_BOT_ID, or the number
// before ':' in TELEGRAM_BOT_TOKEN; set with the token, the two agree; the
// test environment's key is chosen only by TELEGRAM_TEST_ENVIRONMENT.
func TestConfigTelegramBotID(t *testing.T) {
	for _, tc := range []struct {
		token, id, testEnv string
		want               Telegram
	}{
		{"", "", "", Telegram{}},
		{"", "7342037359", "", Telegram{BotID: 7342037359}},
		{"", "7342037359", "true", Telegram{BotID: 7342037359, TestEnvironment: true}},
		{"7342037359:AAHI25ES9xCOMPokpYoz", "", "", Telegram{BotToken: "7342037359:AAHI25ES9xCOMPokpYoz", BotID: 7342037359}},
		{"7342037359:AAHI25ES9xCOMPokpYoz", "7342037359", "", Telegram{BotToken: "7342037359:AAHI25ES9xCOMPokpYoz", BotID: 7342037359}},
		{"not-a-bot-token", "", "", Telegram{BotToken: "not-a-bot-token"}},
		{"not-a-bot-token", "42", "", Telegram{BotToken: "not-a-bot-token", BotID: 42}},
		{"-5:x", "", "", Telegram{BotToken: "-5:x"}},
	} {
		t.Setenv("TELEGRAM_BOT_TOKEN", tc.token)
		t.Setenv("TELEGRAM_BOT_ID", tc.id)
		t.Setenv("TELEGRAM_TEST_ENVIRONMENT", tc.testEnv)
		got := load(t).Telegram
		got.APIURL = ""
		require.Equal(t, tc.want, got, "TELEGRAM_BOT_TOKEN=%q TELEGRAM_BOT_ID=%q", tc.token, tc.id)
	}

	for _, tc := range []struct{ token, id, testEnv, wantErr string }{
		{"", "bot", "", "TELEGRAM_BOT_ID must be a bot's id, the positive whole number before ':' in its token"},
		{"", "0", "", "TELEGRAM_BOT_ID must be a bot's id"},
		{"", "-7342037359", "", "TELEGRAM_BOT_ID must be a bot's id"},
		{"", "7342037359:AAHI25ES9xCOMPokpYoz", "", "TELEGRAM_BOT_ID must be a bot's id"},
		{"7342037359:AAHI25ES9xCOMPokpYoz", "7342037358", "", `TELEGRAM_BOT_ID must be the number before ':' in TELEGRAM_BOT_TOKEN, not "7342037358"`},
		{"", "7342037359", "yes", "TELEGRAM_TEST_ENVIRONMENT must be true or false"},
	} {
		t.Setenv("TELEGRAM_BOT_TOKEN", tc.token)
		t.Setenv("TELEGRAM_BOT_ID", tc.id)
		t.Setenv("TELEGRAM_TEST_ENVIRONMENT", tc.testEnv)
		_, err := FromEnvironment()
		require.ErrorContains(t, err, tc.wantErr)
		require.NotContains(t, err.Error(), "AAHI25ES9xCOMPokpYoz", "the token is a secret")
	}
}

func TestConfigTON(t *testing.T) {
	for _, name := range []string{"TON_API_URL", "TON_API_KEY", "TON_VERIFY_INTERVAL", "TON_VERIFY_GIVE_UP"} {
		t.Setenv(name, "")
	}
	require.Equal(t, TON{APIURL: tonapi.DefaultURL, Interval: 15 * time.Second, GiveUp: 30 * time.Minute}, load(t).TON)

	t.Setenv("TON_API_URL", "http://127.0.0.1:9999")
	t.Setenv("TON_API_KEY", "k")
	t.Setenv("TON_VERIFY_INTERVAL", "2s")
	t.Setenv("TON_VERIFY_GIVE_UP", "1h")
	require.Equal(t, TON{APIURL: "http://127.0.0.1:9999", APIKey: "k", Interval: 2 * time.Second, GiveUp: time.Hour}, load(t).TON)

	for _, name := range []string{"TON_VERIFY_INTERVAL", "TON_VERIFY_GIVE_UP"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, "soon")
			_, err := FromEnvironment()
			require.ErrorContains(t, err, name)
		})
	}
}

func TestConfigRecurring(t *testing.T) {
	t.Setenv("RECURRING_INTERVAL", "")
	t.Setenv("RECURRING_CATCH_UP", "")
	require.Equal(t, Recurring{Interval: time.Minute, CatchUp: 31}, load(t).Recurring)

	t.Setenv("RECURRING_INTERVAL", "250ms")
	t.Setenv("RECURRING_CATCH_UP", "3")
	require.Equal(t, Recurring{Interval: 250 * time.Millisecond, CatchUp: 3}, load(t).Recurring)

	for name, env := range map[string][2]string{
		"interval not a duration": {"soon", "3"},
		"interval zero":           {"0s", "3"},
		"catch-up zero":           {"1m", "0"},
		"catch-up not a number":   {"1m", "all"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("RECURRING_INTERVAL", env[0])
			t.Setenv("RECURRING_CATCH_UP", env[1])
			_, err := FromEnvironment()
			require.ErrorContains(t, err, "RECURRING_")
		})
	}
}

// TestConfigSpendingMaxDays: SPENDING_MAX_DAYS is 366 by default, may be
// set, and must be a positive number of days.
func TestConfigSpendingMaxDays(t *testing.T) {
	t.Setenv("SPENDING_MAX_DAYS", "")
	require.Equal(t, 366, load(t).Store.SpendingMaxDays)

	t.Setenv("SPENDING_MAX_DAYS", "731")
	require.Equal(t, 731, load(t).Store.SpendingMaxDays)

	for _, bad := range []string{"0", "-1", "a year"} {
		t.Setenv("SPENDING_MAX_DAYS", bad)
		_, err := FromEnvironment()
		require.ErrorContains(t, err, "SPENDING_MAX_DAYS", bad)
	}
}

func TestConfigRates(t *testing.T) {
	// Unset: the ECB's and CoinGecko's public endpoints.
	t.Setenv("RATES_URL", "")
	t.Setenv("CRYPTO_RATES_URL", "")
	assert.Equal(t, Rates{FiatURL: "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml",
		CryptoURL: "https://api.coingecko.com/api/v3/simple/price", Timeout: 5 * time.Second}, load(t).Rates)

	// off: no provider, and the server serves (conversions need a rate).
	t.Setenv("RATES_URL", "off")
	t.Setenv("CRYPTO_RATES_URL", "off")
	assert.Equal(t, Rates{Timeout: 5 * time.Second}, load(t).Rates)

	t.Setenv("RATES_URL", "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml")
	t.Setenv("CRYPTO_RATES_URL", "http://127.0.0.1:9999/api/v3/simple/price")
	t.Setenv("RATES_TIMEOUT", "2s")
	assert.Equal(t, Rates{FiatURL: "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml",
		CryptoURL: "http://127.0.0.1:9999/api/v3/simple/price", Timeout: 2 * time.Second}, load(t).Rates)

	for name, value := range map[string]string{
		"RATES_URL": "www.ecb.europa.eu/eurofxref-daily.xml", "CRYPTO_RATES_URL": "ftp://example.com/price", "RATES_TIMEOUT": "soon",
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, value)
			_, err := FromEnvironment()
			require.ErrorContains(t, err, name)
		})
	}
}

// TestConfigStream: the default poll, no broker and a 10 s lease timeout
// by default; each may be set, and a bad broker URL or timeout stops the
// server.
func TestConfigStream(t *testing.T) {
	t.Setenv("STREAM_POLL_INTERVAL", "")
	t.Setenv("LIVE_BROKER", "")
	t.Setenv("LEASE_TIMEOUT", "")
	require.Equal(t, Stream{Poll: 250 * time.Millisecond, LeaseTimeout: 10 * time.Second}, load(t).Stream)

	t.Setenv("LIVE_BROKER", "redis://10.0.0.5:6379/0")
	t.Setenv("LEASE_TIMEOUT", "30s")
	require.Equal(t, Stream{Poll: 250 * time.Millisecond, Broker: "redis://10.0.0.5:6379/0", LeaseTimeout: 30 * time.Second}, load(t).Stream)

	for _, bad := range []string{"soon", "500ms", "-1s"} {
		t.Setenv("LEASE_TIMEOUT", bad)
		_, err := FromEnvironment()
		require.ErrorContains(t, err, "LEASE_TIMEOUT", bad)
	}
	t.Setenv("LEASE_TIMEOUT", "")
	t.Setenv("LIVE_BROKER", "http://not-redis")
	_, err := FromEnvironment()
	require.ErrorContains(t, err, "LIVE_BROKER")
}

// TestEverySettingIsRead: Load asks for every declared setting and for
// nothing else, so a declaration cannot go stale and nothing is read that
// the documentation does not list.
func TestEverySettingIsRead(t *testing.T) {
	asked := map[string]bool{}
	_, err := Load(func(name string) string {
		asked[name] = true
		return ""
	})
	require.NoError(t, err)
	declared := map[string]bool{}
	for _, s := range Settings() {
		require.False(t, declared[s.Name], "%s is declared twice", s.Name)
		declared[s.Name] = true
		require.NotEmpty(t, s.Meaning, "%s has no meaning", s.Name)
	}
	require.Equal(t, declared, asked)
	require.Contains(t, declared, "PORT")
	require.Contains(t, declared, "AWS_ACCESS_KEY_ID", "the store's choice of credentials is made here, not in the store")
}

// TestDeclaredDefaultsAreValid: every literal default is one its setting
// accepts (Load with nothing set fails otherwise), and the documentation
// shows each default.
func TestDeclaredDefaultsAreValid(t *testing.T) {
	_, err := Load(func(string) string { return "" })
	require.NoError(t, err)
	for _, s := range Settings() {
		require.NotEmpty(t, s.DocumentedDefault(), s.Name)
	}
	require.Equal(t, "24h", durationText(24*time.Hour))
	require.Equal(t, "10m", durationText(10*time.Minute))
	require.Equal(t, "250ms", durationText(250*time.Millisecond))
	require.Equal(t, "1h30m", durationText(90*time.Minute))
}

// TestConfigObjectStore: no bucket by default (storage off, everything
// else works); against a local store the bucket goes in the path and its
// keys sign; the region follows AWS_REGION unless S3_REGION is set; bad
// values stop the server, naming the setting and never quoting the secret.
func TestConfigObjectStore(t *testing.T) {
	for _, name := range []string{"S3_BUCKET", "S3_ENDPOINT", "S3_REGION", "S3_PATH_STYLE", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY", "S3_TIMEOUT", "AWS_REGION"} {
		t.Setenv(name, "")
	}
	require.Equal(t, ObjectStore{Timeout: 5 * time.Second}, load(t).Objects)

	t.Setenv("AWS_REGION", "eu-west-1")
	t.Setenv("S3_BUCKET", "fracti-receipts-prod")
	require.Equal(t, ObjectStore{Bucket: "fracti-receipts-prod", Region: "eu-west-1", Timeout: 5 * time.Second}, load(t).Objects,
		"on AWS: virtual-host style, the default chain's credentials")
	t.Setenv("S3_REGION", "eu-central-1")
	t.Setenv("S3_PATH_STYLE", "true")
	t.Setenv("S3_TIMEOUT", "2s")
	require.Equal(t, ObjectStore{Bucket: "fracti-receipts-prod", Region: "eu-central-1", PathStyle: true, Timeout: 2 * time.Second}, load(t).Objects)

	t.Setenv("S3_REGION", "")
	t.Setenv("S3_PATH_STYLE", "")
	t.Setenv("S3_TIMEOUT", "")
	t.Setenv("S3_BUCKET", "fracti-receipts")
	t.Setenv("S3_ENDPOINT", "http://127.0.0.1:9000")
	t.Setenv("S3_ACCESS_KEY_ID", "fracti-local")
	t.Setenv("S3_SECRET_ACCESS_KEY", "fracti-local-secret")
	require.Equal(t, ObjectStore{Bucket: "fracti-receipts", Endpoint: "http://127.0.0.1:9000", Region: "eu-west-1", PathStyle: true,
		AccessKeyID: "fracti-local", SecretAccessKey: "fracti-local-secret", Timeout: 5 * time.Second}, load(t).Objects, "make run")
	t.Setenv("S3_PATH_STYLE", "false")
	require.False(t, load(t).Objects.PathStyle, "a local store with virtual hosts")
	t.Setenv("S3_PATH_STYLE", "")

	for _, tc := range []struct{ name, value, want string }{
		{"S3_BUCKET", "Receipts", `S3_BUCKET must be a bucket's name`},
		{"S3_BUCKET", "ab", `S3_BUCKET must be a bucket's name`},
		{"S3_BUCKET", "fracti_receipts", `S3_BUCKET must be a bucket's name`},
		{"S3_ENDPOINT", "127.0.0.1:9000", "S3_ENDPOINT must be an http(s) URL"},
		{"S3_PATH_STYLE", "yes", "S3_PATH_STYLE must be true or false"},
		{"S3_TIMEOUT", "0s", "S3_TIMEOUT must be a positive duration"},
		{"S3_SECRET_ACCESS_KEY", "", "S3_ACCESS_KEY_ID must be set with S3_SECRET_ACCESS_KEY"},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			t.Setenv(tc.name, tc.value)
			_, err := FromEnvironment()
			require.ErrorContains(t, err, tc.want)
		})
	}
	t.Setenv("S3_ACCESS_KEY_ID", "")
	_, err := FromEnvironment()
	require.ErrorContains(t, err, "S3_ACCESS_KEY_ID must be set with S3_SECRET_ACCESS_KEY")
	require.NotContains(t, err.Error(), "fracti-local-secret", "the secret is not quoted")
}
