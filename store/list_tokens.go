package store

import "context"

// MaxListedTokens bounds how many tokens ListUserTokens returns.
const MaxListedTokens = 1000

// attrTokenExpiresAt is the attribute a token's expiry is kept in.
const attrTokenExpiresAt = "expiresAt"

// tokenLive keeps the tokens that have not expired at :now (TTL deletion
// lags, so expired items may still be there).
var tokenLive = attrNotExists(attrTokenExpiresAt) + " OR " + attrTokenExpiresAt + " > :now"

// ListUserTokens returns the user's live access tokens, newest first: a
// GSI1 query of USER#<userId> / TOKEN#, which is eventually consistent, so a
// token created or revoked a moment ago may be missing or still listed.
func (s *Store) ListUserTokens(ctx context.Context, userID string) ([]Token, error) {
	return s.queryUserTokens(ctx, userID, "", MaxListedTokens)
}

// queryUserTokens reads up to n of the user's live tokens, newest first,
// with an extra filter ANDed to liveness when filter is not empty; values
// holds its placeholders.
func (s *Store) queryUserTokens(ctx context.Context, userID, filter string, n int, values ...string) ([]Token, error) {
	vals := prefixValues(userKey(userID), prefixToken)
	vals[":now"] = str(formatTime(s.stamp()))
	cond := "(" + tokenLive + ")"
	if filter != "" {
		cond += " AND " + filter
	}
	for i := 0; i+1 < len(values); i += 2 {
		vals[values[i]] = str(values[i+1])
	}
	items, err := s.collect(ctx, listQuery{
		list:    "user-tokens:" + userID,
		index:   indexGSI1,
		keyCond: gsi1PrefixCond,
		values:  vals,
		filter:  cond,
		keys:    gsi1Keys,
	}, nil, n)
	if err != nil {
		return nil, err
	}
	return decodeAll[tokenRecord](items, (*tokenRecord).token)
}
