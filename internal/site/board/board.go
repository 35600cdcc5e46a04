// Package board is the leaderboard's ranking, apart from any page: the cell a
// ranking is by (Cell, read from a query, with an open-loop cell's conditions), the
// filters it shares with the run lists (Filters), each entry's 95% interval read from
// its run document and its tie with the entry above, one entry per setup, and the
// store's answers the board asks again and again (filter menus, the picker's counts,
// the best per group) kept for a while. The leaderboard page, the group pages and GET
// /api/v1/leaderboard show what it ranks.
package board

import (
	"log/slog"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/memo"
	"github.com/llmbench/llmbench/internal/site/store"
)

// Board ranks the runs of one store.
type Board struct {
	store *store.Store
	log   *slog.Logger
	// facetTTL is how long the filter values (and best answers) are kept.
	facetTTL    time.Duration
	best        *bestCache
	boundsCache *memo.Cache[runBounds] // the runs' intervals (bounds.go)

	facetsMu sync.Mutex
	facets   store.Facets
	facetsAt time.Time
}

// New is the board of st; what it counts it keeps for facetTTL.
func New(st *store.Store, log *slog.Logger, facetTTL time.Duration) *Board {
	return &Board{store: st, log: log, facetTTL: facetTTL, best: newBestCache(facetTTL), boundsCache: memo.New[runBounds](20000, 0)}
}
