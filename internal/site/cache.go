package site

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/site/store"
)

// ttlCache keeps recent answers of one store query for ttl, as the filter values are
// kept: the bars of a GPU with 10,000 runs read each of them, and the same page is
// asked for again and again. Storing a run on this instance forgets them at once;
// another instance's runs show within the TTL. At most maxCacheEntries are kept (past
// that it starts afresh).
type ttlCache[V any] struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[string]cacheEntry[V]
}

type cacheEntry[V any] struct {
	at time.Time
	v  V
}

const maxCacheEntries = 2000

func newTTLCache[V any](ttl time.Duration) *ttlCache[V] {
	return &ttlCache[V]{ttl: ttl, m: map[string]cacheEntry[V]{}}
}

// get is the cached answer for key, or compute's, kept when it succeeds.
func (c *ttlCache[V]) get(key string, compute func() (V, error)) (V, error) {
	c.mu.Lock()
	if e, ok := c.m[key]; ok && time.Since(e.at) < c.ttl {
		c.mu.Unlock()
		return e.v, nil
	}
	c.mu.Unlock()
	v, err := compute()
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	if len(c.m) >= maxCacheEntries {
		c.m = map[string]cacheEntry[V]{}
	}
	c.m[key] = cacheEntry[V]{at: time.Now(), v: v}
	c.mu.Unlock()
	return v, nil
}

func (c *ttlCache[V]) forget() {
	c.mu.Lock()
	c.m = map[string]cacheEntry[V]{}
	c.mu.Unlock()
}

// bestCache holds the chart queries' best-per-group answers and the picker's counts
// of filtered runs (store.MetricCellsOf: with a filter they count the matching runs'
// values).
type bestCache struct {
	best  *ttlCache[[]store.GroupBest]
	cells *ttlCache[[]store.MetricCell]
}

func newBestCache(ttl time.Duration) *bestCache {
	return &bestCache{best: newTTLCache[[]store.GroupBest](ttl), cells: newTTLCache[[]store.MetricCell](ttl)}
}

func (c *bestCache) forget() {
	c.best.forget()
	c.cells.forget()
}

// metricCellsOf is store.MetricCellsOf through the cache.
func (s *Server) metricCellsOf(ctx context.Context, metric string, q store.Query) ([]store.MetricCell, error) {
	q.Sort, q.Limit, q.Offset = "", 0, 0
	return s.best.cells.get(fmt.Sprintf("%s|%+v", metric, q), func() ([]store.MetricCell, error) {
		return s.store.MetricCellsOf(ctx, metric, q)
	})
}

// bestByGroup is store.BestByGroup through the cache.
func (s *Server) bestByGroup(ctx context.Context, q store.CellQuery, by string, limit int) ([]store.GroupBest, error) {
	return s.best.best.get(fmt.Sprintf("%+v|%s|%d", q, by, limit), func() ([]store.GroupBest, error) {
		return s.store.BestByGroup(ctx, q, by, limit)
	})
}
