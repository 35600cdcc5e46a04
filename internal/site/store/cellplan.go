package store

import (
	"context"
	"fmt"
	"strings"
)

// cellLead is leadFilterFor for a ranking by one cell when metric_cells counts
// exactly what the query keeps: its cell's runs of the kinds it shows, in all or for
// its one filter's value. Filters and kinds are not independent — a model whose every
// run is emulated has none on a board of measured runs, and walking the cell's ranking
// for it reads every value of the cell — so the exact count decides: none is an empty
// page at once; otherwise walking reads about (offset + limit) × the cell's runs ÷
// the matching ones, and starting from the filter reads the filter's runs in the cell.
// ok is false when metric_cells cannot answer (several filters, a size, an
// organisation), and then leadFilterFor decides.
func (s *Store) cellLead(ctx context.Context, q CellQuery) (lead string, empty, ok bool, err error) {
	fs := q.filters()
	if q.SizeMin > 0 || q.SizeMax > 0 || len(fs) > 1 || len(fs) == 1 && fs[0].dim == "" {
		return "", false, false, nil
	}
	dim, names := "", []string{""}
	if len(fs) == 1 {
		dim, names = fs[0].dim, fs[0].values
	}
	matched, err := s.cellRuns(ctx, q, dim, names, q.Kinds)
	if err != nil {
		return "", false, false, err
	}
	if matched == 0 {
		return "", true, true, nil
	}
	if dim == "" {
		return "", false, true, nil // kinds alone: walk the ranking, skipping the others
	}
	all, err := s.cellRuns(ctx, q, "", []string{""}, nil)
	if err != nil {
		return "", false, false, err
	}
	filtered, err := s.cellRuns(ctx, q, dim, names, nil)
	if err != nil {
		return "", false, false, err
	}
	walk := float64(q.Offset+q.Limit) * float64(all) / float64(matched)
	if float64(filtered) < walk {
		return fs[0].col, false, true, nil
	}
	return "", false, true, nil
}

// cellRuns is how many runs have q's cell, of the given kinds (nil: all), in all (dim
// "", names [""]) or with one of dim's values names.
func (s *Store) cellRuns(ctx context.Context, q CellQuery, dim string, names []string, kinds []string) (int, error) {
	c, a := in("name", names)
	query := `SELECT COALESCE(SUM(runs), 0) FROM metric_cells WHERE metric = ? AND cond = ? AND context = ? AND level = ? AND dim = ? AND ` + c
	args := append([]any{q.Metric, q.Cond, q.Context, q.Level, dim}, a...)
	if len(kinds) > 0 {
		query += ` AND kind IN (?` + strings.Repeat(", ?", len(kinds)-1) + `)`
		for _, k := range kinds {
			args = append(args, k)
		}
	}
	var n int
	if err := s.db.QueryRowContext(ctx, s.rebind(query), args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("counting the cell's runs: %w", err)
	}
	return n, nil
}
