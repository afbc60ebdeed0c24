package auth

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const (
	testBotToken = "1234567890:AAtest-bot-token_for_fracti"
	testAuthDate = 1700000000
	testUserJSON = `{"id":279058397,"first_name":"Alice","last_name":"Smith","username":"alice","photo_url":"https://t.me/i/userpic/320/alice.svg","language_code":"en","is_premium":true}`
)

var testNow = time.Unix(testAuthDate, 0).Add(time.Minute)

// testFields is typical init data of a Mini App opened from a private chat.
func testFields() url.Values {
	return url.Values{
		"query_id":      {"AAHdF6IQAAAAAN0XohDhrOrc"},
		"user":          {testUserJSON},
		"auth_date":     {"1700000000"},
		"chat_instance": {"-8134722200314281151"},
		"chat_type":     {"private"},
		"start_param":   {"group_42"},
	}
}

// signed returns init data built from testFields after edit, signed with testBotToken.
func signed(edit func(url.Values)) string {
	f := testFields()
	if edit != nil {
		edit(f)
	}
	return SignInitData(f, testBotToken)
}

// TestInitDataKnownAnswer checks the HMAC against a computation written out
// by hand here, independently of initDataMAC.
func TestInitDataKnownAnswer(t *testing.T) {
	dataCheckString := "auth_date=1700000000\n" +
		"chat_instance=-8134722200314281151\n" +
		"chat_type=private\n" +
		"query_id=AAHdF6IQAAAAAN0XohDhrOrc\n" +
		"start_param=group_42\n" +
		"user=" + testUserJSON
	secret := hmac.New(sha256.New, []byte("WebAppData"))
	secret.Write([]byte(testBotToken))
	mac := hmac.New(sha256.New, secret.Sum(nil))
	mac.Write([]byte(dataCheckString))
	wantHash := hex.EncodeToString(mac.Sum(nil))

	// Field order as a Telegram client sends it, not sorted.
	raw := "user=" + url.QueryEscape(testUserJSON) +
		"&chat_instance=-8134722200314281151&chat_type=private&start_param=group_42" +
		"&query_id=AAHdF6IQAAAAAN0XohDhrOrc&auth_date=1700000000&hash=" + wantHash

	data, err := ValidateInitData(raw, testBotToken, 0, testNow)
	require.NoError(t, err)
	require.Equal(t, InitData{
		User: TelegramUser{
			ID:           279058397,
			FirstName:    "Alice",
			LastName:     "Smith",
			Username:     "alice",
			PhotoURL:     "https://t.me/i/userpic/320/alice.svg",
			LanguageCode: "en",
		},
		AuthDate:     time.Unix(testAuthDate, 0).UTC(),
		QueryID:      "AAHdF6IQAAAAAN0XohDhrOrc",
		ChatInstance: "-8134722200314281151",
		ChatType:     "private",
		StartParam:   "group_42",
	}, data)

	minted, err := url.ParseQuery(SignInitData(testFields(), testBotToken))
	require.NoError(t, err)
	require.Equal(t, wantHash, minted.Get("hash"))
}

// TestInitDataReferenceVectors checks init data signed by Telegram-side
// tooling, published in the Telegram Mini Apps (tma.js) documentation.
func TestInitDataReferenceVectors(t *testing.T) {
	tests := []struct {
		name     string
		raw      string
		botToken string
		authDate int64
		wantUser TelegramUser
	}{
		{
			name: "classic",
			raw: "query_id=AAHdF6IQAAAAAN0XohDhrOrc" +
				"&user=%7B%22id%22%3A279058397%2C%22first_name%22%3A%22Vladislav%22%2C%22last_name%22%3A%22Kibenko%22%2C%22username%22%3A%22vdkfrost%22%2C%22language_code%22%3A%22ru%22%2C%22is_premium%22%3Atrue%7D" +
				"&auth_date=1662771648" +
				"&hash=c501b71e775f74ce10e377dea85a7ea24ecd640b223ea86dfe453e0eaed2e2b2",
			botToken: "5768337691:AAH5YkoiEuPk8-FZa32hStHTqXiLPtAEhx8",
			authDate: 1662771648,
			wantUser: TelegramUser{ID: 279058397, FirstName: "Vladislav", LastName: "Kibenko", Username: "vdkfrost", LanguageCode: "ru"},
		},
		{
			// Includes the newer signature field (covered by the hash) and
			// characters that exercise URL and JSON decoding.
			name:     "with signature field",
			raw:      telegramSample,
			botToken: "7342037359:AAHI25ES9xCOMPokpYoz-p8XVrZUdygo2J4",
			authDate: telegramSampleAuthDate,
			wantUser: telegramSampleUser,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := ValidateInitData(tt.raw, tt.botToken, 0, time.Unix(tt.authDate, 0))
			require.NoError(t, err)
			require.Equal(t, tt.wantUser, data.User)

			_, err = ValidateInitData(tt.raw, testBotToken, 0, time.Unix(tt.authDate, 0))
			require.ErrorIs(t, err, ErrInitDataSignature)
		})
	}
}

func TestValidateInitDataAccepts(t *testing.T) {
	authDate := time.Unix(testAuthDate, 0)
	tests := []struct {
		name   string
		raw    string
		maxAge time.Duration
		now    time.Time
	}{
		{"fresh", signed(nil), 0, authDate},
		{"exactly max age old", signed(nil), 0, authDate.Add(24 * time.Hour)},
		{"custom max age", signed(nil), time.Hour, authDate.Add(time.Hour)},
		{"negative max age means default", signed(nil), -time.Second, authDate.Add(23 * time.Hour)},
		{"server clock 30s behind", signed(nil), 0, authDate.Add(-30 * time.Second)},
		{"only the required fields", signed(func(f url.Values) {
			f.Del("query_id")
			f.Del("chat_instance")
			f.Del("chat_type")
			f.Del("start_param")
		}), 0, authDate},
		{"unknown fields are covered and kept out of the way", signed(func(f url.Values) {
			f.Set("signature", "abc")
			f.Set("can_send_after", "10")
		}), 0, authDate},
		{"minimal user", signed(func(f url.Values) { f.Set("user", `{"id":1}`) }), 0, authDate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := ValidateInitData(tt.raw, testBotToken, tt.maxAge, tt.now)
			require.NoError(t, err)
			require.Positive(t, data.User.ID)
			require.Equal(t, authDate.UTC(), data.AuthDate)
		})
	}
}

func TestValidateInitDataRejects(t *testing.T) {
	valid := signed(nil)
	validHash := mustParse(t, valid).Get("hash")
	withHash := func(h string) string {
		f := mustParse(t, valid)
		f.Set("hash", h)
		return f.Encode()
	}

	tests := []struct {
		name     string
		raw      string
		botToken string
		maxAge   time.Duration
		now      time.Time
		wantErr  error
		wantMsg  string
	}{
		{name: "tampered user", raw: strings.Replace(valid, "Alice", "Mallory", 1), wantErr: ErrInitDataSignature,
			wantMsg: "init data signature is invalid (was it signed with this bot's token?)"},
		{name: "tampered user id", raw: strings.Replace(valid, "279058397", "279058398", 1), wantErr: ErrInitDataSignature},
		{name: "tampered auth_date", raw: strings.Replace(valid, "auth_date=1700000000", "auth_date=1700000060", 1), wantErr: ErrInitDataSignature},
		{name: "field added", raw: valid + "&is_admin=true", wantErr: ErrInitDataSignature},
		{name: "field removed", raw: strings.Replace(valid, "chat_type=private&", "", 1), wantErr: ErrInitDataSignature},
		{name: "wrong bot token", raw: valid, botToken: "1234567890:AAother-bot-token", wantErr: ErrInitDataSignature},
		{name: "empty bot token configured", raw: valid, botToken: "-", wantErr: ErrTelegramNotConfigured,
			wantMsg: "Telegram sign-in is not configured on this server"},
		{name: "signed with the empty bot token", raw: SignInitData(testFields(), ""), botToken: "-", wantErr: ErrTelegramNotConfigured},
		{name: "no hash field", raw: testFields().Encode(), wantErr: ErrInitDataMalformed, wantMsg: "init data is malformed: hash is missing"},
		{name: "empty hash", raw: withHash(""), wantErr: ErrInitDataMalformed, wantMsg: "init data is malformed: hash is missing"},
		{name: "uppercase hash", raw: withHash(strings.ToUpper(validHash)), wantErr: ErrInitDataMalformed,
			wantMsg: "init data is malformed: hash must be 64 lowercase hex characters"},
		{name: "garbled hash", raw: withHash("zz" + validHash[2:]), wantErr: ErrInitDataMalformed},
		{name: "short hash", raw: withHash(validHash[:63]), wantErr: ErrInitDataMalformed},
		{name: "base64 hash", raw: withHash("q0PY+YR71q3cxWO/98yCyJ6X6g2QwR/lcpyuZ5ajbXM="), wantErr: ErrInitDataMalformed},
		{name: "expired", raw: valid, now: time.Unix(testAuthDate, 0).Add(24*time.Hour + time.Second), wantErr: ErrInitDataExpired,
			wantMsg: "init data expired: auth_date is older than 24h0m0s"},
		{name: "expired under custom max age", raw: valid, maxAge: time.Hour, now: time.Unix(testAuthDate, 0).Add(time.Hour + time.Second),
			wantErr: ErrInitDataExpired, wantMsg: "init data expired: auth_date is older than 1h0m0s"},
		{name: "future beyond skew", raw: valid, now: time.Unix(testAuthDate, 0).Add(-31 * time.Second), wantErr: ErrInitDataFuture},
		{name: "no user", raw: signed(func(f url.Values) { f.Del("user") }), wantErr: ErrInitDataNoUser,
			wantMsg: "init data has no user: the user field is missing"},
		{name: "user without id", raw: signed(func(f url.Values) { f.Set("user", `{"first_name":"Alice"}`) }), wantErr: ErrInitDataNoUser,
			wantMsg: "init data has no user: user.id is missing"},
		{name: "user id zero", raw: signed(func(f url.Values) { f.Set("user", `{"id":0}`) }), wantErr: ErrInitDataNoUser},
		{name: "user id negative", raw: signed(func(f url.Values) { f.Set("user", `{"id":-5}`) }), wantErr: ErrInitDataNoUser},
		{name: "user null", raw: signed(func(f url.Values) { f.Set("user", `null`) }), wantErr: ErrInitDataNoUser},
		{name: "user id a string", raw: signed(func(f url.Values) { f.Set("user", `{"id":"5"}`) }), wantErr: ErrInitDataMalformed},
		{name: "user not JSON", raw: signed(func(f url.Values) { f.Set("user", `Alice`) }), wantErr: ErrInitDataMalformed},
		{name: "duplicate user", raw: valid + "&user=" + url.QueryEscape(`{"id":1}`), wantErr: ErrInitDataMalformed,
			wantMsg: `init data is malformed: field "user" appears more than once`},
		{name: "duplicate hash", raw: valid + "&hash=" + validHash, wantErr: ErrInitDataMalformed},
		{name: "duplicate key with the same value", raw: "auth_date=1700000000&" + valid, wantErr: ErrInitDataMalformed},
		{name: "missing auth_date", raw: signed(func(f url.Values) { f.Del("auth_date") }), wantErr: ErrInitDataMalformed,
			wantMsg: "init data is malformed: auth_date is missing"},
		{name: "auth_date not a number", raw: signed(func(f url.Values) { f.Set("auth_date", "2023-11-14") }), wantErr: ErrInitDataMalformed},
		{name: "auth_date in milliseconds", raw: signed(func(f url.Values) { f.Set("auth_date", "1700000000000") }), wantErr: ErrInitDataFuture},
		{name: "line break in a value", raw: signed(func(f url.Values) { f.Set("start_param", "x\nuser={\"id\":1}") }), wantErr: ErrInitDataMalformed},
		{name: "empty", raw: "", wantErr: ErrInitDataMalformed},
		{name: "field with an empty name", raw: "=x&" + valid, wantErr: ErrInitDataMalformed,
			wantMsg: "init data is malformed: a field has an empty name"},
		{name: "escaped = in a field name", raw: "a%3Db=1&" + valid, wantErr: ErrInitDataMalformed},
		{name: "not a query string", raw: "%zz", wantErr: ErrInitDataMalformed},
		{name: "semicolon separators", raw: strings.ReplaceAll(valid, "&", ";"), wantErr: ErrInitDataMalformed},
		{name: "too long", raw: valid + "&pad=" + strings.Repeat("a", maxInitDataLen), wantErr: ErrInitDataMalformed},
		{name: "JSON instead of a query string", raw: testUserJSON, wantErr: ErrInitDataMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			botToken := tt.botToken
			switch botToken {
			case "":
				botToken = testBotToken
			case "-":
				botToken = ""
			}
			now := tt.now
			if now.IsZero() {
				now = testNow
			}
			data, err := ValidateInitData(tt.raw, botToken, tt.maxAge, now)
			require.ErrorIs(t, err, tt.wantErr)
			require.Zero(t, data)
			if tt.wantMsg != "" {
				require.Equal(t, tt.wantMsg, err.Error())
			}
			// Messages go to clients: never the secret or the answer.
			require.NotContains(t, err.Error(), testBotToken)
			require.NotContains(t, err.Error(), validHash)
		})
	}
}

func TestSignInitData(t *testing.T) {
	tests := []struct {
		name   string
		fields url.Values
	}{
		{"typical", testFields()},
		{"stale hash is replaced", func() url.Values { f := testFields(); f.Set("hash", strings.Repeat("0", 64)); return f }()},
		{"extra values of a key are ignored", func() url.Values { f := testFields(); f.Add("chat_type", "group"); return f }()},
		{"characters that need escaping", func() url.Values {
			f := testFields()
			f.Set("user", `{"id":5,"first_name":"A & B = C + D % 100 ✓"}`)
			return f
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.fields.Encode()
			raw := SignInitData(tt.fields, testBotToken)
			require.Equal(t, before, tt.fields.Encode(), "input must not be modified")
			_, err := ValidateInitData(raw, testBotToken, 0, testNow)
			require.NoError(t, err)
		})
	}
}

func TestTelegramUserDisplayName(t *testing.T) {
	tests := []struct {
		first, last, want string
	}{
		{"Alice", "Smith", "Alice Smith"},
		{"Alice", "", "Alice"},
		{"", "Smith", "Smith"},
		{"  Alice ", " Smith  ", "Alice Smith"},
		{"Alice", "   ", "Alice"},
		{"", "", ""},
		{"\u202Egnp.exe", "Smith", "gnp.exe Smith"},
		{"Al\x00ice", "\u200B\u3164", "Alice"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			require.Equal(t, tt.want, TelegramUser{FirstName: tt.first, LastName: tt.last}.DisplayName())
		})
	}
}

func mustParse(t *testing.T, raw string) url.Values {
	t.Helper()
	v, err := url.ParseQuery(raw)
	require.NoError(t, err)
	return v
}

// Init data signed by Telegram's production key (TelegramPublicKey) for the
// bot 7342037359, as published in the Telegram Mini Apps SDK for Go:
// github.com/Telegram-Mini-Apps/init-data-golang at commit
// f7a67907f5c0b6b50d4032ca1e4e47f032e40645. telegramSample is the example of
// its README.md (also in the tma.js documentation, with the bot's token: see
// TestInitDataReferenceVectors); telegramSample2 is
// _validateThirdPartyTestInitData of its validate_third_party_test.go.
const (
	telegramSampleBotID = 7342037359
	telegramSample      = "user=%7B%22id%22%3A279058397%2C%22first_name%22%3A%22Vladislav%20%2B%20-%20%3F%20%5C%2F%22%2C%22last_name%22%3A%22Kibenko%22%2C%22username%22%3A%22vdkfrost%22%2C%22language_code%22%3A%22ru%22%2C%22is_premium%22%3Atrue%2C%22allows_write_to_pm%22%3Atrue%2C%22photo_url%22%3A%22https%3A%5C%2F%5C%2Ft.me%5C%2Fi%5C%2Fuserpic%5C%2F320%5C%2F4FPEE4tmP3ATHa57u6MqTDih13LTOiMoKoLDRG4PnSA.svg%22%7D" +
		"&chat_instance=8134722200314281151&chat_type=private&auth_date=1733509682" +
		"&signature=TYJxVcisqbWjtodPepiJ6ghziUL94-KNpG8Pau-X7oNNLNBM72APCpi_RKiUlBvcqo5L-LAxIc3dnTzcZX_PDg" +
		"&hash=a433d8f9847bd6addcc563bff7cc82c89e97ea0d90c11fe5729cae6796a36d73"
	telegramSampleAuthDate = 1733509682
	telegramSample2        = "user=%7B%22id%22%3A279058397%2C%22first_name%22%3A%22Vladislav%20%2B%20-%20%3F%20%5C%2F%22%2C%22last_name%22%3A%22Kibenko%22%2C%22username%22%3A%22vdkfrost%22%2C%22language_code%22%3A%22ru%22%2C%22is_premium%22%3Atrue%2C%22allows_write_to_pm%22%3Atrue%2C%22photo_url%22%3A%22https%3A%5C%2F%5C%2Ft.me%5C%2Fi%5C%2Fuserpic%5C%2F320%5C%2F4FPEE4tmP3ATHa57u6MqTDih13LTOiMoKoLDRG4PnSA.svg%22%7D" +
		"&chat_instance=8134722200314281151&chat_type=private&auth_date=1733584787" +
		"&hash=2174df5b000556d044f3f020384e879c8efcab55ddea2ced4eb752e93e7080d6" +
		"&signature=zL-ucjNyREiHDE8aihFwpfR9aggP2xiAo3NSpfe-p7IbCisNlDKlo7Kb6G4D0Ao2mBrSgEk4maLSdv6MLIlADQ"
	telegramSample2AuthDate = 1733584787
)

// telegramSampleTime is the moment telegramSample was signed.
var telegramSampleTime = time.Unix(telegramSampleAuthDate, 0)

// telegramSampleUser is the user both samples name.
var telegramSampleUser = TelegramUser{
	ID:           279058397,
	FirstName:    "Vladislav + - ? /",
	LastName:     "Kibenko",
	Username:     "vdkfrost",
	PhotoURL:     "https://t.me/i/userpic/320/4FPEE4tmP3ATHa57u6MqTDih13LTOiMoKoLDRG4PnSA.svg",
	LanguageCode: "ru",
}

// TestSignedInitDataTelegramSamples: init data Telegram signed is accepted
// with its bot id and the production key, at the time it was signed; the
// test environment's key refuses it.
func TestSignedInitDataTelegramSamples(t *testing.T) {
	for _, tt := range []struct {
		name     string
		raw      string
		authDate int64
	}{
		{"README sample", telegramSample, telegramSampleAuthDate},
		{"third-party test sample", telegramSample2, telegramSample2AuthDate},
	} {
		t.Run(tt.name, func(t *testing.T) {
			at := time.Unix(tt.authDate, 0)
			data, err := ValidateSignedInitData(tt.raw, telegramSampleBotID, TelegramPublicKey, 0, at)
			require.NoError(t, err)
			require.Equal(t, InitData{
				User:         telegramSampleUser,
				AuthDate:     at.UTC(),
				ChatInstance: "8134722200314281151",
				ChatType:     "private",
			}, data)

			_, err = ValidateSignedInitData(tt.raw, telegramSampleBotID, TelegramTestPublicKey, 0, at)
			require.ErrorIs(t, err, ErrInitDataSignature)
		})
	}
}

// TestSignedInitDataTampering: changing any signed field, the bot id or the
// signature breaks the signature; the hash is not signed, and how the
// fields are encoded does not matter.
func TestSignedInitDataTampering(t *testing.T) {
	otherSig := mustParse(t, telegramSample2).Get("signature")
	edit := func(f func(url.Values)) string {
		v := mustParse(t, telegramSample)
		f(v)
		return v.Encode()
	}
	tests := []struct {
		name    string
		raw     string
		botID   int64
		wantErr error
		wantMsg string
	}{
		{name: "user id", raw: strings.Replace(telegramSample, "279058397", "279058398", 1), wantErr: ErrInitDataSignature,
			wantMsg: "init data signature is invalid (was it signed by Telegram for this server's bot?)"},
		{name: "first name", raw: strings.Replace(telegramSample, "Vladislav", "Vladimir", 1), wantErr: ErrInitDataSignature},
		{name: "username", raw: strings.Replace(telegramSample, "vdkfrost", "vdkfros", 1), wantErr: ErrInitDataSignature},
		{name: "auth_date", raw: strings.Replace(telegramSample, "auth_date=1733509682", "auth_date=1733509683", 1), wantErr: ErrInitDataSignature},
		{name: "chat_instance", raw: strings.Replace(telegramSample, "8134722200314281151", "8134722200314281152", 1), wantErr: ErrInitDataSignature},
		{name: "chat_type", raw: strings.Replace(telegramSample, "chat_type=private", "chat_type=group", 1), wantErr: ErrInitDataSignature},
		{name: "field added", raw: telegramSample + "&start_param=group_42", wantErr: ErrInitDataSignature},
		{name: "empty field added", raw: telegramSample + "&query_id=", wantErr: ErrInitDataSignature},
		{name: "field removed", raw: strings.Replace(telegramSample, "chat_type=private&", "", 1), wantErr: ErrInitDataSignature},
		{name: "another bot", raw: telegramSample, botID: telegramSampleBotID + 1, wantErr: ErrInitDataSignature},
		{name: "a bot id with a digit more", raw: telegramSample, botID: 73420373590, wantErr: ErrInitDataSignature},
		{name: "another signature of Telegram's", raw: edit(func(v url.Values) { v.Set("signature", otherSig) }), wantErr: ErrInitDataSignature},
		{name: "signature's first character", raw: strings.Replace(telegramSample, "signature=T", "signature=U", 1), wantErr: ErrInitDataSignature},
		{name: "signature's last byte", raw: strings.Replace(telegramSample, "ZX_PDg", "ZX_PDA", 1), wantErr: ErrInitDataSignature},
		{name: "no signature", raw: edit(func(v url.Values) { v.Del("signature") }), wantErr: ErrInitDataMalformed,
			wantMsg: "init data is malformed: signature is missing (this server checks Telegram's Ed25519 signature, which Telegram clients send since Bot API 8.0)"},
		{name: "empty signature", raw: edit(func(v url.Values) { v.Set("signature", "") }), wantErr: ErrInitDataMalformed},
		{name: "signature with padding", raw: edit(func(v url.Values) { v.Set("signature", v.Get("signature")+"==") }), wantErr: ErrInitDataMalformed,
			wantMsg: "init data is malformed: signature must be 86 base64url characters without padding"},
		{name: "signature in standard base64", raw: edit(func(v url.Values) {
			v.Set("signature", strings.NewReplacer("-", "+", "_", "/").Replace(v.Get("signature")))
		}), wantErr: ErrInitDataMalformed},
		{name: "signature cut short", raw: strings.Replace(telegramSample, "ZX_PDg", "", 1), wantErr: ErrInitDataMalformed},
		{name: "signature in hex", raw: edit(func(v url.Values) { v.Set("signature", strings.Repeat("ab", 64)) }), wantErr: ErrInitDataMalformed},
		{name: "signature twice", raw: telegramSample + "&signature=" + otherSig, wantErr: ErrInitDataMalformed},
		{name: "line break in a value", raw: edit(func(v url.Values) { v.Set("chat_type", "private\nuser={\"id\":1}") }), wantErr: ErrInitDataMalformed},
		{name: "empty", raw: "", wantErr: ErrInitDataMalformed},
		{name: "no bot id", raw: telegramSample, botID: -1, wantErr: ErrTelegramNotConfigured,
			wantMsg: "Telegram sign-in is not configured on this server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			botID := tt.botID
			switch botID {
			case 0:
				botID = telegramSampleBotID
			case -1:
				botID = 0
			}
			data, err := ValidateSignedInitData(tt.raw, botID, TelegramPublicKey, 0, telegramSampleTime)
			require.ErrorIs(t, err, tt.wantErr)
			require.Zero(t, data)
			if tt.wantMsg != "" {
				require.Equal(t, tt.wantMsg, err.Error())
			}
		})
	}

	// What the signature does not cover changes nothing.
	for name, raw := range map[string]string{
		"hash changed":      strings.Replace(telegramSample, "hash=a433", "hash=b433", 1),
		"hash removed":      strings.Replace(telegramSample, "&hash=a433d8f9847bd6addcc563bff7cc82c89e97ea0d90c11fe5729cae6796a36d73", "", 1),
		"fields reordered":  edit(func(url.Values) {}), // Encode sorts them
		"spaces as +":       strings.ReplaceAll(telegramSample, "%20", "+"),
		"lowercase escapes": strings.ReplaceAll(telegramSample, "%2C", "%2c"),
	} {
		t.Run(name, func(t *testing.T) {
			data, err := ValidateSignedInitData(raw, telegramSampleBotID, TelegramPublicKey, 0, telegramSampleTime)
			require.NoError(t, err)
			require.Equal(t, telegramSampleUser, data.User)
		})
	}
	_, err := ValidateSignedInitData(telegramSample, telegramSampleBotID, nil, 0, telegramSampleTime)
	require.ErrorIs(t, err, ErrTelegramNotConfigured, "no key")
}

// TestSignedInitDataWindow: the signature is checked with the same
// auth_date window as the hash.
func TestSignedInitDataWindow(t *testing.T) {
	tests := []struct {
		name    string
		maxAge  time.Duration
		now     time.Time
		wantErr error
		wantMsg string
	}{
		{name: "when signed", now: telegramSampleTime},
		{name: "exactly max age old", now: telegramSampleTime.Add(24 * time.Hour)},
		{name: "server clock 30s behind", now: telegramSampleTime.Add(-30 * time.Second)},
		{name: "custom max age", maxAge: time.Hour, now: telegramSampleTime.Add(time.Hour)},
		{name: "a second too old", now: telegramSampleTime.Add(24*time.Hour + time.Second), wantErr: ErrInitDataExpired,
			wantMsg: "init data expired: auth_date is older than 24h0m0s"},
		{name: "too old for a custom max age", maxAge: time.Hour, now: telegramSampleTime.Add(time.Hour + time.Second), wantErr: ErrInitDataExpired,
			wantMsg: "init data expired: auth_date is older than 1h0m0s"},
		{name: "today", now: time.Now(), wantErr: ErrInitDataExpired},
		{name: "from the future", now: telegramSampleTime.Add(-31 * time.Second), wantErr: ErrInitDataFuture,
			wantMsg: "init data auth_date is in the future (is the server clock right?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := ValidateSignedInitData(telegramSample, telegramSampleBotID, TelegramPublicKey, tt.maxAge, tt.now)
			if tt.wantErr == nil {
				require.NoError(t, err)
				require.Equal(t, telegramSampleUser.ID, data.User.ID)
				return
			}
			require.ErrorIs(t, err, tt.wantErr)
			require.Zero(t, data)
			if tt.wantMsg != "" {
				require.Equal(t, tt.wantMsg, err.Error())
			}
		})
	}
}

// TestSignedInitDataContent: signed init data is read as the hash's is
// (its user, start parameter, and refusals), here signed with a key made
// for the test over the message "<bot id>:WebAppData\n<data-check-string>".
func TestSignedInitDataContent(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	const botID = 1234567890
	sign := func(edit func(url.Values)) string {
		f := testFields()
		f.Set("hash", strings.Repeat("0", 64)) // not signed: any value
		if edit != nil {
			edit(f)
		}
		var lines []string // the fields but hash, in sorted order written out here
		for _, k := range []string{"auth_date", "chat_instance", "chat_type", "query_id", "start_param", "user"} {
			if v, ok := f[k]; ok {
				lines = append(lines, k+"="+v[0])
			}
		}
		msg := "1234567890:WebAppData\n" + strings.Join(lines, "\n")
		f.Set("signature", base64.RawURLEncoding.EncodeToString(ed25519.Sign(priv, []byte(msg))))
		return f.Encode()
	}

	data, err := ValidateSignedInitData(sign(nil), botID, pub, 0, testNow)
	require.NoError(t, err)
	require.Equal(t, "Alice Smith", data.User.DisplayName())
	require.Equal(t, "group_42", data.StartParam)
	require.Equal(t, "AAHdF6IQAAAAAN0XohDhrOrc", data.QueryID)

	for _, tt := range []struct {
		name    string
		edit    func(url.Values)
		wantErr error
	}{
		{"no user", func(f url.Values) { f.Del("user") }, ErrInitDataNoUser},
		{"user without id", func(f url.Values) { f.Set("user", `{"first_name":"Alice"}`) }, ErrInitDataNoUser},
		{"user not JSON", func(f url.Values) { f.Set("user", "Alice") }, ErrInitDataMalformed},
		{"no auth_date", func(f url.Values) { f.Del("auth_date") }, ErrInitDataMalformed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ValidateSignedInitData(sign(tt.edit), botID, pub, 0, testNow)
			require.ErrorIs(t, err, tt.wantErr)
		})
	}
	_, err = ValidateSignedInitData(sign(nil), botID, TelegramPublicKey, 0, testNow)
	require.ErrorIs(t, err, ErrInitDataSignature, "only Telegram's key is Telegram's")
}
