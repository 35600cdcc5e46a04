package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/site/metric"
)

// The best run of each group. cell_best (migration 00010) keeps, per cell of a metric
// and per kind, model, GPU and family, how many runs have the cell and the best of
// them: the lowest rank_key, ties by run id, the order every ranking uses. The charts
// of the best run per GPU or per model (BestByGroup) on a model's, a family's or a
// GPU's pages read a few hundred of its rows; reading the runs instead meant every run
// of the family with the cell (16,700 at 1,000,000 runs). Runs are never deleted, so
// a stored run can only lower a row's best: counting a run keeps the better of the
// two, compared in SQL, so that ties by id follow the database's collation as the
// rankings' ORDER BY does.

// bestKey is one row of cell_best.
type bestKey struct {
	metric, cond       string
	context            int
	level              float64
	kind               string
	model, gpu, family string
}

// bestCount is what some runs add to one row of cell_best: their number and the runs
// with the lowest rank key among them (several only when their keys tie).
type bestCount struct {
	runs  int
	cands []bestCand
}

type bestCand struct {
	rankKey, value float64
	runID          string
}

// addBest counts a run's cells into c.best.
func (c *runCounts) addBest(rec RunRecord, cells []metric.CellValue) {
	if c.best == nil {
		c.best = map[bestKey]*bestCount{}
	}
	for _, v := range cells {
		m, ok := metric.MetricByName(v.Metric)
		if !ok {
			continue
		}
		k := bestKey{v.Metric, v.Cond, v.Context, v.Level, rec.Kind, rec.Model, rec.GPU, rec.Family}
		b := c.best[k]
		if b == nil {
			b = &bestCount{}
			c.best[k] = b
		}
		b.runs++
		cand := bestCand{m.RankKey(v.Value), v.Value, rec.ID}
		switch {
		case len(b.cands) == 0 || cand.rankKey < b.cands[0].rankKey:
			b.cands = []bestCand{cand}
		case cand.rankKey == b.cands[0].rankKey:
			b.cands = append(b.cands, cand)
		}
	}
}

// bestRows are cell_best's columns, for bulkInsert.
var bestRows = bulkTable{"cell_best", []bulkColumn{{"metric", colText}, {"cond", colText}, {"context", colInt},
	{"level", colFloat}, {"kind", colText}, {"model", colText}, {"gpu", colText}, {"family", colText}, {"runs", colInt},
	{"rank_key", colFloat}, {"value", colFloat}, {"run_id", colText}}}

// bestUpsert adds a row's count and keeps the better of its best and the new one.
// (SET reads the row as it was, in both databases.)
const bestUpsert = `ON CONFLICT (metric, cond, context, level, model, gpu, family, kind) DO UPDATE SET
	runs = cell_best.runs + excluded.runs,
	rank_key = CASE WHEN ` + bestBetter + ` THEN excluded.rank_key ELSE cell_best.rank_key END,
	value = CASE WHEN ` + bestBetter + ` THEN excluded.value ELSE cell_best.value END,
	run_id = CASE WHEN ` + bestBetter + ` THEN excluded.run_id ELSE cell_best.run_id END`

const bestBetter = `(excluded.rank_key < cell_best.rank_key OR excluded.rank_key = cell_best.rank_key AND excluded.run_id < cell_best.run_id)`

// addBests writes c.best, its rows in the order of their key (as addCounts does). A
// row whose runs tie for the lowest key gets the others in later statements, adding
// no runs, so that the database's comparison of ids picks among them.
func (s *Store) addBests(ctx context.Context, tx *sql.Tx, c *runCounts) error {
	keys := slices.SortedFunc(maps.Keys(c.best), func(a, b bestKey) int {
		return cmp.Or(cmp.Compare(a.metric, b.metric), cmp.Compare(a.cond, b.cond), cmp.Compare(a.context, b.context),
			cmp.Compare(a.level, b.level), cmp.Compare(a.model, b.model), cmp.Compare(a.gpu, b.gpu), cmp.Compare(a.family, b.family),
			cmp.Compare(a.kind, b.kind))
	})
	for round := 0; len(keys) > 0; round++ {
		err := s.bulkInsert(ctx, tx, bestRows, len(keys), func(i int) []any {
			k, b := keys[i], c.best[keys[i]]
			runs := 0
			if round == 0 {
				runs = b.runs
			}
			cand := b.cands[round]
			return []any{k.metric, k.cond, k.context, k.level, k.kind, k.model, k.gpu, k.family, runs, cand.rankKey, cand.value, cand.runID}
		}, bestUpsert)
		if err != nil {
			return fmt.Errorf("keeping the best run per cell: %w", err)
		}
		keys = slices.DeleteFunc(keys, func(k bestKey) bool { return len(c.best[k].cands) <= round+1 })
	}
	return nil
}

// bestStatements rebuild cell_best from the runs of src (allRuns or countedRuns).
func bestStatements(src string) []string {
	const key = "m.metric, m.cond, m.context, m.level, r.kind, r.model, r.gpu, r.family"
	return []string{`DELETE FROM cell_best`,
		`INSERT INTO cell_best (metric, cond, context, level, kind, model, gpu, family, runs, rank_key, value, run_id)
		SELECT metric, cond, context, level, kind, model, gpu, family, n, rank_key, value, run_id FROM (
			SELECT ` + key + `, m.rank_key, m.value, m.run_id,
				ROW_NUMBER() OVER (PARTITION BY ` + key + ` ORDER BY m.rank_key, m.run_id) AS rn,
				COUNT(*) OVER (PARTITION BY ` + key + `) AS n
			FROM run_metrics m JOIN (SELECT id, kind, model, gpu, family FROM ` + src + `) r ON r.id = m.run_id
		) t WHERE rn = 1`}
}

// fillBest builds cell_best when runs were stored before it existed.
func (s *Store) fillBest(ctx context.Context) error {
	return s.fillCounts(ctx, "cell_best", "the best run per cell", bestStatements(countedRuns))
}

// bestCounted says whether cell_best answers BestByGroup for q: its filters are a
// model, a GPU or a family (any of them) and kinds, which are cell_best's columns.
func (q Query) bestCounted() bool {
	if q.sized() || q.Accuracy.On {
		return false
	}
	for _, f := range q.filters() {
		if f.col != "model" && f.col != "gpu" && f.col != "family" {
			return false
		}
	}
	return true
}

// bestFromCounts is BestByGroup read from cell_best (q spelled, by checked).
func (s *Store) bestFromCounts(ctx context.Context, q CellQuery, by string, limit int) ([]GroupBest, error) {
	conds := []string{"metric = ?", "cond = ?", "context = ?", "level = ?"}
	args := []any{q.Metric, q.Cond, q.Context, q.Level}
	for _, f := range q.filters() {
		c, a := in(f.col, f.values)
		conds, args = append(conds, c), append(args, a...)
	}
	if len(q.Kinds) > 0 {
		c, a := in("kind", q.Kinds)
		conds, args = append(conds, c), append(args, a...)
	}
	query := `SELECT name, value, run_id, n FROM (
		SELECT ` + by + ` AS name, value, run_id, rank_key,
			ROW_NUMBER() OVER (PARTITION BY ` + by + ` ORDER BY rank_key, run_id) AS rn,
			SUM(runs) OVER (PARTITION BY ` + by + `) AS n
		FROM cell_best WHERE ` + strings.Join(conds, " AND ") + `
	) t WHERE rn = 1 ORDER BY rank_key, name LIMIT ?`
	out, err := queryRows(ctx, s.db, s.rebind(query), append(args, limit), scanGroupBest)
	if err != nil {
		return nil, fmt.Errorf("best by %s: %w", by, err)
	}
	return out, nil
}

func scanGroupBest(sc scanner) (GroupBest, error) {
	var g GroupBest
	err := sc.Scan(&g.Name, &g.Value, &g.RunID, &g.Runs)
	return g, err
}
