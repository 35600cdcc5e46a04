package store

import (
	"context"
	"fmt"
)

// groupDims are what run_groups counts runs by: each dimension (also the runs column
// holding a run's value of it), that value in a record, and whether the group keeps
// the best measured decode and peak tok/s and the largest VRAM per GPU. countGroups
// adds a run to them as it is stored; recount rebuilds them from runs.
var groupDims = []struct {
	dim        string
	of         func(RunRecord) string
	best, vram bool
}{
	{"model", func(r RunRecord) string { return r.Model }, true, false},
	{"gpu", func(r RunRecord) string { return r.GPU }, true, true},
	{"engine", func(r RunRecord) string { return r.Engine }, false, false},
	{"quantization", func(r RunRecord) string { return r.Quantization }, false, false},
	{"profile", func(r RunRecord) string { return r.Profile }, false, false},
	{"family", func(r RunRecord) string { return r.Family }, true, false},
	{"mode", func(r RunRecord) string { return modeOr(r.Mode) }, false, false},
}

// keepMax is the larger of the stored and the new value of col, NULLs ignored (in
// both dialects: SQLite's MAX(a, b) is NULL when either is, PostgreSQL has no MAX(a, b)).
func keepMax(col string) string {
	return "CASE WHEN excluded." + col + " IS NOT NULL AND (run_groups." + col + " IS NULL OR excluded." + col + " > run_groups." + col +
		") THEN excluded." + col + " ELSE run_groups." + col + " END"
}

// GroupStat summarises the runs of one GPU or one model.
type GroupStat struct {
	Name       string   `json:"name"`
	Runs       int      `json:"runs"`
	BestDecode *float64 `json:"best_decode_tok_s,omitempty"` // best single-stream decode tok/s at context 0, measured runs
	BestPeak   *float64 `json:"best_peak_tok_s,omitempty"`
	VRAMGB     *float64 `json:"vram_gb,omitempty"` // GPUs only: the largest total seen
}

// GPUs lists every GPU runs were made on.
func (s *Store) GPUs(ctx context.Context) ([]GroupStat, error) { return s.groups(ctx, "gpu") }

// Models lists every model runs were made of.
func (s *Store) Models(ctx context.Context) ([]GroupStat, error) { return s.groups(ctx, "model") }

// GPU returns the summary of one GPU's runs; ErrNotFound when no run was made on it.
func (s *Store) GPU(ctx context.Context, name string) (GroupStat, error) {
	return s.group(ctx, "gpu", name)
}

// Model returns the summary of one model's runs; ErrNotFound when no run was made of it.
func (s *Store) Model(ctx context.Context, name string) (GroupStat, error) {
	return s.group(ctx, "model", name)
}

// group is one group's summary, named as the store holds it: its name's spellings in
// any case together, as a filter by it finds them (spelled).
func (s *Store) group(ctx context.Context, dim, name string) (GroupStat, error) {
	gs, err := s.groupSpellings(ctx, dim, name)
	if err != nil {
		return GroupStat{}, err
	}
	if gs = mergeSpellings(gs); len(gs) == 0 {
		return GroupStat{}, ErrNotFound
	}
	return gs[0], nil
}

// groups lists dim's groups, a name's spellings in any case merged into one
// (mergeSpellings), by name.
func (s *Store) groups(ctx context.Context, dim string) ([]GroupStat, error) {
	gs, err := s.groupRows(ctx, dim, "")
	return mergeSpellings(gs), err
}

// groupRows reads run_groups' rows of dim that cond (with args) keeps, as they are.
func (s *Store) groupRows(ctx context.Context, dim, cond string, args ...any) ([]GroupStat, error) {
	out, err := queryRows(ctx, s.db, s.rebind(`SELECT name, runs, best_decode, best_peak, vram_gb FROM run_groups WHERE dim = ?`+cond),
		append([]any{dim}, args...), func(sc scanner) (GroupStat, error) {
			var g GroupStat
			err := sc.Scan(&g.Name, &g.Runs, &g.BestDecode, &g.BestPeak, &g.VRAMGB)
			return g, err
		})
	if err != nil {
		return nil, fmt.Errorf("listing by %s: %w", dim, s.classify(err))
	}
	return out, nil
}

// runsPer counts the runs of each value of col ("org" or "submitter": the two columns
// run_groups does not count), in one query rather than one per value.
func (s *Store) runsPer(ctx context.Context, col string) (map[string]int, error) {
	if col != "org" && col != "submitter" {
		return nil, fmt.Errorf("counting runs per %q: not a column runs are counted by", col)
	}
	rows, err := queryRows(ctx, s.db, `SELECT `+col+`, COUNT(*) FROM runs GROUP BY `+col, nil, scanFacet)
	if err != nil {
		return nil, fmt.Errorf("counting runs per %s: %w", col, err)
	}
	counts := map[string]int{}
	for _, f := range rows {
		counts[f.Value] = f.Runs
	}
	return counts, nil
}
