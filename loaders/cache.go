package loaders

import (
	"context"
	"sync"

	"github.com/graph-gophers/dataloader/v7"
)

// cache is a request's dataloader cache that can also drop every entry
// whose key matches, which dataloader's own cache cannot: a write clears
// all that belongs to its group, whatever key each entry was loaded under.
type cache[K comparable, V any] struct {
	mu      sync.Mutex // dataloader locks around Get and Set, but not around Prime
	entries map[K]dataloader.Thunk[V]
}

func newCache[K comparable, V any]() *cache[K, V] {
	return &cache[K, V]{entries: map[K]dataloader.Thunk[V]{}}
}

// Get implements dataloader.Cache.
func (c *cache[K, V]) Get(_ context.Context, key K) (dataloader.Thunk[V], bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.entries[key]
	return t, ok
}

// Set implements dataloader.Cache.
func (c *cache[K, V]) Set(_ context.Context, key K, t dataloader.Thunk[V]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[key] = t
}

// Delete implements dataloader.Cache.
func (c *cache[K, V]) Delete(_ context.Context, key K) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.entries[key]
	delete(c.entries, key)
	return ok
}

// Clear implements dataloader.Cache.
func (c *cache[K, V]) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.entries)
}

// deleteFunc drops every entry whose key matches.
func (c *cache[K, V]) deleteFunc(match func(K) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.entries {
		if match(k) {
			delete(c.entries, k)
		}
	}
}
