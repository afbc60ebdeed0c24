package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// maxSeenUsers bounds the recorded-profile cache; clearing it when full only
// costs one extra profile write per active user.
const maxSeenUsers = 10_000

const usageHint = `use "tma <initData>" or "Bearer <token>"`

var (
	// ErrAuthUnavailable means the server could not finish checking credentials
	// (e.g. the database is down); it is not the caller's fault. Its message
	// includes the internal cause, so log it rather than show it to clients.
	ErrAuthUnavailable = errors.New("authentication is temporarily unavailable")
	// ErrAuthorizationHeader means the Authorization header is not "tma <initData>" or "Bearer <token>".
	ErrAuthorizationHeader = errors.New("invalid Authorization header")
)

// TokenInfo is what the store knows of a personal access token.
type TokenInfo struct {
	// Identity is the token's owner (UserID, Name, Username), its Scopes
	// (none: every scope, as for tokens written before scopes) and ExpiresAt.
	Identity Identity
	// LastUsedAt is the UTC day (YYYY-MM-DD) the token was last used on, "" if never.
	LastUsedAt string
}

// TokenLookup finds the owner of a personal access token and records its
// use; the store implements it.
type TokenLookup interface {
	// LookupToken returns the token with the hash, or ErrTokenUnknown.
	LookupToken(ctx context.Context, hash string) (TokenInfo, error)
	// TouchToken records that the token was used on day (UTC, YYYY-MM-DD),
	// unless it already was.
	TouchToken(ctx context.Context, hash, day string) error
}

// UserRecorder keeps the profiles of Telegram users; the store implements it.
type UserRecorder interface {
	// RecordTelegramUser stores or updates the profile of a user who signed in with init data.
	RecordTelegramUser(ctx context.Context, u TelegramUser) error
}

// Authenticator turns Authorization headers into identities; use it through a pointer and do not copy it.
type Authenticator struct {
	// BotToken checks init data's hash (HMAC-SHA256); when set, it is the
	// only check of init data.
	BotToken string
	// BotID, without BotToken, checks init data's signature: Telegram's
	// Ed25519 signature for this bot. Neither set: "tma" credentials are
	// rejected with ErrTelegramNotConfigured.
	BotID int64
	// TestEnvironment checks the signature with TelegramTestPublicKey
	// rather than TelegramPublicKey (never both: the test environment's
	// accounts are not production's).
	TestEnvironment bool
	MaxAge          time.Duration    // 0 means DefaultMaxAge
	Tokens          TokenLookup      // required for "Bearer" credentials
	Users           UserRecorder     // may be nil
	Now             func() time.Time // nil means time.Now
	// TokenCacheTTL is how long a token lookup (found or unknown) is
	// remembered; 0 or less means every request looks its token up. A token
	// revoked on another instance works there for up to this long.
	TokenCacheTTL time.Duration
	// TokenCacheSize bounds the remembered lookups (0 means DefaultTokenCacheSize).
	TokenCacheSize int

	mu     sync.Mutex
	seen   map[int64]seenProfile // user id -> last profile recorded by this process
	tokens tokenCache
}

// seenProfile is what a profile write is skipped for: the fields the store
// keeps, plus the auth_date they were signed at.
type seenProfile struct {
	firstName, lastName, username, photoURL string
	authDate                                time.Time
}

// Authenticate checks an Authorization header value: "" gives a zero Identity
// and nil error (anonymous); anything else gives an identity or an error.
func (a *Authenticator) Authenticate(ctx context.Context, header string) (Identity, error) {
	if header == "" {
		return Identity{}, nil
	}
	scheme, cred, err := splitAuthorization(header)
	if err != nil {
		return Identity{}, err
	}
	if scheme == "tma" {
		return a.authenticateTelegram(ctx, cred)
	}
	return a.authenticateToken(ctx, cred)
}

// Middleware gives the request's context its caller: the Identity, or the
// reason its credentials were rejected (see FromContext and FailureFrom).
// The check runs when the request first asks, not here, so a request that
// is refused before it runs costs no token lookup; it always calls next, so
// the GraphQL layer can report failures as GraphQL errors.
func (a *Authenticator) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		// The check keeps the header's value, not the request: a WebSocket's
		// context outlives its handshake, and should not hold its headers.
		headers, header := len(r.Header.Values("Authorization")), r.Header.Get("Authorization")
		check := func() (Identity, error) {
			// Two headers (e.g. one added by a proxy) are ambiguous: refuse to pick one.
			if headers > 1 {
				return Identity{}, &authError{ErrAuthorizationHeader, "send a single Authorization header"}
			}
			return a.Authenticate(ctx, header)
		}
		next.ServeHTTP(w, r.WithContext(withPendingCheck(ctx, check)))
	})
}

// splitAuthorization returns the lowercased scheme ("tma" or "bearer") and the credential.
func splitAuthorization(header string) (scheme, cred string, err error) {
	h := strings.Trim(header, " \t")
	i := strings.IndexAny(h, " \t")
	if i < 0 {
		scheme, cred = h, ""
	} else {
		scheme, cred = h[:i], strings.TrimLeft(h[i:], " \t")
	}
	switch {
	case strings.EqualFold(scheme, "tma"):
		if cred == "" {
			return "", "", &authError{ErrAuthorizationHeader,
				`Authorization header has no init data after "tma" (Telegram.WebApp.initData is empty outside Telegram)`}
		}
		return "tma", cred, nil
	case strings.EqualFold(scheme, "bearer"):
		if cred == "" {
			return "", "", &authError{ErrAuthorizationHeader, `Authorization header has no token after "Bearer"`}
		}
		return "bearer", cred, nil
	case h == "":
		return "", "", &authError{ErrAuthorizationHeader, "Authorization header is empty: " + usageHint}
	case i < 0 && strings.HasPrefix(h, TokenPrefix):
		return "", "", &authError{ErrAuthorizationHeader, `Authorization header lacks the "Bearer " before the access token`}
	case i < 0:
		// Do not echo the value: it may well be a secret.
		return "", "", &authError{ErrAuthorizationHeader, `Authorization header must be "tma <initData>" or "Bearer <token>"`}
	default:
		return "", "", &authError{ErrAuthorizationHeader,
			fmt.Sprintf("unsupported Authorization scheme %s: %s", quoteShort(scheme), usageHint)}
	}
}

func (a *Authenticator) authenticateTelegram(ctx context.Context, raw string) (Identity, error) {
	data, err := a.validateInitData(raw)
	if err != nil {
		return Identity{}, err
	}
	u := data.User
	if err := a.recordUser(ctx, u, data.AuthDate); err != nil {
		return Identity{}, fmt.Errorf("%w: recording Telegram user: %w", ErrAuthUnavailable, err)
	}
	return Identity{
		UserID:     u.ID,
		Name:       u.DisplayName(),
		Username:   u.Username,
		PhotoURL:   u.PhotoURL,
		Method:     MethodTelegram,
		StartParam: data.StartParam,
		Scopes:     slices.Clone(AllScopes),
		// LanguageCode is kept on memberships: the language of messages.
		LanguageCode: u.LanguageCode,
	}, nil
}

// validateInitData checks init data with the bot token when there is one
// (its hash, exactly as before Telegram signed init data with Ed25519), else
// with Telegram's public key for BotID (its signature).
func (a *Authenticator) validateInitData(raw string) (InitData, error) {
	switch {
	case a.BotToken != "":
		return ValidateInitData(raw, a.BotToken, a.MaxAge, a.now())
	case a.BotID > 0:
		key := TelegramPublicKey
		if a.TestEnvironment {
			key = TelegramTestPublicKey
		}
		return ValidateSignedInitData(raw, a.BotID, key, a.MaxAge, a.now())
	}
	return InitData{}, ErrTelegramNotConfigured
}

// recordUser writes u's profile unless this process already wrote it, so
// sign-ins cost one write per profile change rather than one per request.
func (a *Authenticator) recordUser(ctx context.Context, u TelegramUser, authDate time.Time) error {
	if a.Users == nil {
		return nil
	}
	p := seenProfile{u.FirstName, u.LastName, u.Username, u.PhotoURL, authDate}

	a.mu.Lock()
	last, ok := a.seen[u.ID]
	if ok && (last.sameFields(p) || authDate.Before(last.authDate)) {
		// Same profile, or older init data (e.g. a stale tab) that must not
		// overwrite a newer name with an outdated one.
		if authDate.After(last.authDate) {
			last.authDate = authDate
			a.seen[u.ID] = last
		}
		a.mu.Unlock()
		return nil
	}
	a.mu.Unlock()

	// Concurrent first requests may both write; the store's upsert makes that harmless.
	if err := a.Users.RecordTelegramUser(ctx, u); err != nil {
		return err
	}

	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.seen[u.ID]; a.seen == nil || (!ok && len(a.seen) >= maxSeenUsers) {
		a.seen = make(map[int64]seenProfile)
	}
	if last, ok := a.seen[u.ID]; !ok || !authDate.Before(last.authDate) {
		a.seen[u.ID] = p
	}
	return nil
}

func (p seenProfile) sameFields(q seenProfile) bool {
	return p.firstName == q.firstName && p.lastName == q.lastName &&
		p.username == q.username && p.photoURL == q.photoURL
}

func (a *Authenticator) authenticateToken(ctx context.Context, token string) (Identity, error) {
	if err := checkToken(token); err != nil {
		return Identity{}, err
	}
	return a.authenticateHash(ctx, HashToken(token))
}

// Recheck returns the check of a credential that was good once, to run
// again as long as a connection holds it (Authenticate's answer, without
// the identity): an access token is split from its header and hashed once
// here, not on every check, since a live connection rechecks it before
// each event it is sent.
func (a *Authenticator) Recheck(header string) func(context.Context) error {
	scheme, cred, err := splitAuthorization(header)
	if header == "" || err != nil || scheme == "tma" {
		return func(ctx context.Context) error {
			_, err := a.Authenticate(ctx, header)
			return err
		}
	}
	if err := checkToken(cred); err != nil {
		return func(context.Context) error { return err }
	}
	hash := HashToken(cred)
	return func(ctx context.Context) error {
		_, err := a.authenticateHash(ctx, hash)
		return err
	}
}

// authenticateHash is authenticateToken of the token with the hash.
func (a *Authenticator) authenticateHash(ctx context.Context, hash string) (Identity, error) {
	if a.Tokens == nil {
		return Identity{}, fmt.Errorf("%w: no token store is configured", ErrAuthUnavailable)
	}
	info, err := a.lookupToken(ctx, hash)
	switch {
	case errors.Is(err, ErrTokenUnknown):
		// The bare sentinel: the store's wrapping may hold internal detail.
		return Identity{}, ErrTokenUnknown
	case err != nil:
		return Identity{}, fmt.Errorf("%w: looking up access token: %w", ErrAuthUnavailable, err)
	case info.Identity.UserID <= 0:
		return Identity{}, fmt.Errorf("%w: token store returned no user id", ErrAuthUnavailable)
	}
	now := a.now()
	id := info.Identity
	if !id.ExpiresAt.IsZero() && !now.Before(id.ExpiresAt) {
		return Identity{}, &authError{ErrTokenExpired,
			"access token expired at " + id.ExpiresAt.UTC().Format(time.RFC3339)}
	}
	if day := now.UTC().Format(dayLayout); info.LastUsedAt < day {
		// At most one write per token and day: the store's write is
		// conditional, and the cache remembers it. Best effort: a failure
		// costs the caller nothing, and the next request tries again.
		if err := a.Tokens.TouchToken(ctx, hash, day); err == nil {
			a.tokens.usedOn(hash, day)
		}
	}
	if len(id.Scopes) == 0 {
		id.Scopes = slices.Clone(AllScopes)
	}
	id.Method = MethodToken
	return id, nil
}

// dayLayout is how lastUsedAt writes a UTC day.
const dayLayout = "2006-01-02"

// lookupToken asks the cache, then the store. What the store answers
// (unknown included, failures not) is remembered for TokenCacheTTL.
func (a *Authenticator) lookupToken(ctx context.Context, hash string) (TokenInfo, error) {
	if a.TokenCacheTTL <= 0 {
		return a.Tokens.LookupToken(ctx, hash)
	}
	now := a.now()
	if e, ok := a.tokens.get(hash, now); ok {
		if e.unknown {
			return TokenInfo{}, ErrTokenUnknown
		}
		return e.info, nil
	}
	info, err := a.Tokens.LookupToken(ctx, hash)
	unknown := errors.Is(err, ErrTokenUnknown)
	if err != nil && !unknown {
		return TokenInfo{}, err
	}
	size := a.TokenCacheSize
	if size <= 0 {
		size = DefaultTokenCacheSize
	}
	a.tokens.put(hash, tokenEntry{info: info, unknown: unknown, until: now.Add(a.TokenCacheTTL)}, now, size)
	return info, err
}

// ForgetToken drops what this Authenticator remembers of the token with the
// hash, so that a token revoked here stops working here at once.
func (a *Authenticator) ForgetToken(hash string) { a.tokens.forget(hash) }

// ForgetUser drops what this Authenticator remembers of a user's sign-in
// (the profile last recorded from their init data), so that after an
// erasure their next sign-in records it afresh.
func (a *Authenticator) ForgetUser(userID int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.seen, userID)
}

func (a *Authenticator) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// authError is a client-facing failure whose whole message is written for
// the client, while errors.Is still sees its sentinel.
type authError struct {
	sentinel error
	msg      string
}

func (e *authError) Error() string { return e.msg }
func (e *authError) Unwrap() error { return e.sentinel }
