package auth

import (
	"errors"
	"testing"
	"time"

	"github.com/fracti/api/internal/testkit/testclock"
	"github.com/stretchr/testify/require"
)

// cachedSetup is newTestSetup with a 30s token cache and a movable clock.
func cachedSetup(t *testing.T) (*testSetup, *testclock.Clock) {
	t.Helper()
	s := newTestSetup(t)
	clock := testclock.At(time.Date(2026, 3, 4, 23, 59, 0, 0, time.UTC))
	s.auth.Now = clock.Now
	s.auth.TokenCacheTTL = 30 * time.Second
	return s, clock
}

func TestTokenCacheRemembersLookups(t *testing.T) {
	s, clock := cachedSetup(t)
	for range 3 {
		got := serve(t, s.auth, "Bearer "+s.token)
		require.NoError(t, got.failure)
		require.Equal(t, s.owner.UserID, got.id.UserID)
	}
	require.Equal(t, 1, s.tokens.callCount(), "one lookup for three requests")

	clock.Add(30 * time.Second)
	require.NoError(t, serve(t, s.auth, "Bearer "+s.token).failure)
	require.Equal(t, 2, s.tokens.callCount(), "looked up again once the entry is 30s old")
}

func TestTokenCacheRemembersUnknownTokens(t *testing.T) {
	s, _ := cachedSetup(t)
	other, err := NewToken()
	require.NoError(t, err)
	for range 2 {
		require.ErrorIs(t, serve(t, s.auth, "Bearer "+other).failure, ErrTokenUnknown)
	}
	require.Equal(t, 1, s.tokens.callCount())
}

func TestTokenCacheNeverRemembersFailures(t *testing.T) {
	s, _ := cachedSetup(t)
	s.tokens.err = errors.New("connection refused")
	for range 2 {
		require.ErrorIs(t, serve(t, s.auth, "Bearer "+s.token).failure, ErrAuthUnavailable)
	}
	require.Equal(t, 2, s.tokens.callCount())
}

// A token revoked here stops at once (ForgetToken); revoked elsewhere, it
// works here until its entry is TokenCacheTTL old.
func TestTokenCacheRevocation(t *testing.T) {
	s, clock := cachedSetup(t)
	require.NoError(t, serve(t, s.auth, "Bearer "+s.token).failure)
	delete(s.tokens.byHash, HashToken(s.token)) // revoked in the store by another instance

	clock.Add(29 * time.Second)
	require.NoError(t, serve(t, s.auth, "Bearer "+s.token).failure, "still remembered")
	clock.Add(time.Second)
	require.ErrorIs(t, serve(t, s.auth, "Bearer "+s.token).failure, ErrTokenUnknown, "TTL passed")

	s2, _ := cachedSetup(t)
	require.NoError(t, serve(t, s2.auth, "Bearer "+s2.token).failure)
	delete(s2.tokens.byHash, HashToken(s2.token))
	s2.auth.ForgetToken(HashToken(s2.token)) // revoked through this instance
	require.ErrorIs(t, serve(t, s2.auth, "Bearer "+s2.token).failure, ErrTokenUnknown)
}

// Expiry is the token's own, checked on every request, whatever the cache holds.
func TestTokenExpiryIsCheckedOnEveryRequest(t *testing.T) {
	s, clock := cachedSetup(t)
	owner := s.owner
	owner.ExpiresAt = clock.Now().Add(10 * time.Second)
	s.tokens.byHash[HashToken(s.token)] = owner

	got := serve(t, s.auth, "Bearer "+s.token)
	require.NoError(t, got.failure)
	require.Equal(t, owner.ExpiresAt, got.id.ExpiresAt)
	clock.Add(10 * time.Second)
	got = serve(t, s.auth, "Bearer "+s.token)
	require.ErrorIs(t, got.failure, ErrTokenExpired)
	require.EqualError(t, got.failure, "access token expired at 2026-03-04T23:59:10Z")
	require.False(t, got.hasID)
	require.Equal(t, 1, s.tokens.callCount(), "the cached entry, not its age, said so")
}

func TestTokenScopes(t *testing.T) {
	s, _ := cachedSetup(t)
	owner := s.owner
	owner.Scopes = []Scope{ScopeRead}
	s.tokens.byHash[HashToken(s.token)] = owner
	got := serve(t, s.auth, "Bearer "+s.token)
	require.Equal(t, []Scope{ScopeRead}, got.id.Scopes)
	require.True(t, got.id.HasScope(ScopeRead))
	require.False(t, got.id.HasScope(ScopeWrite))

	legacy := newTestSetup(t) // the fake's owner has no scopes: a token written before scopes
	require.Equal(t, AllScopes, serve(t, legacy.auth, "Bearer "+legacy.token).id.Scopes)
	require.Equal(t, AllScopes, serve(t, legacy.auth, "tma "+signed(nil)).id.Scopes)
	require.Equal(t, []Scope{ScopeRead, ScopeWrite}, ScopesOf(nil))
	require.Equal(t, []Scope{ScopeWrite}, ScopesOf([]string{"WRITE"}))
}

// lastUsedAt is written once per token and day, cache or no cache.
func TestTokenLastUsedAtIsWrittenOncePerDay(t *testing.T) {
	for _, ttl := range []time.Duration{30 * time.Second, 0} {
		t.Run(ttl.String(), func(t *testing.T) {
			s, clock := cachedSetup(t)
			s.auth.TokenCacheTTL = ttl
			hash := HashToken(s.token)
			for range 3 {
				require.NoError(t, serve(t, s.auth, "Bearer "+s.token).failure)
			}
			require.Equal(t, []string{hash + " 2026-03-04"}, s.tokens.touches)
			clock.Add(2 * time.Minute) // past midnight UTC
			for range 3 {
				require.NoError(t, serve(t, s.auth, "Bearer "+s.token).failure)
			}
			require.Equal(t, []string{hash + " 2026-03-04", hash + " 2026-03-05"}, s.tokens.touches)
			require.Equal(t, "2026-03-05", s.tokens.lastUsed[hash])
		})
	}
}

func TestTokenCacheIsBounded(t *testing.T) {
	s, clock := cachedSetup(t)
	s.auth.TokenCacheSize = 2
	for range 5 {
		tok, err := NewToken()
		require.NoError(t, err)
		require.ErrorIs(t, serve(t, s.auth, "Bearer "+tok).failure, ErrTokenUnknown)
		require.LessOrEqual(t, s.auth.tokens.len(), 2)
	}
	clock.Add(time.Minute)
	require.NoError(t, serve(t, s.auth, "Bearer "+s.token).failure)
	require.Equal(t, 1, s.auth.tokens.len(), "stale entries go first")
}

func TestTokenCacheCanBeOff(t *testing.T) {
	s, _ := cachedSetup(t)
	s.auth.TokenCacheTTL = 0
	for range 2 {
		require.NoError(t, serve(t, s.auth, "Bearer "+s.token).failure)
	}
	require.Equal(t, 2, s.tokens.callCount())
	require.Zero(t, s.auth.tokens.len())
}

// A live connection's recheck answers as Authenticate does, for a token
// hashed once: good, expired, revoked, malformed; init data as ever.
func TestRecheckAnswersAsAuthenticate(t *testing.T) {
	s, clock := cachedSetup(t)
	owner := s.owner
	owner.ExpiresAt = clock.Now().Add(time.Minute)
	s.tokens.byHash[HashToken(s.token)] = owner
	check := s.auth.Recheck("Bearer " + s.token)
	require.NoError(t, check(t.Context()))
	require.NoError(t, check(t.Context()))
	require.Equal(t, 1, s.tokens.callCount(), "the cache answers the second")

	clock.Add(time.Minute)
	require.ErrorIs(t, check(t.Context()), ErrTokenExpired)
	_, err := s.auth.Authenticate(t.Context(), "Bearer "+s.token)
	require.Equal(t, err, check(t.Context()))

	delete(s.tokens.byHash, HashToken(s.token))
	s.auth.ForgetToken(HashToken(s.token))
	require.ErrorIs(t, check(t.Context()), ErrTokenUnknown, "revoked here")

	require.Error(t, s.auth.Recheck("Bearer not-a-token")(t.Context()))
	_, err = s.auth.Authenticate(t.Context(), "Basic abc")
	require.Equal(t, err, s.auth.Recheck("Basic abc")(t.Context()))
	require.NoError(t, s.auth.Recheck("")(t.Context()))
}
