package board

import (
	"context"
	"fmt"
	"time"

	"github.com/llmbench/llmbench/internal/memo"
	"github.com/llmbench/llmbench/internal/site/store"
)

// bestCache holds the chart queries' best-per-group answers and the picker's counts
// of filtered runs (store.MetricCellsOf: with a filter they count the matching runs'
// values). They are kept for ttl, as the filter values are: the bars of a GPU with
// 10,000 runs read each of them, and the same page is asked for again and again.
// Storing a run on this instance forgets them at once; another instance's runs show
// within the TTL.
type bestCache struct {
	best  *memo.Cache[[]store.GroupBest]
	cells *memo.Cache[[]store.MetricCell]
}

// maxCacheEntries bounds each of the site's caches of store answers.
const maxCacheEntries = 2000

func newBestCache(ttl time.Duration) *bestCache {
	return &bestCache{best: memo.New[[]store.GroupBest](maxCacheEntries, ttl), cells: memo.New[[]store.MetricCell](maxCacheEntries, ttl)}
}

func (c *bestCache) forget() {
	c.best.Forget()
	c.cells.Forget()
}

// MetricCells is store.MetricCellsOf through the cache.
func (b *Board) MetricCells(ctx context.Context, metric string, q store.Query) ([]store.MetricCell, error) {
	q.Sort, q.Limit, q.Offset = "", 0, 0
	return b.best.cells.GetErr(fmt.Sprintf("%s|%+v", metric, q), func() ([]store.MetricCell, error) {
		return b.store.MetricCellsOf(ctx, metric, q)
	})
}

// BestByGroup is store.BestByGroup through the cache.
func (b *Board) BestByGroup(ctx context.Context, q store.CellQuery, by string, limit int) ([]store.GroupBest, error) {
	return b.best.best.GetErr(fmt.Sprintf("%+v|%s|%d", q, by, limit), func() ([]store.GroupBest, error) {
		return b.store.BestByGroup(ctx, q, by, limit)
	})
}

// Facets returns the leaderboard's filter values, recomputed at most every
// facetTTL (and at once after this instance stores a run): counting 100,000 rows on
// every page view would cost more than the page itself.
func (b *Board) Facets(ctx context.Context) (store.Facets, error) {
	b.facetsMu.Lock()
	defer b.facetsMu.Unlock()
	if !b.facetsAt.IsZero() && time.Since(b.facetsAt) < b.facetTTL {
		return b.facets, nil
	}
	f, err := b.store.Facets(ctx)
	if err != nil {
		return f, err
	}
	b.facets, b.facetsAt = f, time.Now()
	return f, nil
}

// Forget drops what the board keeps of the store's answers, so that a run this
// instance just stored shows at once.
func (b *Board) Forget() {
	b.facetsMu.Lock()
	b.facetsAt = time.Time{}
	b.facetsMu.Unlock()
	b.best.forget()
}
