package site

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

// metricCellsOf is store.MetricCellsOf through the cache.
func (s *Server) metricCellsOf(ctx context.Context, metric string, q store.Query) ([]store.MetricCell, error) {
	q.Sort, q.Limit, q.Offset = "", 0, 0
	return s.best.cells.GetErr(fmt.Sprintf("%s|%+v", metric, q), func() ([]store.MetricCell, error) {
		return s.store.MetricCellsOf(ctx, metric, q)
	})
}

// bestByGroup is store.BestByGroup through the cache.
func (s *Server) bestByGroup(ctx context.Context, q store.CellQuery, by string, limit int) ([]store.GroupBest, error) {
	return s.best.best.GetErr(fmt.Sprintf("%+v|%s|%d", q, by, limit), func() ([]store.GroupBest, error) {
		return s.store.BestByGroup(ctx, q, by, limit)
	})
}
