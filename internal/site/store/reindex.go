package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
)

// registryKey is the site_meta entry holding the signature of the metric registry and
// summary rules the stored runs were indexed under.
const registryKey = "registry"

// Reindex brings every stored run up to the current metric registry and summary rules
// (CellMetrics, Summarize): when the signature the runs were indexed under differs, it
// re-reads each document, rewrites its summary columns and metric values, and recounts
// run_groups and metric_cells. Open calls it, so that a metric added to the registry
// ranks the runs stored before it. It returns how many runs it re-read (0 when the
// index was current). Documents are re-read in batches, each in its own transaction;
// running it twice, or from two instances at once, gives the same result.
func (s *Store) Reindex(ctx context.Context) (int, error) {
	want := metric.Signature()
	var have string
	err := s.db.QueryRowContext(ctx, s.rebind(`SELECT value FROM site_meta WHERE key = ?`), registryKey).Scan(&have)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("reading the index signature: %w", err)
	}
	if have == want {
		return 0, nil
	}
	n, after := 0, ""
	for {
		batch, err := s.reindexBatch(ctx, after, 500)
		if err != nil {
			return n, err
		}
		if len(batch) == 0 {
			break
		}
		n += len(batch)
		after = batch[len(batch)-1]
	}
	if err := s.recount(ctx); err != nil {
		return n, err
	}
	_, err = s.exec(ctx, s.db, `INSERT INTO site_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, registryKey, want)
	if err != nil {
		return n, fmt.Errorf("recording the index signature: %w", err)
	}
	return n, nil
}

// reindexBatch re-summarises up to limit runs whose ids sort after after and returns
// their ids.
func (s *Store) reindexBatch(ctx context.Context, after string, limit int) ([]string, error) {
	type doc struct {
		id  string
		run *rundoc.Run // nil when the document no longer reads
	}
	all, err := queryRows(ctx, s.db, s.rebind(`SELECT id, doc FROM run_docs WHERE id > ? ORDER BY id LIMIT ?`), []any{after, limit},
		func(sc scanner) (doc, error) {
			var d doc
			var text string
			if err := sc.Scan(&d.id, &text); err != nil {
				return d, err
			}
			var r rundoc.Run
			if json.Unmarshal([]byte(text), &r) == nil {
				d.run = &r
			}
			return d, nil
		})
	if err != nil {
		return nil, fmt.Errorf("reindexing runs: %w", err)
	}
	var docs []doc
	var ids []string
	for _, d := range all {
		ids = append(ids, d.id)
		if d.run != nil { // else stored before it could be checked as it is now: keep its old row
			docs = append(docs, d)
		}
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("reindexing runs: %w", err)
	}
	defer tx.Rollback()
	for _, d := range docs {
		sum := metric.Summarize(d.run)
		// The names Summarize derives (a GPU's and a weight format's by the catalog's
		// names) as well as the figures, so that a run is grouped as one stored now is.
		_, err := s.exec(ctx, tx, `UPDATE runs SET vram_gb = ?, decode_tok_s = ?, peak_tok_s = ?, prefill32k_tok_s = ?, tok_s_per_gb = ?,
			family = ?, params_b = ?, author = ?, mode = ?, gpu = ?, quantization = ?, decode_ci_low = ?, decode_ci_high = ? WHERE id = ?`,
			sum.VRAMGB, sum.DecodeTokS, sum.PeakTokS, sum.Prefill32KTokS, sum.TokSPerGB, sum.Family, sum.ParamsB, sum.Author, sum.Mode,
			sum.GPU, sum.Quantization, ciLow(sum.DecodeCI), ciHigh(sum.DecodeCI), d.id)
		if err != nil {
			return nil, fmt.Errorf("reindexing run %s: %w", d.id, err)
		}
		if _, err := s.exec(ctx, tx, `DELETE FROM run_metrics WHERE run_id = ?`, d.id); err != nil {
			return nil, fmt.Errorf("reindexing run %s: %w", d.id, err)
		}
		// The counts are rebuilt after the last batch (recount).
		if _, err := s.putCells(ctx, tx, d.id, sum.Cells); err != nil {
			return nil, fmt.Errorf("reindexing run %s: %w", d.id, err)
		}
		if _, err := s.exec(ctx, tx, `DELETE FROM run_accuracy WHERE run_id = ?`, d.id); err != nil {
			return nil, fmt.Errorf("reindexing run %s: %w", d.id, err)
		}
		if err := s.putAccuracy(ctx, tx, d.id, sum.Family, sum.Accuracy); err != nil {
			return nil, fmt.Errorf("reindexing run %s: %w", d.id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("reindexing runs: %w", s.classify(err))
	}
	s.writes.Add(1)
	return ids, nil
}

// recount rebuilds run_groups, run_pairs, run_sizes, metric_cells and cell_best from runs and run_metrics,
// in one transaction, which empties the queue of runs to count (counting.go).
func (s *Store) recount(ctx context.Context) error {
	// The counts of every stored run, queued ones among them, from one snapshot: a run
	// stored meanwhile stays queued, to be counted by its own pass (counting.go).
	opts := &sql.TxOptions{}
	if s.dialect == Postgres {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := s.db.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("recounting runs: %w", err)
	}
	defer tx.Rollback()
	// metric_cells' counts in all (dim "") and per value of each of groupDims.
	cells := func(dim, col string) string {
		name, by := "''", ""
		if col != "" {
			name, by = col, ", "+col
		}
		return `INSERT INTO metric_cells (metric, cond, context, level, kind, dim, name, runs) SELECT m.metric, m.cond, m.context, m.level, r.kind, '` +
			dim + `', ` + name + `, COUNT(*) FROM run_metrics m JOIN runs r ON r.id = m.run_id GROUP BY m.metric, m.cond, m.context, m.level, r.kind` + by
	}
	stmts := []string{`DELETE FROM metric_cells`, cells("", "")}
	for _, g := range groupDims {
		stmts = append(stmts, cells(g.dim, "r."+g.dim))
	}
	stmts = append(stmts, `DELETE FROM run_groups`)
	measured := func(col string) string { return "MAX(CASE WHEN kind = 'measured' THEN " + col + " END)" }
	for _, g := range groupDims {
		decode, peak, vram := "NULL", "NULL", "NULL"
		if g.best {
			decode, peak = measured("decode_tok_s"), measured("peak_tok_s")
		}
		if g.vram {
			vram = "MAX(CASE WHEN gpu_count > 0 THEN vram_gb / gpu_count END)"
		}
		stmts = append(stmts, `INSERT INTO run_groups (dim, name, runs, best_decode, best_peak, vram_gb) SELECT '`+g.dim+`', `+g.dim+
			`, COUNT(*), `+decode+`, `+peak+`, `+vram+` FROM runs GROUP BY `+g.dim)
	}
	stmts = append(stmts, pairStatements(allRuns)...)
	stmts = append(stmts, sizeStatements(allRuns)...)
	stmts = append(stmts, bestStatements(allRuns)...)
	stmts = append(stmts, `DELETE FROM run_count_queue`)
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("recounting runs: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("recounting runs: %w", err)
	}
	s.writes.Add(1)
	return nil
}
