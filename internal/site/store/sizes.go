package store

import (
	"context"
	"fmt"
	"strings"
)

// Model sizes: run_sizes counts the runs of each size (params_b, the size a model's
// name states) in all and per value of each of groupDims. A size filter is a range of
// sizes, and it is not independent of the other filters: every run of a GPU may be of
// a 7B model. Without counts, "?size=20-40&gpu=H200" was known empty only after
// reading every run of the GPU (100,000 of a million).

// sizeStatements rebuild run_sizes from the runs of src (allRuns or countedRuns).
func sizeStatements(src string) []string {
	stmts := []string{`DELETE FROM run_sizes`,
		`INSERT INTO run_sizes (dim, name, params_b, runs) SELECT '', '', params_b, COUNT(*) FROM ` + src + ` GROUP BY params_b`}
	for _, g := range groupDims {
		stmts = append(stmts, `INSERT INTO run_sizes (dim, name, params_b, runs) SELECT '`+g.dim+`', `+g.dim+
			`, params_b, COUNT(*) FROM `+src+` GROUP BY `+g.dim+`, params_b`)
	}
	return stmts
}

// fillSizes builds run_sizes when runs were stored before it existed.
func (s *Store) fillSizes(ctx context.Context) error {
	return s.fillCounts(ctx, "run_sizes", "runs per model size", sizeStatements(countedRuns))
}

// fewestMatching bounds the runs the filters fs of q match together: the fewest any
// two of them share (run_pairs) and, with a size filter, the fewest of its sizes among
// all runs and among each filter value's (run_sizes). known is false when no count
// applies (one filter and no size).
func (s *Store) fewestMatching(ctx context.Context, q Query, fs []filter) (n int, known bool, err error) {
	n, known, err = s.fewestTogether(ctx, fs)
	if err != nil || !q.sized() {
		return n, known, err
	}
	m, err := s.fewestOfSize(ctx, q, fs)
	if !known || m < n {
		n = m
	}
	return n, true, err
}

// fewestOfSize is the smallest count of runs of a size q keeps among all runs and the
// runs of each of the filters fs that run_groups counts by: a bound on the runs they
// match together.
func (s *Store) fewestOfSize(ctx context.Context, q Query, fs []filter) (int, error) {
	n, err := s.runsOfSize(ctx, q, "", []string{""})
	for _, f := range fs {
		if err != nil || n == 0 {
			break
		}
		if f.dim != "" {
			var m int
			m, err = s.runsOfSize(ctx, q, f.dim, f.values)
			n = min(n, m)
		}
	}
	return n, err
}

// runsOfSize is how many runs of a size q keeps are among all runs (dim "", names
// [""]) or the runs of dim's values names.
func (s *Store) runsOfSize(ctx context.Context, q Query, dim string, names []string) (int, error) {
	c, a := in("name", names)
	conds, args := q.sizeConditions()
	query := `SELECT COALESCE(SUM(runs), 0) FROM run_sizes WHERE dim = ? AND ` + c + ` AND ` + strings.Join(conds, " AND ")
	var n int
	if err := s.db.QueryRowContext(ctx, s.rebind(query), append(append([]any{dim}, a...), args...)...).Scan(&n); err != nil {
		return 0, fmt.Errorf("counting runs of %s %q by size: %w", dim, names, err)
	}
	return n, nil
}
