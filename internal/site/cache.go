package site

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/site/store"
)

// bestCache keeps the best-per-group answers of recent chart queries for FacetTTL, as
// the filter values are kept: the bars of a GPU with 10,000 runs read each of them,
// and the same page is asked for again and again. Storing a run on this instance
// forgets them at once; another instance's runs show within FacetTTL.
type bestCache struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[string]bestEntry
	// cells are the picker's counts of filtered runs (store.MetricCellsOf), kept alike:
	// with a filter they count the matching runs' values.
	cells map[string]cellsEntry
}

type cellsEntry struct {
	at    time.Time
	cells []store.MetricCell
}

type bestEntry struct {
	at   time.Time
	best []store.GroupBest
}

const maxBestEntries = 2000

func newBestCache(ttl time.Duration) *bestCache {
	return &bestCache{ttl: ttl, m: map[string]bestEntry{}, cells: map[string]cellsEntry{}}
}

func (c *bestCache) forget() {
	c.mu.Lock()
	c.m = map[string]bestEntry{}
	c.cells = map[string]cellsEntry{}
	c.mu.Unlock()
}

// metricCellsOf is store.MetricCellsOf through the cache.
func (s *Server) metricCellsOf(ctx context.Context, metric string, q store.Query) ([]store.MetricCell, error) {
	q.Sort, q.Limit, q.Offset = "", 0, 0
	key := fmt.Sprintf("%s|%+v", metric, q)
	c := s.best
	c.mu.Lock()
	if e, ok := c.cells[key]; ok && time.Since(e.at) < c.ttl {
		c.mu.Unlock()
		return e.cells, nil
	}
	c.mu.Unlock()
	cells, err := s.store.MetricCellsOf(ctx, metric, q)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.cells) >= maxBestEntries {
		c.cells = map[string]cellsEntry{}
	}
	c.cells[key] = cellsEntry{at: time.Now(), cells: cells}
	c.mu.Unlock()
	return cells, nil
}

// bestByGroup is store.BestByGroup through the cache.
func (s *Server) bestByGroup(ctx context.Context, q store.CellQuery, by string, limit int) ([]store.GroupBest, error) {
	key := fmt.Sprintf("%+v|%s|%d", q, by, limit)
	c := s.best
	c.mu.Lock()
	if e, ok := c.m[key]; ok && time.Since(e.at) < c.ttl {
		c.mu.Unlock()
		return e.best, nil
	}
	c.mu.Unlock()
	best, err := s.store.BestByGroup(ctx, q, by, limit)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.m) >= maxBestEntries {
		c.m = map[string]bestEntry{}
	}
	c.m[key] = bestEntry{at: time.Now(), best: best}
	c.mu.Unlock()
	return best, nil
}
