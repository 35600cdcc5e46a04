package store

import (
	"context"
	"database/sql"
	"io/fs"
	"strings"

	"github.com/pressly/goose/v3"
)

// ForgetIndexForTesting drops every metric value and the index signature, as a store
// made before the metric registry (or before a metric was added) looks.
func (s *Store) ForgetIndexForTesting(ctx context.Context) error {
	for _, q := range []string{`DELETE FROM run_metrics`, `DELETE FROM run_accuracy`, `DELETE FROM metric_cells`, `DELETE FROM site_meta`,
		`UPDATE runs SET family = '', params_b = 0, author = '', mode = 'matrix'`, `DELETE FROM run_groups WHERE dim IN ('family', 'mode')`} {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// OpenAtVersionForTesting opens dsn with its schema migrated up to version alone and
// nothing re-indexed: a site as an older release left it.
func OpenAtVersionForTesting(ctx context.Context, dsn string, version int64) (*Store, error) {
	s := &Store{dialect: SQLite}
	var err error
	if IsPostgresURL(dsn) {
		s.dialect = Postgres
		s.db, err = sql.Open("pgx", dsn)
	} else {
		s.db, err = sql.Open("sqlite", "file:"+dsn+"?_pragma=foreign_keys(1)")
	}
	if err != nil {
		return nil, err
	}
	sub, err := fs.Sub(migrations, "migrations/"+s.dialect)
	if err != nil {
		return nil, err
	}
	d := goose.DialectSQLite3
	if s.dialect == Postgres {
		d = goose.DialectPostgres
	}
	p, err := goose.NewProvider(d, s.db, sub)
	if err != nil {
		return nil, err
	}
	if _, err := p.UpTo(ctx, version); err != nil {
		return nil, err
	}
	return s, nil
}

// ExecForTesting runs one statement (written with ? placeholders).
func (s *Store) ExecForTesting(ctx context.Context, query string, args ...any) error {
	_, err := s.exec(ctx, s.db, query, args...)
	return err
}

// PairCountsForTesting is run_pairs, keyed "dim_a=name_a dim_b=name_b".
func (s *Store) PairCountsForTesting(ctx context.Context) (map[string]int, error) {
	rows, err := queryRows(ctx, s.db, `SELECT dim_a || '=' || name_a || ' ' || dim_b || '=' || name_b, runs FROM run_pairs`, nil, scanFacet)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, f := range rows {
		out[f.Value] = f.Runs
	}
	return out, nil
}

// RecountForTesting is recount; FillPairsForTesting fillPairs; FillSizesForTesting
// fillSizes; FillBestForTesting fillBest.
func (s *Store) RecountForTesting(ctx context.Context) error   { return s.recount(ctx) }
func (s *Store) FillPairsForTesting(ctx context.Context) error { return s.fillPairs(ctx) }
func (s *Store) FillSizesForTesting(ctx context.Context) error { return s.fillSizes(ctx) }
func (s *Store) FillBestForTesting(ctx context.Context) error  { return s.fillBest(ctx) }

// BestByGroupScanForTesting is BestByGroup as it was before cell_best, whatever the
// filters: every run with the cell that q selects read, the best per group picked by
// a window over them.
func (s *Store) BestByGroupScanForTesting(ctx context.Context, q CellQuery, by string, limit int) ([]GroupBest, error) {
	var err error
	if q.Query, err = s.spelled(ctx, q.Query); err != nil {
		return nil, err
	}
	q.Sort = ""
	return s.bestByScan(ctx, q, by, limit)
}

// FewestMatchingForTesting is fewestMatching of q's filters, spelled as a query's are:
// the bound the counts give on the runs q matches.
func (s *Store) FewestMatchingForTesting(ctx context.Context, q Query) (n int, known bool, err error) {
	if q, err = s.spelled(ctx, q); err != nil {
		return 0, false, err
	}
	return s.fewestMatching(ctx, q, q.filters())
}

// CountsForTesting is every row of run_groups, metric_cells, run_pairs, run_sizes and cell_best, each as
// text keyed by its table and key, and the ids in run_count_queue.
func (s *Store) CountsForTesting(ctx context.Context) (counts map[string]string, queued []string, err error) {
	counts = map[string]string{}
	for _, q := range []string{
		`SELECT 'group ' || dim || '=' || name, runs || ' ' || COALESCE(CAST(best_decode AS TEXT), '-') || ' ' || COALESCE(CAST(best_peak AS TEXT), '-') || ' ' || COALESCE(CAST(vram_gb AS TEXT), '-') FROM run_groups`,
		`SELECT 'cell ' || metric || '|' || cond || '|' || CAST(context AS TEXT) || '|' || CAST(level AS TEXT) || '|' || kind || '|' || dim || '=' || name, CAST(runs AS TEXT) FROM metric_cells`,
		`SELECT 'pair ' || dim_a || '=' || name_a || ' ' || dim_b || '=' || name_b, CAST(runs AS TEXT) FROM run_pairs`,
		`SELECT 'size ' || dim || '=' || name || ' ' || CAST(params_b AS TEXT), CAST(runs AS TEXT) FROM run_sizes`,
		`SELECT 'best ' || metric || '|' || cond || '|' || CAST(context AS TEXT) || '|' || CAST(level AS TEXT) || '|' || kind || '|' || model || '|' || gpu || '|' || family,
			CAST(runs AS TEXT) || ' ' || CAST(rank_key AS TEXT) || ' ' || CAST(value AS TEXT) || ' ' || run_id FROM cell_best`,
		`SELECT 'queued ' || run_id, '' FROM run_count_queue`,
	} {
		rows, err := queryRows(ctx, s.db, q, nil, func(sc scanner) ([2]string, error) {
			var kv [2]string
			err := sc.Scan(&kv[0], &kv[1])
			return kv, err
		})
		if err != nil {
			return nil, nil, err
		}
		for _, kv := range rows {
			if id, ok := strings.CutPrefix(kv[0], "queued "); ok {
				queued = append(queued, id)
				continue
			}
			counts[kv[0]] = kv[1]
		}
	}
	return counts, queued, nil
}

// FailNextCountForTesting makes the next counting pass fail, as a lost connection would.
func (s *Store) FailNextCountForTesting() { s.failNextCount.Store(true) }
