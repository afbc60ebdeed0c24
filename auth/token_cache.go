package auth

import (
	"sync"
	"time"
)

// DefaultTokenCacheSize bounds the token cache unless
// Authenticator.TokenCacheSize says otherwise.
const DefaultTokenCacheSize = 10_000

// tokenCache remembers token lookups by hash for a short time, found and
// unknown alike, so that a request seldom pays a database call for its
// credentials. Lookup failures (the store down) are never remembered.
type tokenCache struct {
	mu      sync.Mutex
	entries map[string]tokenEntry
}

// tokenEntry is one remembered lookup: the token, or that none has the hash.
type tokenEntry struct {
	info    TokenInfo
	unknown bool
	until   time.Time
}

// get returns the entry for hash unless it is missing or stale at now.
func (c *tokenCache) get(hash string, now time.Time) (tokenEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[hash]
	if !ok || !now.Before(e.until) {
		return tokenEntry{}, false
	}
	return e, true
}

// put remembers e for hash. When the cache is full it first drops stale
// entries, then, if still full, arbitrary ones: a dropped entry costs only
// one more lookup.
func (c *tokenCache) put(hash string, e tokenEntry, now time.Time, size int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = make(map[string]tokenEntry)
	}
	if _, ok := c.entries[hash]; !ok && len(c.entries) >= size {
		for h, old := range c.entries {
			if !now.Before(old.until) {
				delete(c.entries, h)
			}
		}
		for h := range c.entries {
			if len(c.entries) < size {
				break
			}
			delete(c.entries, h)
		}
	}
	c.entries[hash] = e
}

// usedOn records that the token's lastUsedAt is day, if it is still cached.
func (c *tokenCache) usedOn(hash, day string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[hash]; ok && !e.unknown {
		e.info.LastUsedAt = day
		c.entries[hash] = e
	}
}

// forget drops what is remembered of hash.
func (c *tokenCache) forget(hash string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, hash)
}

// len is how many entries the cache holds.
func (c *tokenCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
