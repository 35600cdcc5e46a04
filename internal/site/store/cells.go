package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/llmbench/llmbench/internal/site/metric"
)

// putCells writes a run's metric values, in the transaction that stores it, and
// returns them as written. A run has at most one value per metric and cell: the first
// (a rate run that measured one rate twice keeps the first measurement). They are
// counted later (counting.go).
func (s *Store) putCells(ctx context.Context, tx *sql.Tx, runID string, cells []metric.CellValue) ([]metric.CellValue, error) {
	type key struct {
		metric  string
		context int
		level   float64
	}
	seen := map[key]bool{}
	var rows []metric.CellValue
	for _, c := range cells {
		k := key{c.Metric, c.Context, c.Level}
		if _, ok := metric.MetricByName(c.Metric); ok && !seen[k] {
			seen[k] = true
			c.Value = canonical(c.Value)
			rows = append(rows, c)
		}
	}
	err := s.bulkInsert(ctx, tx, metricRows, len(rows), func(i int) []any {
		c := rows[i]
		m, _ := metric.MetricByName(c.Metric)
		return []any{runID, c.Metric, c.Cond, c.Context, c.Level, c.Value, m.RankKey(c.Value)}
	}, "")
	if err != nil {
		return nil, fmt.Errorf("storing the run's cells: %w", err)
	}
	return rows, nil
}

// metricRows are run_metrics' columns, for bulkInsert.
var metricRows = bulkTable{"run_metrics", []bulkColumn{{"run_id", colText}, {"metric", colText}, {"cond", colText},
	{"context", colInt}, {"level", colFloat}, {"value", colFloat}, {"rank_key", colFloat}}}

// canonical stores -0 as 0, so that a value and its rank key compare alike in both
// databases.
func canonical(v float64) float64 {
	if v == 0 {
		return 0
	}
	return v
}

// CellQuery ranks runs by one cell of one metric, with Query's filters and paging
// (its Sort is ignored). Cond names the conditions of a metric measured under some
// (RateCond.Key); only values measured under exactly these rank.
type CellQuery struct {
	Query
	Metric  string
	Context int
	Level   float64
	Cond    string
}

// RankedRun is a run with the value it is ranked by.
type RankedRun struct {
	RunRecord
	Value float64
}

// RankByCell lists the runs that have the query's cell, best value first (ties by id).
func (s *Store) RankByCell(ctx context.Context, q CellQuery) ([]RankedRun, error) {
	if _, ok := metric.MetricByName(q.Metric); !ok {
		return nil, fmt.Errorf("ranking runs: unknown metric %q", q.Metric)
	}
	var err error
	if q.Query, err = s.spelled(ctx, q.Query); err != nil {
		return nil, fmt.Errorf("ranking runs: %w", err)
	}
	if q.Limit <= 0 {
		q.Limit = 50
	}
	q.Limit = min(q.Limit, 500)
	q.Offset = max(q.Offset, 0)
	q.Sort = ""
	lead, empty, ok, err := s.cellLead(ctx, q)
	if err == nil && !ok {
		lead, empty, err = s.leadFilterFor(ctx, q.Query, true)
	}
	if err != nil {
		return nil, fmt.Errorf("ranking runs: %w", err)
	}
	if empty {
		return nil, nil
	}
	from, where, args := s.cellJoin(q, lead)
	order := " ORDER BY m.rank_key, m.run_id"
	if lead != "" {
		order = " ORDER BY " + s.noIndexOrder("m.rank_key") + ", m.run_id"
	}
	out, err := queryRows(ctx, s.db, s.rebind(`SELECT `+prefixed("r.", runColumns)+`, m.value`+from+where+order+` LIMIT ? OFFSET ?`),
		append(args, q.Limit, q.Offset), func(sc scanner) (RankedRun, error) {
			var rr RankedRun
			var err error
			rr.RunRecord, err = scanRunWith(sc, &rr.Value)
			return rr, err
		})
	if err != nil {
		return nil, fmt.Errorf("ranking runs: %w", err)
	}
	return out, nil
}

// cellJoin is the FROM and WHERE of a query over the runs q selects joined to their
// value of q's cell. With no lead it walks the cell's stretch of run_metrics_rank in
// order and looks each run up; with a lead (a narrow filter) it starts from that
// filter's runs and looks up each one's value. SQLite keeps the left table of a CROSS
// JOIN outermost, so the order is written out; PostgreSQL's planner, which has
// per-value statistics, is left to choose.
func (s *Store) cellJoin(q CellQuery, lead string) (from, where string, args []any) {
	hint := lead
	if lead == "" && s.dialect == Postgres {
		hint = anyIndex
	}
	conds, fargs := s.conditions(q.Query, hint)
	cell := "m.metric = ? AND m.cond = ? AND m.context = ? AND m.level = ?"
	cellArgs := []any{q.Metric, q.Cond, q.Context, q.Level}
	join := "JOIN"
	if s.dialect == SQLite {
		join = "CROSS JOIN"
	}
	if lead == "" {
		runs := " runs r"
		if s.dialect == SQLite {
			// The walk checks each run's filters: runs_walk holds the common ones, so
			// a run they leave out costs one index seek and no table row.
			runs += " INDEXED BY runs_walk"
		}
		from = " FROM run_metrics m " + join + runs + " ON r.id = m.run_id"
		conds = append([]string{cell}, conds...)
	} else {
		from = " FROM runs r " + join + " run_metrics m ON m.run_id = r.id AND " + cell
	}
	if len(conds) > 0 {
		where = " WHERE " + strings.Join(conds, " AND ")
	}
	return from, where, append(cellArgs, fargs...)
}

// MetricCell is a cell of a metric, under its conditions, with the number of runs
// that have it.
type MetricCell struct {
	Context int     `json:"context"`
	Level   float64 `json:"level"`
	Cond    string  `json:"cond,omitempty"`
	Runs    int     `json:"runs"`
}

// MetricCells lists the cells some run has a value of metric for, by conditions,
// context and level, counting every run.
func (s *Store) MetricCells(ctx context.Context, metric string) ([]MetricCell, error) {
	return s.MetricCellsOf(ctx, metric, Query{})
}

// MetricCellsOf is MetricCells counting only the runs q selects (its filters and
// kinds; its sorting and paging are ignored), so that a picker's counts are the runs
// the ranking beside it would rank. Kinds with no filter or one that run_groups counts
// by (a model, GPU, engine, quantization, profile, family or mode) are read from
// metric_cells' counts; other filters count the matching runs' values, starting from
// the narrowest filter.
func (s *Store) MetricCellsOf(ctx context.Context, metric string, q Query) ([]MetricCell, error) {
	q.Sort, q.Limit, q.Offset = "", 0, 0
	var err error
	if q, err = s.spelled(ctx, q); err != nil {
		return nil, fmt.Errorf("listing the cells of %s: %w", metric, err)
	}
	var query string
	var args []any
	fs := q.filters()
	if q.SizeMin == 0 && q.SizeMax == 0 && !q.Accuracy.On && (len(fs) == 0 || len(fs) == 1 && fs[0].dim != "") {
		dim, names := "", []string{""}
		if len(fs) == 1 {
			dim, names = fs[0].dim, fs[0].values
		}
		c, a := in("name", names)
		query = `SELECT context, level, cond, SUM(runs) FROM metric_cells WHERE metric = ? AND dim = ? AND ` + c
		args = append([]any{metric, dim}, a...)
		if len(q.Kinds) > 0 {
			query += ` AND kind IN (?` + strings.Repeat(", ?", len(q.Kinds)-1) + `)`
			for _, k := range q.Kinds {
				args = append(args, k)
			}
		}
		query += ` GROUP BY cond, context, level HAVING SUM(runs) > 0 ORDER BY cond, context, level`
	} else {
		lead, empty, lerr := s.leadFilterFor(ctx, q, true)
		if lerr != nil {
			return nil, fmt.Errorf("listing the cells of %s: %w", metric, lerr)
		}
		if empty {
			return nil, nil
		}
		if lead == "" {
			lead = anyIndex
		}
		var conds []string
		conds, args = s.conditions(q, lead)
		join := "JOIN"
		if s.dialect == SQLite {
			join = "CROSS JOIN" // from the filtered runs to their values, in that order
		}
		query = `SELECT m.context, m.level, m.cond, COUNT(*) FROM runs r ` + join + ` run_metrics m ON m.run_id = r.id AND m.metric = ?` +
			` WHERE ` + strings.Join(conds, " AND ") + ` GROUP BY m.cond, m.context, m.level ORDER BY m.cond, m.context, m.level`
		args = append([]any{metric}, args...)
	}
	out, err := queryRows(ctx, s.db, s.rebind(query), args, func(sc scanner) (MetricCell, error) {
		var c MetricCell
		err := sc.Scan(&c.Context, &c.Level, &c.Cond, &c.Runs)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing the cells of %s: %w", metric, err)
	}
	return out, nil
}

// CellValues returns the values of the given metrics of each run (every context and
// level), keyed by run id: the leaderboard's rows at a glance, the trade-off charts.
func (s *Store) CellValues(ctx context.Context, runIDs []string, metrics ...string) (map[string][]metric.CellValue, error) {
	out := map[string][]metric.CellValue{}
	if len(runIDs) == 0 || len(metrics) == 0 {
		return out, nil
	}
	var args []any
	for _, id := range runIDs {
		args = append(args, id)
	}
	for _, m := range metrics {
		args = append(args, m)
	}
	q := `SELECT ` + runValueColumns + ` FROM run_metrics WHERE run_id IN (?` + strings.Repeat(", ?", len(runIDs)-1) +
		`) AND metric IN (?` + strings.Repeat(", ?", len(metrics)-1) + `) ORDER BY run_id, metric, cond, context, level`
	vals, err := queryRows(ctx, s.db, s.rebind(q), args, scanRunValue)
	if err != nil {
		return nil, fmt.Errorf("reading cell values: %w", err)
	}
	for _, v := range vals {
		out[v.runID] = append(out[v.runID], v.CellValue)
	}
	return out, nil
}

// runValue is a row of run_metrics: a run's value of one metric's cell.
type runValue struct {
	runID string
	metric.CellValue
}

// runValueColumns are the run_metrics columns scanRunValue reads, in its order.
const runValueColumns = "run_id, metric, context, level, cond, value"

func scanRunValue(sc scanner) (runValue, error) {
	var v runValue
	err := sc.Scan(&v.runID, &v.Metric, &v.Context, &v.Level, &v.Cond, &v.Value)
	return v, err
}

// GroupBest is the best value of a cell among the runs of one group (a GPU, a model).
type GroupBest struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	RunID string  `json:"run_id"`
	Runs  int     `json:"runs"` // how many of the group's runs have the cell
}

// BestByGroup returns, for each value of by ("gpu", "model" or "family") among the
// runs q selects, the best value of q's cell and the run that has it, best first; at
// most limit groups. A query whose filters cell_best holds (a model, GPU or family, and
// kinds) reads its rows (best.go); any other reads every run with the cell it selects.
func (s *Store) BestByGroup(ctx context.Context, q CellQuery, by string, limit int) ([]GroupBest, error) {
	switch by {
	case "gpu", "model", "family":
	default:
		return nil, fmt.Errorf("best by %q: not a column runs are grouped by", by)
	}
	if _, ok := metric.MetricByName(q.Metric); !ok {
		return nil, fmt.Errorf("best by %s: unknown metric %q", by, q.Metric)
	}
	var err error
	if q.Query, err = s.spelled(ctx, q.Query); err != nil {
		return nil, fmt.Errorf("best by %s: %w", by, err)
	}
	q.Sort = ""
	if q.bestCounted() {
		return s.bestFromCounts(ctx, q, by, limit)
	}
	return s.bestByScan(ctx, q, by, limit)
}

// bestByScan is BestByGroup reading every run with the cell that q (spelled) selects.
func (s *Store) bestByScan(ctx context.Context, q CellQuery, by string, limit int) ([]GroupBest, error) {
	// Every run with the cell is read, so a narrow filter's index is the way in
	// whenever there is one (a limit this large makes any walk as long as the table).
	all := q.Query
	all.Offset, all.Limit = 0, 1<<30
	lead, empty, err := s.leadFilterFor(ctx, all, true)
	if err != nil {
		return nil, fmt.Errorf("best by %s: %w", by, err)
	}
	if empty {
		return nil, nil
	}
	from, where, args := s.cellJoin(q, lead)
	query := `SELECT name, value, run_id, n FROM (
		SELECT r.` + by + ` AS name, m.value, m.run_id, m.rank_key,
			ROW_NUMBER() OVER (PARTITION BY r.` + by + ` ORDER BY m.rank_key, m.run_id) AS rn,
			COUNT(*) OVER (PARTITION BY r.` + by + `) AS n` + from + where + `
	) t WHERE rn = 1 ORDER BY rank_key, name LIMIT ?`
	out, err := queryRows(ctx, s.db, s.rebind(query), append(args, limit), scanGroupBest)
	if err != nil {
		return nil, fmt.Errorf("best by %s: %w", by, err)
	}
	return out, nil
}
