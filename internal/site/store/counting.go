package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/site/metric"
)

// Counting stored runs. run_groups, metric_cells and run_pairs count the runs per value
// of each dimension, per cell and per pair of values, and every run adds 1 to rows that
// every other run adds to as well: its profile's, its mode's, each of its cells' in
// all. An updated row stays locked until its transaction ends, so while each run's own
// transaction added its counts, 16 submitters at once queued on those rows (32–42
// runs/s on PostgreSQL, issue 37). Now a run is stored in a transaction that touches no
// row another run touches, leaving its id in run_count_queue, and one transaction then
// adds the counts of every run stored meanwhile, summed, and deletes their ids from the
// queue. PutRun returns once its run is counted, so what its submitter reads next
// counts it. Every pass counts every queued run, and deleting a queued id is what
// claims its run for counting, so a run is counted once even when two instances reach
// it together, and a run whose pass failed (or was lost in a crash) is counted by the
// next pass, or at the next Open.

// countTimeout bounds one counting pass: submitters wait for it whatever their own
// requests' deadlines (it counts other submitters' runs too).
const countTimeout = time.Minute

// errCountFault is the failure FailNextCountForTesting asks for.
var errCountFault = errors.New("a counting pass failed, as asked by a test")

// idsPerStatement bounds the run ids one statement names.
const idsPerStatement = 500

// counter gathers the runs stored while a counting pass runs, for the next pass. The
// submitter of the first run to find no pass running runs it; when it is done it hands
// the next pass to the submitter of the first run that waits.
type counter struct {
	mu      sync.Mutex
	pending []*pendingRun
	busy    bool
}

// pendingRun is a stored run waiting for its counts.
type pendingRun struct {
	rec   RunRecord
	cells []metric.CellValue
	done  chan error    // the outcome of the pass that counted it (buffered)
	lead  chan struct{} // closed when its submitter is to run the next pass
}

// count adds a stored run to the counts, with the others stored at the same time.
func (s *Store) count(ctx context.Context, rec RunRecord, cells []metric.CellValue) error {
	p := &pendingRun{rec: rec, cells: cells, done: make(chan error, 1), lead: make(chan struct{})}
	c := &s.counts
	c.mu.Lock()
	c.pending = append(c.pending, p)
	lead := !c.busy
	c.busy = true
	c.mu.Unlock()
	if !lead {
		// No giving up on ctx here: a run's submitter may be the one to count the next
		// batch, and the pass is bounded by countTimeout.
		select {
		case err := <-p.done:
			return err
		case <-p.lead:
		}
	}
	c.mu.Lock()
	batch := c.pending
	c.pending = nil
	c.mu.Unlock()
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), countTimeout)
	err := s.countPass(pctx, batch)
	cancel()
	for _, q := range batch {
		q.done <- err
	}
	c.mu.Lock()
	if len(c.pending) > 0 {
		close(c.pending[0].lead)
	} else {
		c.busy = false
	}
	c.mu.Unlock()
	return <-p.done
}

// countQueued counts every run left in the queue (a crash between storing a run and
// counting it), for Open.
func (s *Store) countQueued(ctx context.Context) error {
	if err := s.countPass(ctx, nil); err != nil {
		return fmt.Errorf("counting the runs stored but not counted: %w", err)
	}
	return nil
}

// countPass counts, in one transaction, every run in the queue: those of batch from
// what their submitters hold, any other (stored by another instance, or left by a pass
// that failed or a crash) read from the database.
func (s *Store) countPass(ctx context.Context, batch []*pendingRun) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("counting runs: %w", s.classify(err))
	}
	defer tx.Rollback()
	if s.dialect == Postgres {
		// A pass lost in a crash leaves its ids queued, and the next pass or Open counts
		// them; the pass need not wait for its own commit to reach the disk.
		if _, err := tx.ExecContext(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
			return fmt.Errorf("counting runs: %w", err)
		}
	}
	claimed, err := s.claimQueued(ctx, tx)
	if err != nil {
		return err
	}
	var counts runCounts
	for _, p := range batch {
		if claimed[p.rec.ID] {
			counts.add(p.rec, p.cells)
			delete(claimed, p.rec.ID)
		}
	}
	others := slices.Sorted(maps.Keys(claimed))
	for start := 0; start < len(others); start += idsPerStatement {
		if err := s.readCounted(ctx, tx, others[start:min(start+idsPerStatement, len(others))], &counts); err != nil {
			return err
		}
	}
	if err := s.addCounts(ctx, tx, &counts); err != nil {
		return err
	}
	if s.failNextCount.CompareAndSwap(true, false) {
		return fmt.Errorf("counting runs: %w", errCountFault)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("counting runs: %w", s.classify(err))
	}
	return nil
}

// claimQueued deletes every id from the queue and returns those it deleted: they are
// this pass's to count. (A pass of another instance waits for this one's deletions
// and finds them gone.)
func (s *Store) claimQueued(ctx context.Context, tx *sql.Tx) (map[string]bool, error) {
	ids, err := queryRows(ctx, tx, `DELETE FROM run_count_queue RETURNING run_id`, nil, scanOne[string])
	if err != nil {
		return nil, fmt.Errorf("claiming runs to count: %w", s.classify(err))
	}
	out := map[string]bool{}
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

// readCounted adds the stored runs ids to counts.
func (s *Store) readCounted(ctx context.Context, tx *sql.Tx, ids []string, counts *runCounts) error {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ")
	runs, err := queryRows(ctx, tx, s.rebind(`SELECT `+runColumns+` FROM runs WHERE id IN (`+marks+`)`), args, scanRun)
	if err != nil {
		return fmt.Errorf("reading runs to count: %w", err)
	}
	recs := map[string]RunRecord{}
	for _, rec := range runs {
		recs[rec.ID] = rec
	}
	vals, err := queryRows(ctx, tx, s.rebind(`SELECT `+runValueColumns+` FROM run_metrics WHERE run_id IN (`+marks+`)`), args, scanRunValue)
	if err != nil {
		return fmt.Errorf("reading runs to count: %w", err)
	}
	cells := map[string][]metric.CellValue{}
	for _, v := range vals {
		cells[v.runID] = append(cells[v.runID], v.CellValue)
	}
	for _, id := range ids {
		if rec, ok := recs[id]; ok {
			counts.add(rec, cells[id])
		}
	}
	return nil
}

// The runs a statement that rebuilds counts reads: every run (recount, which empties
// the queue in the same transaction), or those counted already (fillCounts: the
// queued ones are added by their own pass, or Open's).
const (
	allRuns     = "runs"
	countedRuns = "runs WHERE id NOT IN (SELECT run_id FROM run_count_queue)"
)

// fillCounts builds a table of counts (run_pairs, run_sizes) when runs were stored
// before it existed: when it is empty and runs is not, stmts rebuild it from the runs
// counted already. Open calls it before it counts the queued runs.
func (s *Store) fillCounts(ctx context.Context, table, what string, stmts []string) error {
	var counted, runs int
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM `+table+` LIMIT 1) AS c), (SELECT COUNT(*) FROM (SELECT 1 FROM runs LIMIT 1) AS r)`).Scan(&counted, &runs)
	if err != nil {
		return fmt.Errorf("reading the counts of %s: %w", what, err)
	}
	if counted > 0 || runs == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("counting %s: %w", what, err)
	}
	defer tx.Rollback()
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("counting %s: %w", what, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("counting %s: %w", what, s.classify(err))
	}
	return nil
}

// runCounts are what some runs add to the counts, summed.
type runCounts struct {
	groups map[groupKey]*groupCount
	cells  map[cellCount]int
	pairs  map[pairKey]int
	sizes  map[sizeKey]int
	best   map[bestKey]*bestCount // best.go
}

type groupKey struct{ dim, name string }

// groupCount is what runs add to one row of run_groups: their number and the largest
// of their figures the row keeps.
type groupCount struct {
	runs               int
	decode, peak, vram *float64
}

// cellCount is one row of metric_cells.
type cellCount struct {
	metric, cond string
	context      int
	level        float64
	kind         string
	dim, name    string
}

type pairKey struct{ dimA, nameA, dimB, nameB string }

// sizeKey is one row of run_sizes.
type sizeKey struct {
	dim, name string
	paramsB   float64
}

// add counts a run with its metric values (putCells' rows).
func (c *runCounts) add(rec RunRecord, cells []metric.CellValue) {
	if c.groups == nil {
		c.groups, c.cells, c.pairs, c.sizes = map[groupKey]*groupCount{}, map[cellCount]int{}, map[pairKey]int{}, map[sizeKey]int{}
	}
	var decode, peak, vram *float64
	if rec.Kind == "measured" {
		decode, peak = rec.DecodeTokS, rec.PeakTokS
	}
	if rec.VRAMGB != nil && rec.GPUCount > 0 {
		v := *rec.VRAMGB / float64(rec.GPUCount)
		vram = &v
	}
	for _, g := range groupDims {
		k := groupKey{g.dim, g.of(rec)}
		gc := c.groups[k]
		if gc == nil {
			gc = &groupCount{}
			c.groups[k] = gc
		}
		gc.runs++
		if g.best {
			gc.decode, gc.peak = larger(gc.decode, decode), larger(gc.peak, peak)
		}
		if g.vram {
			gc.vram = larger(gc.vram, vram)
		}
	}
	for _, v := range cells {
		c.cells[cellCount{v.Metric, v.Cond, v.Context, v.Level, rec.Kind, "", ""}]++
		for _, g := range groupDims {
			c.cells[cellCount{v.Metric, v.Cond, v.Context, v.Level, rec.Kind, g.dim, g.of(rec)}]++
		}
	}
	for _, p := range dimPairs() {
		a, b := groupDims[p.a], groupDims[p.b]
		c.pairs[pairKey{a.dim, a.of(rec), b.dim, b.of(rec)}]++
	}
	c.sizes[sizeKey{"", "", rec.ParamsB}]++
	for _, g := range groupDims {
		c.sizes[sizeKey{g.dim, g.of(rec), rec.ParamsB}]++
	}
	c.addBest(rec, cells)
}

// larger is the larger of two figures, either of which may be missing.
func larger(a, b *float64) *float64 {
	if a == nil || (b != nil && *b > *a) {
		return b
	}
	return a
}

// addCounts adds counts to the tables, each table's rows in the order of its key, so
// that two passes (of two instances) lock the rows they share in the same order.
func (s *Store) addCounts(ctx context.Context, tx *sql.Tx, c *runCounts) error {
	groups := slices.SortedFunc(maps.Keys(c.groups), func(a, b groupKey) int {
		return cmp.Or(cmp.Compare(a.dim, b.dim), cmp.Compare(a.name, b.name))
	})
	err := s.bulkInsert(ctx, tx, groupRows, len(groups), func(i int) []any {
		g := c.groups[groups[i]]
		return []any{groups[i].dim, groups[i].name, g.runs, g.decode, g.peak, g.vram}
	}, `ON CONFLICT (dim, name) DO UPDATE SET runs = run_groups.runs + excluded.runs,
		best_decode = `+keepMax("best_decode")+`, best_peak = `+keepMax("best_peak")+`, vram_gb = `+keepMax("vram_gb"))
	if err != nil {
		return fmt.Errorf("counting runs per value: %w", err)
	}
	cells := slices.SortedFunc(maps.Keys(c.cells), func(a, b cellCount) int {
		return cmp.Or(cmp.Compare(a.metric, b.metric), cmp.Compare(a.dim, b.dim), cmp.Compare(a.name, b.name),
			cmp.Compare(a.cond, b.cond), cmp.Compare(a.context, b.context), cmp.Compare(a.level, b.level), cmp.Compare(a.kind, b.kind))
	})
	err = s.bulkInsert(ctx, tx, cellCountRows, len(cells), func(i int) []any {
		k := cells[i]
		return []any{k.metric, k.cond, k.context, k.level, k.kind, k.dim, k.name, c.cells[k]}
	}, `ON CONFLICT (metric, dim, name, cond, context, level, kind) DO UPDATE SET runs = metric_cells.runs + excluded.runs`)
	if err != nil {
		return fmt.Errorf("counting runs per cell: %w", err)
	}
	pairs := slices.SortedFunc(maps.Keys(c.pairs), func(a, b pairKey) int {
		return cmp.Or(cmp.Compare(a.dimA, b.dimA), cmp.Compare(a.nameA, b.nameA), cmp.Compare(a.dimB, b.dimB), cmp.Compare(a.nameB, b.nameB))
	})
	err = s.bulkInsert(ctx, tx, pairRows, len(pairs), func(i int) []any {
		k := pairs[i]
		return []any{k.dimA, k.nameA, k.dimB, k.nameB, c.pairs[k]}
	}, `ON CONFLICT (dim_a, name_a, dim_b, name_b) DO UPDATE SET runs = run_pairs.runs + excluded.runs`)
	if err != nil {
		return fmt.Errorf("counting runs per pair of values: %w", err)
	}
	sizes := slices.SortedFunc(maps.Keys(c.sizes), func(a, b sizeKey) int {
		return cmp.Or(cmp.Compare(a.dim, b.dim), cmp.Compare(a.name, b.name), cmp.Compare(a.paramsB, b.paramsB))
	})
	err = s.bulkInsert(ctx, tx, sizeRows, len(sizes), func(i int) []any {
		k := sizes[i]
		return []any{k.dim, k.name, k.paramsB, c.sizes[k]}
	}, `ON CONFLICT (dim, name, params_b) DO UPDATE SET runs = run_sizes.runs + excluded.runs`)
	if err != nil {
		return fmt.Errorf("counting runs per model size: %w", err)
	}
	return s.addBests(ctx, tx, c)
}

// The count tables' columns, for bulkInsert.
var (
	groupRows = bulkTable{"run_groups", []bulkColumn{{"dim", colText}, {"name", colText}, {"runs", colInt},
		{"best_decode", colFloat}, {"best_peak", colFloat}, {"vram_gb", colFloat}}}
	cellCountRows = bulkTable{"metric_cells", []bulkColumn{{"metric", colText}, {"cond", colText}, {"context", colInt},
		{"level", colFloat}, {"kind", colText}, {"dim", colText}, {"name", colText}, {"runs", colInt}}}
	pairRows = bulkTable{"run_pairs", []bulkColumn{{"dim_a", colText}, {"name_a", colText}, {"dim_b", colText},
		{"name_b", colText}, {"runs", colInt}}}
	sizeRows = bulkTable{"run_sizes", []bulkColumn{{"dim", colText}, {"name", colText}, {"params_b", colFloat}, {"runs", colInt}}}
)
