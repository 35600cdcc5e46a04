// Package memo keeps computed answers by key for the site: bounded in entries (names
// typed into addresses must not grow it forever), optionally for a time, safe for
// concurrent use. When full it forgets an arbitrary half: a bound on memory, not an
// LRU, which is enough where an answer asked for often is soon back.
package memo

import (
	"sync"
	"time"
)

// Cache keeps up to max answers of type V, each for ttl (0: until forgotten).
type Cache[V any] struct {
	max int
	ttl time.Duration
	mu  sync.Mutex
	m   map[string]entry[V]
}

type entry[V any] struct {
	v  V
	at time.Time
}

// New makes a cache of at most max answers, each kept for ttl (0: no time limit).
func New[V any](max int, ttl time.Duration) *Cache[V] {
	return &Cache[V]{max: max, ttl: ttl, m: map[string]entry[V]{}}
}

// Get is key's kept answer, or compute's. compute says whether its answer is one to
// keep (an answer about the key, not what became of one request); Get's bool is that,
// or true for a kept answer.
func (c *Cache[V]) Get(key string, compute func() (V, bool)) (V, bool) {
	c.mu.Lock()
	if e, ok := c.m[key]; ok && (c.ttl == 0 || time.Since(e.at) < c.ttl) {
		c.mu.Unlock()
		return e.v, true
	}
	c.mu.Unlock()
	v, keep := compute()
	if !keep {
		return v, false
	}
	c.mu.Lock()
	if len(c.m) >= c.max {
		for k := range c.m {
			delete(c.m, k)
			if len(c.m) < c.max/2 {
				break
			}
		}
	}
	c.m[key] = entry[V]{v: v, at: time.Now()}
	c.mu.Unlock()
	return v, true
}

// GetErr is Get for a compute that can fail: only answers without an error are kept.
func (c *Cache[V]) GetErr(key string, compute func() (V, error)) (V, error) {
	var err error
	v, _ := c.Get(key, func() (V, bool) {
		var v V
		v, err = compute()
		return v, err == nil
	})
	return v, err
}

// Forget drops every kept answer.
func (c *Cache[V]) Forget() {
	c.mu.Lock()
	clear(c.m)
	c.mu.Unlock()
}
