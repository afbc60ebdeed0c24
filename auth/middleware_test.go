package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeTokens is an in-memory TokenLookup.
type fakeTokens struct {
	mu       sync.Mutex
	byHash   map[string]Identity
	lastUsed map[string]string // hash -> lastUsedAt
	err      error             // returned by every lookup when set
	calls    []string
	touches  []string // "<hash> <day>" of every TouchToken
}

func (f *fakeTokens) LookupToken(_ context.Context, hash string) (TokenInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, hash)
	if f.err != nil {
		return TokenInfo{}, f.err
	}
	id, ok := f.byHash[hash]
	if !ok {
		return TokenInfo{}, ErrTokenUnknown
	}
	return TokenInfo{Identity: id, LastUsedAt: f.lastUsed[hash]}, nil
}

func (f *fakeTokens) TouchToken(_ context.Context, hash, day string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.touches = append(f.touches, hash+" "+day)
	if f.err != nil {
		return f.err
	}
	if f.lastUsed == nil {
		f.lastUsed = map[string]string{}
	}
	if _, ok := f.byHash[hash]; ok && f.lastUsed[hash] < day {
		f.lastUsed[hash] = day
	}
	return nil
}

func (f *fakeTokens) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

// fakeUsers is an in-memory UserRecorder.
type fakeUsers struct {
	mu       sync.Mutex
	err      error // returned by every call when set
	recorded []TelegramUser
}

func (f *fakeUsers) RecordTelegramUser(_ context.Context, u TelegramUser) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	f.recorded = append(f.recorded, u)
	return nil
}

func (f *fakeUsers) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.recorded)
}

func (f *fakeUsers) setErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

// result is what the wrapped handler saw on its request context.
type result struct {
	id      Identity
	hasID   bool
	failure error
}

// serve runs one request with the given Authorization headers through a.Middleware.
func serve(t *testing.T, a *Authenticator, headers ...string) result {
	t.Helper()
	var got result
	called := false
	h := a.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		called = true
		got.id, got.hasID = FromContext(r.Context())
		got.failure = FailureFrom(r.Context())
		w.WriteHeader(http.StatusNoContent)
	}))
	req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(`{"query":"{me{id}}"}`))
	for _, v := range headers {
		req.Header.Add("Authorization", v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.True(t, called, "middleware must always call next")
	require.Equal(t, http.StatusNoContent, rec.Code)
	return got
}

// testSetup is an Authenticator with fakes and one issued token.
type testSetup struct {
	auth   *Authenticator
	tokens *fakeTokens
	users  *fakeUsers
	token  string
	owner  Identity
}

func newTestSetup(t *testing.T) *testSetup {
	t.Helper()
	tok, err := NewToken()
	require.NoError(t, err)
	owner := Identity{UserID: 279058397, Name: "Alice's script", Username: "alice"}
	s := &testSetup{
		tokens: &fakeTokens{byHash: map[string]Identity{HashToken(tok): owner}},
		users:  &fakeUsers{},
		token:  tok,
		owner:  owner,
	}
	s.auth = &Authenticator{
		BotToken: testBotToken,
		Tokens:   s.tokens,
		Users:    s.users,
		Now:      func() time.Time { return testNow },
	}
	return s
}

func TestMiddlewareIdentities(t *testing.T) {
	s := newTestSetup(t)
	initData := signed(nil)
	alice := Identity{
		UserID:   279058397,
		Name:     "Alice Smith",
		Username: "alice",
		PhotoURL: "https://t.me/i/userpic/320/alice.svg",
		Method:   MethodTelegram,
		// The Mini App was opened with a start parameter; the signed one is kept.
		StartParam: "group_42", LanguageCode: "en", // from the init data's user
		Scopes: AllScopes,
	}
	script := s.owner
	script.Method = MethodToken
	script.Scopes = AllScopes

	tests := []struct {
		name   string
		header string
		want   Identity
	}{
		{"tma", "tma " + initData, alice},
		{"TMA uppercase", "TMA " + initData, alice},
		{"tma with several spaces", "tma   " + initData, alice},
		{"tma with a tab", "tma\t" + initData, alice},
		{"Bearer", "Bearer " + s.token, script},
		{"bearer lowercase", "bearer " + s.token, script},
		{"BEARER with several spaces", "BEARER  " + s.token, script},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := serve(t, s.auth, tt.header)
			require.NoError(t, got.failure)
			require.True(t, got.hasID)
			require.Equal(t, tt.want, got.id)
			require.Equal(t, "279058397", got.id.UserKey())
		})
	}
	require.Equal(t, []string{HashToken(s.token), HashToken(s.token), HashToken(s.token)}, s.tokens.calls,
		"the store sees only the hash")
}

func TestMiddlewareAnonymous(t *testing.T) {
	s := newTestSetup(t)
	tests := []struct {
		name    string
		headers []string
	}{
		{"no header", nil},
		{"empty header", []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := serve(t, s.auth, tt.headers...)
			require.Equal(t, result{}, got)
		})
	}
	id, err := s.auth.Authenticate(context.Background(), "")
	require.NoError(t, err)
	require.Zero(t, id)
}

func TestMiddlewareFailures(t *testing.T) {
	s := newTestSetup(t)
	valid := signed(nil)
	otherToken, err := NewToken()
	require.NoError(t, err)

	tests := []struct {
		name        string
		headers     []string
		edit        func(*Authenticator)
		wantErr     error
		wantMsg     string
		wantLookups int
	}{
		{name: "forged init data", headers: []string{"tma " + strings.Replace(valid, "279058397", "1", 1)},
			wantErr: ErrInitDataSignature},
		{name: "init data for another bot", headers: []string{"tma " + SignInitData(testFields(), "999:other")},
			wantErr: ErrInitDataSignature, wantMsg: "init data signature is invalid (was it signed with this bot's token?)"},
		{name: "expired init data", headers: []string{"tma " + valid},
			edit:    func(a *Authenticator) { a.Now = func() time.Time { return testNow.Add(48 * time.Hour) } },
			wantErr: ErrInitDataExpired, wantMsg: "init data expired: auth_date is older than 24h0m0s"},
		{name: "max age is configurable", headers: []string{"tma " + valid},
			edit:    func(a *Authenticator) { a.MaxAge = 30 * time.Second },
			wantErr: ErrInitDataExpired, wantMsg: "init data expired: auth_date is older than 30s"},
		{name: "Telegram not configured", headers: []string{"tma " + valid},
			edit:    func(a *Authenticator) { a.BotToken = "" },
			wantErr: ErrTelegramNotConfigured, wantMsg: "Telegram sign-in is not configured on this server"},
		{name: "unknown token", headers: []string{"Bearer " + otherToken},
			wantErr: ErrTokenUnknown, wantMsg: "unknown access token", wantLookups: 1},
		{name: "token without prefix", headers: []string{"Bearer " + strings.TrimPrefix(s.token, TokenPrefix)},
			wantErr: ErrTokenMalformed, wantMsg: `access token is malformed: it must start with "frt_"`},
		{name: "truncated token", headers: []string{"Bearer " + s.token[:40]},
			wantErr: ErrTokenMalformed, wantMsg: `access token is malformed: expected "frt_" followed by 43 base64url characters`},
		{name: "token with a bad character", headers: []string{"Bearer " + s.token[:46] + "*"}, wantErr: ErrTokenMalformed},
		{name: "init data sent as bearer", headers: []string{"Bearer " + valid}, wantErr: ErrTokenMalformed},
		{name: "token sent as tma", headers: []string{"tma " + s.token}, wantErr: ErrInitDataMalformed},
		{name: "Basic scheme", headers: []string{"Basic YWxpY2U6c2VjcmV0"}, wantErr: ErrAuthorizationHeader,
			wantMsg: `unsupported Authorization scheme "Basic": use "tma <initData>" or "Bearer <token>"`},
		{name: "long unknown scheme is cut short", headers: []string{strings.Repeat("x", 100) + " y"}, wantErr: ErrAuthorizationHeader,
			wantMsg: `unsupported Authorization scheme "` + strings.Repeat("x", 32) + `"…: use "tma <initData>" or "Bearer <token>"`},
		{name: "tma without init data", headers: []string{"tma"}, wantErr: ErrAuthorizationHeader,
			wantMsg: `Authorization header has no init data after "tma" (Telegram.WebApp.initData is empty outside Telegram)`},
		{name: "tma followed by spaces", headers: []string{"tma   "}, wantErr: ErrAuthorizationHeader},
		{name: "Bearer without token", headers: []string{"Bearer "}, wantErr: ErrAuthorizationHeader,
			wantMsg: `Authorization header has no token after "Bearer"`},
		{name: "token without scheme", headers: []string{s.token}, wantErr: ErrAuthorizationHeader,
			wantMsg: `Authorization header lacks the "Bearer " before the access token`},
		{name: "bare word", headers: []string{"secret"}, wantErr: ErrAuthorizationHeader,
			wantMsg: `Authorization header must be "tma <initData>" or "Bearer <token>"`},
		{name: "only spaces", headers: []string{"   "}, wantErr: ErrAuthorizationHeader},
		{name: "two Authorization headers", headers: []string{"tma " + valid, "Bearer " + s.token}, wantErr: ErrAuthorizationHeader,
			wantMsg: "send a single Authorization header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.tokens.calls = nil
			a := &Authenticator{BotToken: s.auth.BotToken, Tokens: s.tokens, Users: s.users, Now: s.auth.Now}
			if tt.edit != nil {
				tt.edit(a)
			}
			got := serve(t, a, tt.headers...)
			require.False(t, got.hasID)
			require.Zero(t, got.id)
			require.ErrorIs(t, got.failure, tt.wantErr)
			require.NotErrorIs(t, got.failure, ErrAuthUnavailable)
			if tt.wantMsg != "" {
				require.Equal(t, tt.wantMsg, got.failure.Error())
			}
			require.NotContains(t, got.failure.Error(), testBotToken)
			require.NotContains(t, got.failure.Error(), s.token[len(TokenPrefix):])
			require.Equal(t, tt.wantLookups, s.tokens.callCount())
		})
	}
	require.Zero(t, s.users.count(), "rejected init data is never recorded")
}

// TestAuthenticatorSignedInitData: without a bot token, the Authenticator
// checks Telegram's signature for BotID with the production key (the test
// environment's with TestEnvironment); with a token it checks the hash
// alone, as before.
func TestAuthenticatorSignedInitData(t *testing.T) {
	const sampleToken = "7342037359:AAHI25ES9xCOMPokpYoz-p8XVrZUdygo2J4" // telegramSample's bot (TestInitDataReferenceVectors)
	at := func() time.Time { return telegramSampleTime }
	noHash := strings.Replace(telegramSample, "&hash=a433d8f9847bd6addcc563bff7cc82c89e97ea0d90c11fe5729cae6796a36d73", "", 1)
	vladislav := Identity{
		UserID: 279058397, Name: "Vladislav + - ? / Kibenko", Username: "vdkfrost",
		PhotoURL: telegramSampleUser.PhotoURL, LanguageCode: "ru", Method: MethodTelegram, Scopes: AllScopes,
	}
	type settings struct {
		token string
		botID int64
		test  bool
	}
	tests := []struct {
		name    string
		auth    settings
		raw     string
		wantErr error
		wantMsg string
	}{
		{name: "bot id", auth: settings{botID: telegramSampleBotID}, raw: telegramSample},
		{name: "bot id, no hash", auth: settings{botID: telegramSampleBotID}, raw: noHash},
		{name: "bot id of another bot", auth: settings{botID: 1234567890}, raw: telegramSample, wantErr: ErrInitDataSignature,
			wantMsg: "init data signature is invalid (was it signed by Telegram for this server's bot?)"},
		{name: "bot id in the test environment", auth: settings{botID: telegramSampleBotID, test: true}, raw: telegramSample,
			wantErr: ErrInitDataSignature},
		{name: "bot id, hash-only init data", auth: settings{botID: telegramSampleBotID}, raw: signed(nil), wantErr: ErrInitDataMalformed,
			wantMsg: "init data is malformed: signature is missing (this server checks Telegram's Ed25519 signature, which Telegram clients send since Bot API 8.0)"},
		{name: "token", auth: settings{token: sampleToken}, raw: telegramSample},
		{name: "token and bot id", auth: settings{token: sampleToken, botID: telegramSampleBotID}, raw: telegramSample},
		{name: "token and bot id, no hash: the hash is required", auth: settings{token: sampleToken, botID: telegramSampleBotID}, raw: noHash,
			wantErr: ErrInitDataMalformed, wantMsg: "init data is malformed: hash is missing"},
		{name: "another token and the bot id: the token decides", auth: settings{token: testBotToken, botID: telegramSampleBotID}, raw: telegramSample,
			wantErr: ErrInitDataSignature, wantMsg: "init data signature is invalid (was it signed with this bot's token?)"},
		{name: "neither", raw: telegramSample, wantErr: ErrTelegramNotConfigured},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			users := &fakeUsers{}
			a := &Authenticator{BotToken: tt.auth.token, BotID: tt.auth.botID, TestEnvironment: tt.auth.test, Users: users, Now: at}
			got := serve(t, a, "tma "+tt.raw)
			if tt.wantErr == nil {
				require.NoError(t, got.failure)
				require.Equal(t, vladislav, got.id)
				require.Equal(t, 1, users.count(), "the profile is recorded")
				return
			}
			require.False(t, got.hasID)
			require.ErrorIs(t, got.failure, tt.wantErr)
			require.NotErrorIs(t, got.failure, ErrAuthUnavailable)
			if tt.wantMsg != "" {
				require.Equal(t, tt.wantMsg, got.failure.Error())
			}
			require.Zero(t, users.count())
		})
	}
}

func TestMiddlewareUnavailable(t *testing.T) {
	dbDown := errors.New("dial tcp 10.0.0.5:5432: connection refused")
	tok, err := NewToken()
	require.NoError(t, err)

	tests := []struct {
		name   string
		header string
		auth   *Authenticator
	}{
		{"token lookup fails", "Bearer " + tok,
			&Authenticator{Tokens: &fakeTokens{err: dbDown}}},
		{"recording the user fails", "tma " + signed(nil),
			&Authenticator{BotToken: testBotToken, Users: &fakeUsers{err: dbDown}, Now: func() time.Time { return testNow }}},
		{"no token store configured", "Bearer " + tok, &Authenticator{}},
		{"token store returns no user", "Bearer " + tok,
			&Authenticator{Tokens: &fakeTokens{byHash: map[string]Identity{HashToken(tok): {Name: "ghost"}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := serve(t, tt.auth, tt.header)
			require.False(t, got.hasID)
			require.ErrorIs(t, got.failure, ErrAuthUnavailable)
			require.NotErrorIs(t, got.failure, ErrTokenUnknown)
		})
	}

	got := serve(t, &Authenticator{Tokens: &fakeTokens{err: dbDown}}, "Bearer "+tok)
	require.ErrorIs(t, got.failure, dbDown, "the cause stays available for logging")
}

func TestMiddlewareUnknownTokenWrappedByStore(t *testing.T) {
	tok, err := NewToken()
	require.NoError(t, err)
	store := &fakeTokens{err: fmt.Errorf("select from tokens where hash=%q: %w", HashToken(tok), ErrTokenUnknown)}

	got := serve(t, &Authenticator{Tokens: store}, "Bearer "+tok)
	require.ErrorIs(t, got.failure, ErrTokenUnknown)
	require.Equal(t, "unknown access token", got.failure.Error(), "store details stay out of client messages")
}

func TestMiddlewareRecordsEachProfileOnce(t *testing.T) {
	s := newTestSetup(t)
	withName := func(first string, authDate int64) string {
		return "tma " + signed(func(f url.Values) {
			f.Set("user", `{"id":279058397,"first_name":"`+first+`","username":"alice"}`)
			f.Set("auth_date", strconv.FormatInt(authDate, 10))
		})
	}

	steps := []struct {
		name      string
		header    string
		wantCount int
		wantName  string
	}{
		{"first sign-in records", withName("Alice", testAuthDate), 1, "Alice"},
		{"same profile again", withName("Alice", testAuthDate), 1, "Alice"},
		{"same profile, newer init data", withName("Alice", testAuthDate+10), 1, "Alice"},
		{"name changed", withName("Alicia", testAuthDate+20), 2, "Alicia"},
		{"changed name again", withName("Alicia", testAuthDate+20), 2, "Alicia"},
		{"stale tab with the old name does not overwrite", withName("Alice", testAuthDate+5), 2, "Alice"},
		{"changed back for real", withName("Alice", testAuthDate+30), 3, "Alice"},
	}
	for _, st := range steps {
		got := serve(t, s.auth, st.header)
		require.NoError(t, got.failure, st.name)
		require.Equal(t, st.wantName, got.id.Name, st.name)
		require.Equal(t, st.wantCount, s.users.count(), st.name)
	}
	require.Equal(t, "Alicia", s.users.recorded[1].FirstName)

	// Another user is recorded independently.
	other := "tma " + signed(func(f url.Values) { f.Set("user", `{"id":7,"first_name":"Bob"}`) })
	serve(t, s.auth, other)
	serve(t, s.auth, other)
	require.Equal(t, 4, s.users.count())
}

func TestMiddlewareRetriesFailedRecording(t *testing.T) {
	s := newTestSetup(t)
	header := "tma " + signed(nil)

	s.users.setErr(errors.New("database is down"))
	require.ErrorIs(t, serve(t, s.auth, header).failure, ErrAuthUnavailable)

	s.users.setErr(nil)
	got := serve(t, s.auth, header)
	require.NoError(t, got.failure)
	require.True(t, got.hasID)
	require.Equal(t, 1, s.users.count(), "a failed write is not remembered as done")
}

func TestRecordUserCacheIsBounded(t *testing.T) {
	users := &fakeUsers{}
	a := &Authenticator{Users: users}
	authDate := time.Unix(testAuthDate, 0)
	ctx := context.Background()

	for id := int64(1); id <= maxSeenUsers; id++ {
		require.NoError(t, a.recordUser(ctx, TelegramUser{ID: id, FirstName: "U"}, authDate))
	}
	require.Len(t, a.seen, maxSeenUsers)
	require.NoError(t, a.recordUser(ctx, TelegramUser{ID: 1, FirstName: "U"}, authDate))
	require.Equal(t, maxSeenUsers, users.count(), "known users are not written again")

	require.NoError(t, a.recordUser(ctx, TelegramUser{ID: maxSeenUsers + 1, FirstName: "U"}, authDate))
	require.Len(t, a.seen, 1, "a full cache is dropped")
	require.NoError(t, a.recordUser(ctx, TelegramUser{ID: 1, FirstName: "U"}, authDate))
	require.Equal(t, maxSeenUsers+2, users.count(), "dropped users are written once more")
}

func TestMiddlewareConcurrent(t *testing.T) {
	s := newTestSetup(t)
	headers := []string{"tma " + signed(nil), "Bearer " + s.token, "Basic x", ""}
	const n = 64
	var identified [n]bool
	h := s.auth.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i, _ := strconv.Atoi(r.URL.Query().Get("i"))
		_, identified[i] = FromContext(r.Context())
	}))

	// No require in these goroutines: FailNow must run on the test goroutine.
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			req := httptest.NewRequest(http.MethodPost, "/graphql?i="+strconv.Itoa(i), nil)
			req.Header.Set("Authorization", headers[i%len(headers)])
			h.ServeHTTP(httptest.NewRecorder(), req)
		})
	}
	wg.Wait()
	for i := range n {
		require.Equal(t, i%len(headers) < 2, identified[i], "request %d", i)
	}
	// Concurrent first sign-ins may each write, but at most once per request.
	require.GreaterOrEqual(t, s.users.count(), 1)
	require.LessOrEqual(t, s.users.count(), n/len(headers))
}

func TestAuthenticatorDefaultClock(t *testing.T) {
	f := testFields()
	f.Set("auth_date", strconv.FormatInt(time.Now().Unix(), 10))
	a := &Authenticator{BotToken: testBotToken}

	id, err := a.Authenticate(context.Background(), "tma "+SignInitData(f, testBotToken))
	require.NoError(t, err)
	require.Equal(t, int64(279058397), id.UserID)
}
