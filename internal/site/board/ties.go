package board

import (
	"context"

	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/stats"
)

// Mark is what ranking adds to an entry: its interval and whether it ties with
// the entry above. Runs and Spread describe a grouped entry (several submissions of
// one setup): how many runs it stands for and the range of their values.
type Mark struct {
	CI     *stats.Interval
	Tied   bool
	Runs   int
	Spread *stats.Interval
	RunIDs []string
}

// boundOf is the interval of run id's value at the ranked cell.
func boundOf(b map[string]runBounds, id string, cell Cell) *stats.Interval {
	cq := cell.Store(store.Query{})
	iv, ok := b[id].ci[boundKey{cell.Metric.Name, cq.Context, cq.Level, cq.Cond}]
	if !ok {
		return nil
	}
	return &iv
}

// markTies gives every ranked run its interval and tie with the run above; prev is
// the run ranked just above the page (nil on the first page).
func (b *Board) markTies(ctx context.Context, cell Cell, ranked []store.RankedRun, prev *store.RankedRun) []Mark {
	ids := make([]string, 0, len(ranked)+1)
	for _, r := range ranked {
		ids = append(ids, r.ID)
	}
	if prev != nil {
		ids = append(ids, prev.ID)
	}
	bs := b.bounds(ctx, ids)
	marks := make([]Mark, len(ranked))
	var above *stats.Interval
	if prev != nil {
		above = boundOf(bs, prev.ID, cell)
	}
	for i, r := range ranked {
		marks[i].CI = boundOf(bs, r.ID, cell)
		marks[i].Tied = Tied(above, marks[i].CI)
		above = marks[i].CI
	}
	return marks
}

// Tied says two entries' intervals overlap; an entry without one ties with nothing.
func Tied(above, this *stats.Interval) bool {
	return above != nil && this != nil && above.Overlaps(*this)
}

// runAbove is the run ranked just above the page at q's offset, nil on the first page.
func (b *Board) runAbove(ctx context.Context, cell Cell, q store.Query) *store.RankedRun {
	if q.Offset <= 0 {
		return nil
	}
	q.Offset, q.Limit = q.Offset-1, 1
	rows, err := b.store.RankByCell(ctx, cell.Store(q))
	if err != nil || len(rows) == 0 {
		if err != nil {
			b.log.Warn("reading the run above the page", "err", err)
		}
		return nil
	}
	return &rows[0]
}

// Rank ranks one page, every run or one entry per setup (grouped: ?group=setup),
// with each entry's interval and tie, and the offset of the next page (-1 on the
// last).
func (b *Board) Rank(ctx context.Context, cell Cell, q store.Query, grouped bool) ([]store.RankedRun, []Mark, int, error) {
	if grouped {
		return b.rankGrouped(ctx, cell, q)
	}
	ranked, next, err := b.rankPage(ctx, cell, q)
	if err != nil {
		return nil, nil, -1, err
	}
	return ranked, b.markTies(ctx, cell, ranked, b.runAbove(ctx, cell, q)), next, nil
}

// rankPage ranks one page of runs by the cell and returns the offset of the next page
// (-1 on the last).
func (b *Board) rankPage(ctx context.Context, cell Cell, q store.Query) ([]store.RankedRun, int, error) {
	want := q.Limit
	q.Limit++
	rows, err := b.store.RankByCell(ctx, cell.Store(q))
	if err != nil {
		return nil, -1, err
	}
	if len(rows) > want {
		return rows[:want], q.Offset + want, nil
	}
	return rows, -1, nil
}
