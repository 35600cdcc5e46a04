package store

import (
	"strings"

	"github.com/llmbench/llmbench/internal/site/metric"
)

// Query selects runs. Empty fields do not filter; a model, GPU, engine, quantization
// or family filters in any case (spelled).
type Query struct {
	Model, GPU, Engine, Quantization, Profile, Org, Submitter string
	// Family keeps the runs of one model family; Author the runs whose document names
	// this author; SizeMin and SizeMax (billions of parameters, 0 = no bound; Max
	// exclusive) the models of a size.
	Family, Author   string
	SizeMin, SizeMax float64
	// Mode keeps the matrix runs or the open-loop runs (ModeMatrix, ModeRate).
	Mode string
	// Kinds keeps only runs of these kinds (measured, emulated, predicted); empty = all.
	Kinds []string
	// Accuracy hides runs far below the best accuracy of their model (accuracy.go).
	Accuracy AccuracyFilter
	// Sort ranks by a metric (runs without that figure are left out); empty = newest first.
	Sort   metric.Metric
	Limit  int // at most 500; 0 = 50
	Offset int
	// spellings are the names the store holds for a filter's value, by column
	// (spelled): a filter matches any of them.
	spellings map[string][]string
}

// filter is one condition of a Query on a column — its value, in every spelling the
// store holds (spelled), else as given — with the run_groups dimension that counts
// its values (empty when none does).
type filter struct {
	col, dim string
	values   []string
}

func (q Query) filters() []filter {
	var fs []filter
	for _, f := range []struct{ col, dim, value string }{{"model", "model", q.Model}, {"gpu", "gpu", q.GPU}, {"engine", "engine", q.Engine},
		{"quantization", "quantization", q.Quantization}, {"profile", "profile", q.Profile},
		{"family", "family", q.Family}, {"mode", "mode", q.Mode},
		{"org", "", q.Org}, {"submitter", "", q.Submitter}, {"author", "", q.Author}} {
		if v := normalize(f.value); v != "" {
			vals := q.spellings[f.col]
			if len(vals) == 0 {
				vals = []string{v}
			}
			fs = append(fs, filter{f.col, f.dim, vals})
		}
	}
	return fs
}

// normalize folds a filter value the way stored names are compared.
func normalize(s string) string { return strings.TrimSpace(s) }

// sortColumn is the runs column holding a ranking figure; only these fixed strings
// reach SQL.
func sortColumn(m metric.Metric) string {
	switch m {
	case metric.MetricPeak:
		return "peak_tok_s"
	case metric.MetricPrefill32K:
		return "prefill32k_tok_s"
	case metric.MetricPerGB:
		return "tok_s_per_gb"
	default:
		return "decode_tok_s"
	}
}

// anyIndex, as where's lead, leaves the choice of index to the database.
const anyIndex = "*"

// noIndex wraps a text column so that the database cannot use its index for a
// condition (the value is unchanged): SQLite's unary +, PostgreSQL's || ”.
func (s *Store) noIndex(col string) string {
	if s.dialect == SQLite {
		return "+" + col
	}
	return "(" + col + " || '')"
}

// noIndexOrder is ORDER BY's expression for col that no index can serve, so that the
// database sorts what the lead filter found instead of walking a ranking index.
func (s *Store) noIndexOrder(col string) string {
	switch {
	case s.dialect == SQLite:
		return "+" + col
	case col == "submitted_at":
		return "(" + col + " + interval '0 seconds')"
	default:
		return "(" + col + " + 0)"
	}
}

// sized says whether q filters by model size.
func (q Query) sized() bool { return q.SizeMin > 0 || q.SizeMax > 0 }

// sizeConditions are q's conditions on params_b (a column of runs and of run_sizes):
// SizeMin inclusive, SizeMax exclusive, and a model whose name states no size (0) in
// no range with an upper bound.
func (q Query) sizeConditions() ([]string, []any) {
	var conds []string
	var args []any
	if q.SizeMin > 0 {
		conds = append(conds, "params_b >= ?")
		args = append(args, q.SizeMin)
	}
	if q.SizeMax > 0 {
		conds = append(conds, "params_b > 0 AND params_b < ?")
		args = append(args, q.SizeMax)
	}
	return conds, args
}

// where builds the WHERE clause. lead names the one filter column whose index the
// database should start from ("" = none: walk the ranking index; anyIndex: let the
// planner choose); every other filter column is wrapped by noIndex.
func (s *Store) where(q Query, lead string) (string, []any) {
	conds, args := s.conditions(q, lead)
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// conditions are where's conditions, to be joined with others.
func (s *Store) conditions(q Query, lead string) ([]string, []any) {
	var conds []string
	var args []any
	col := func(c string) string {
		if lead != anyIndex && c != lead {
			return s.noIndex(c)
		}
		return c
	}
	for _, f := range q.filters() {
		c, a := in(col(f.col), f.values)
		conds, args = append(conds, c), append(args, a...)
	}
	if len(q.Kinds) > 0 {
		conds = append(conds, col("kind")+" IN (?"+strings.Repeat(", ?", len(q.Kinds)-1)+")")
		for _, k := range q.Kinds {
			args = append(args, k)
		}
	}
	c, a := q.sizeConditions()
	conds, args = append(conds, c...), append(args, a...)
	if q.Sort != "" {
		conds = append(conds, sortColumn(q.Sort)+" IS NOT NULL")
	}
	if q.Accuracy.On {
		c, a := q.Accuracy.condition()
		conds, args = append(conds, c), append(args, a...)
	}
	return conds, args
}
