package store

import (
	"context"
	"fmt"
)

// Pairs of values: run_pairs counts the runs of each pair of values of two of
// groupDims (a GPU and an engine …). Filters are not independent: a GPU and an engine
// that each have 10% of a million runs may share none, and then the only other way to
// know is to read the 100,000 runs of the narrower one.

// dimPair is two of groupDims, a before b in groupDims' order.
type dimPair struct{ a, b int }

// dimPairs are every pair of groupDims.
func dimPairs() []dimPair {
	var out []dimPair
	for a := range groupDims {
		for b := a + 1; b < len(groupDims); b++ {
			out = append(out, dimPair{a, b})
		}
	}
	return out
}

// pairStatements rebuild run_pairs from the runs of src (allRuns or countedRuns).
func pairStatements(src string) []string {
	stmts := []string{`DELETE FROM run_pairs`}
	for _, p := range dimPairs() {
		a, b := groupDims[p.a].dim, groupDims[p.b].dim
		stmts = append(stmts, `INSERT INTO run_pairs (dim_a, name_a, dim_b, name_b, runs) SELECT '`+a+`', `+a+`, '`+b+`', `+b+
			`, COUNT(*) FROM `+src+` GROUP BY `+a+`, `+b)
	}
	return stmts
}

// fillPairs builds run_pairs when runs were stored before it existed.
func (s *Store) fillPairs(ctx context.Context) error {
	return s.fillCounts(ctx, "run_pairs", "pairs of values", pairStatements(countedRuns))
}

// fewestTogether is the smallest count of runs any two of the filters fs share (a
// bound on the runs they match together), and whether some pair of them has a count.
func (s *Store) fewestTogether(ctx context.Context, fs []filter) (n int, known bool, err error) {
	index := map[string]int{}
	for i, g := range groupDims {
		index[g.dim] = i
	}
	for i, f := range fs {
		for _, g := range fs[i+1:] {
			a, okA := index[f.dim]
			b, okB := index[g.dim]
			if !okA || !okB || a == b {
				continue
			}
			first, second := f, g
			if a > b {
				first, second = g, f
			}
			var c int
			ca, aa := in("name_a", first.values)
			cb, ab := in("name_b", second.values)
			args := append(append([]any{first.dim}, aa...), second.dim)
			err := s.db.QueryRowContext(ctx, s.rebind(`SELECT COALESCE(SUM(runs), 0) FROM run_pairs WHERE dim_a = ? AND `+ca+` AND dim_b = ? AND `+cb),
				append(args, ab...)...).Scan(&c)
			if err != nil {
				return 0, false, fmt.Errorf("counting runs of %s %q with %s %q: %w", first.dim, first.values, second.dim, second.values, err)
			}
			if !known || c < n {
				n, known = c, true
			}
		}
	}
	return n, known, nil
}
