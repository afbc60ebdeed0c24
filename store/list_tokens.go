package store

import "context"

// MaxListedTokens bounds how many tokens ListUserTokens returns.
const MaxListedTokens = 1000

// attrTokenExpiresAt is the attribute a token's expiry is kept in.
const attrTokenExpiresAt = "expiresAt"

// tokenLive keeps the tokens that have not expired at :now (TTL deletion
// lags, so expired items may still be there).
var tokenLive = attrNotExists(attrTokenExpiresAt) + " OR " + attrTokenExpiresAt + " > :now"

// ListUserTokens returns the user's live access tokens, newest first, at
// most MaxListedTokens: a GSI1 query of USER#<userId> / TOKEN#, which is
// eventually consistent, so a token created or revoked a moment ago may be
// missing or still listed.
func (s *Store) ListUserTokens(ctx context.Context, userID string) ([]Token, error) {
	vals := prefixValues(userKey(userID), prefixToken)
	vals[":now"] = str(formatTime(s.stamp()))
	items, err := s.collect(ctx, listQuery{
		list:    "user-tokens:" + userID,
		index:   indexGSI1,
		keyCond: gsi1PrefixCond,
		values:  vals,
		filter:  tokenLive,
		keys:    gsi1Keys,
	}, nil, MaxListedTokens)
	if err != nil {
		return nil, err
	}
	return decodeAll(items, (*tokenRecord).token)
}
