package store

import (
	"context"
	"fmt"
	"math"
	"strings"
)

// leadFilter picks how the database should find a page of q: walk the ranking index and
// skip the runs the filters reject, or start from the narrowest filter's index and
// sort what it finds. It compares the rows each reads: the walk reads about
// (offset + limit) ÷ the share of runs the filters keep (estimated from run_groups'
// counts, as if the filters were independent, then ×4 because they often are not),
// the other reads the narrowest filter's runs (the factor is 16 on PostgreSQL). empty
// is true when a filter value has no runs at all, two of the filters' values no run
// has together (run_pairs, pairs.go), or no run of a value has a size the size filter
// keeps (run_sizes, sizes.go). Neither planner gets this right alone: SQLite has no counts per value,
// and both take filters as independent, so a walk for two filters that never occur
// together reads every run.
func (s *Store) leadFilter(ctx context.Context, q Query) (lead string, empty bool, err error) {
	return s.leadFilterFor(ctx, q, false)
}

// leadFilterFor is leadFilter for a runs query (cells false) or for one joined to a
// cell's values (cells true). Joined, starting from a filter costs a lookup into
// run_metrics per run on either database, as a walk costs one into runs: PostgreSQL's
// bitmap scan no longer saves the narrow way anything, so its factor is SQLite's.
func (s *Store) leadFilterFor(ctx context.Context, q Query, cells bool) (lead string, empty bool, err error) {
	fs := q.filters()
	if len(fs) == 0 && !q.sized() {
		return "", false, nil
	}
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT COALESCE(SUM(runs), 0) FROM run_groups WHERE dim = 'profile'`).Scan(&total); err != nil {
		return "", false, fmt.Errorf("counting all runs: %w", err)
	}
	if total == 0 {
		return "", true, nil
	}
	best, bestCount := "", -1
	share := 1.0
	for _, f := range fs {
		n := 0 // org and submitter have no counts: take them as narrow
		if f.dim != "" {
			var names int
			c, a := in("name", f.values)
			err := s.db.QueryRowContext(ctx, s.rebind(`SELECT COUNT(*), COALESCE(SUM(runs), 0) FROM run_groups WHERE dim = ? AND `+c), append([]any{f.dim}, a...)...).Scan(&names, &n)
			if err != nil {
				return "", false, fmt.Errorf("counting runs of %s %q: %w", f.dim, f.values, err)
			}
			if names == 0 {
				return "", true, nil
			}
		}
		share *= float64(n) / float64(total)
		if bestCount < 0 || n < bestCount {
			best, bestCount = f.col, n
		}
	}
	// A row read walking an index costs PostgreSQL a random heap fetch; the lead
	// filter's rows come in a bitmap scan, in heap order. Hence its larger factor.
	factor := 4.0
	if s.dialect == Postgres && !cells {
		factor = 16
	}
	together, known, err := s.fewestMatching(ctx, q, fs)
	if err != nil {
		return "", false, err
	}
	if known && together == 0 {
		return "", true, nil // two of the values, or a value and the size, never occur together
	}
	if len(fs) == 0 {
		return "", false, nil // a size alone: no index starts from a size, so walk
	}
	if len(fs) > 1 || q.sized() {
		// Filters together may match far fewer runs than their counts suggest (a GPU
		// and a model size that never occur together): a walk would then read every
		// run. Walking beats starting from the narrowest filter only if the filters
		// match at least need runs; count them from that filter's index, stopping at
		// need, which costs at most what starting there would.
		need := int(math.Ceil(2*float64(q.Offset+q.Limit)*float64(total)/float64(max(bestCount, 1)))) + 1
		if known && together < need {
			return best, false, nil // they match fewer than need: no need to count them
		}
		conds, args := s.conditions(q, best)
		var n int
		err := s.db.QueryRowContext(ctx, s.rebind(`SELECT COUNT(*) FROM (SELECT 1 FROM runs WHERE `+strings.Join(conds, " AND ")+` LIMIT ?) AS matched`),
			append(args, need)...).Scan(&n)
		if err != nil {
			return "", false, fmt.Errorf("counting the runs the filters match: %w", err)
		}
		switch {
		case n == 0:
			return "", true, nil
		case n < need:
			return best, false, nil
		default:
			return "", false, nil
		}
	}
	walk := float64(total)
	if share > 0 {
		walk = min(walk, factor*float64(q.Offset+q.Limit)/share)
	}
	if float64(bestCount) < walk {
		return best, false, nil
	}
	return "", false, nil
}
