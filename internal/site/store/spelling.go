package store

import (
	"context"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/site/metric"
)

// Names are filtered in any case: "?engine=VLLM" finds the runs of "vllm", and a model
// stored as "Qwen/Qwen3-8B" by one run and "qwen/qwen3-8b" by another is one filter
// value that finds both (issue 37 item 9). Case folds ASCII letters only, alike in
// both databases (SQLite's LOWER folds no other; PostgreSQL's does under the "C"
// collation), so that the two stores answer a filter the same. A GPU's and a weight
// format's name is the catalog's first (metric.CatalogGPUName, metric.CatalogQuantName): "rtx 3090"
// is "RTX 3090" and "Q4_K_M" is "GGUF Q4_K_M", as runs are stored.

// lower is the SQL for col's ASCII letters in lower case.
func (s *Store) lower(col string) string {
	if s.dialect == Postgres {
		return `LOWER(` + col + ` COLLATE "C")`
	}
	return "LOWER(" + col + ")"
}

// asciiLower is lower's fold in Go.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// heldName is a filter value of dim as the store would have stored it: trimmed, and
// a GPU's or weight format's by the catalog's name.
func heldName(dim, name string) string {
	name = normalize(name)
	switch dim {
	case "gpu":
		return metric.CatalogGPUName(name)
	case "quantization":
		return metric.CatalogQuantName(name)
	}
	return name
}

// spellings are the names the store holds for dim's name (heldName) in any case, as
// mergeSpellings orders them: most runs first, then by name; none when no run has it.
func (s *Store) spellings(ctx context.Context, dim, name string) ([]string, error) {
	gs, err := s.groupSpellings(ctx, dim, name)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(gs, func(a, b GroupStat) int {
		if a.Runs != b.Runs {
			return b.Runs - a.Runs
		}
		return strings.Compare(a.Name, b.Name)
	})
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.Name
	}
	return out, nil
}

// groupSpellings are run_groups' rows of dim's name (heldName) in any case.
func (s *Store) groupSpellings(ctx context.Context, dim, name string) ([]GroupStat, error) {
	return s.groupRows(ctx, dim, " AND "+s.lower("name")+" = ?", asciiLower(heldName(dim, name)))
}

// MenuName is the name a filter menu shows for dim's value name (Facets: its spelling
// with the most runs), so that a page asked for "?quant=q4_k_m" shows GGUF Q4_K_M
// chosen; the name as given, trimmed, when no run has it.
func (s *Store) MenuName(ctx context.Context, dim, name string) (string, error) {
	names, err := s.spellings(ctx, dim, name)
	if err != nil || len(names) == 0 {
		return normalize(name), err
	}
	return names[0], nil
}

// Spelling is the name the store holds for a GPU, model or family written another
// way: a GPU as a tool printed it (the catalog's name: nvidia-smi's "NVIDIA GeForce
// RTX 4090" is "RTX 4090"), and any name in another case ("rtx 3090", "Qwen3.8-27B"):
// the name as written where the store holds it, else its spelling with the most runs.
// Pages redirect to it. ErrNotFound when no stored run has the name in any spelling.
func (s *Store) Spelling(ctx context.Context, dim, name string) (string, error) {
	names, err := s.spellings(ctx, dim, name)
	switch {
	case err != nil:
		return "", err
	case len(names) == 0:
		return "", ErrNotFound
	case slices.Contains(names, heldName(dim, name)):
		return heldName(dim, name), nil
	}
	return names[0], nil
}

// spelled is q with its GPU, model, family, engine and quantization filters matching
// every name the store holds for them in any case (spellings), each filter's field
// set to its most common one. A name no run has in any spelling stays, and matches
// none.
func (s *Store) spelled(ctx context.Context, q Query) (Query, error) {
	q.spellings = map[string][]string{}
	for _, f := range []struct {
		dim string
		v   *string
	}{{"gpu", &q.GPU}, {"model", &q.Model}, {"family", &q.Family}, {"engine", &q.Engine}, {"quantization", &q.Quantization}} {
		if strings.TrimSpace(*f.v) == "" {
			continue
		}
		names, err := s.spellings(ctx, f.dim, *f.v)
		if err != nil {
			return q, err
		}
		if len(names) > 0 {
			*f.v, q.spellings[f.dim] = names[0], names // each of these dimensions is its runs column
		}
	}
	return q, nil
}

// mergeSpellings makes the groups whose names differ only in case one: named as the
// one with the most runs (the first by name among equals), their runs summed, the
// best of their figures; by name. A filter by any of the names finds them all.
func mergeSpellings(gs []GroupStat) []GroupStat {
	byKey := map[string]int{}
	var out []GroupStat
	var own []int // the runs of the spelling each is named as
	for _, g := range gs {
		i, ok := byKey[asciiLower(g.Name)]
		if !ok {
			byKey[asciiLower(g.Name)] = len(out)
			out, own = append(out, g), append(own, g.Runs)
			continue
		}
		m := &out[i]
		if g.Runs > own[i] || g.Runs == own[i] && g.Name < m.Name {
			m.Name, own[i] = g.Name, g.Runs
		}
		m.Runs += g.Runs
		m.BestDecode, m.BestPeak, m.VRAMGB = larger(m.BestDecode, g.BestDecode), larger(m.BestPeak, g.BestPeak), larger(m.VRAMGB, g.VRAMGB)
	}
	slices.SortFunc(out, func(a, b GroupStat) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// mergeFacets is mergeSpellings for a filter's values.
func mergeFacets(fs []Facet) []Facet {
	gs := make([]GroupStat, len(fs))
	for i, f := range fs {
		gs[i] = GroupStat{Name: f.Value, Runs: f.Runs}
	}
	gs = mergeSpellings(gs)
	out := make([]Facet, len(gs))
	for i, g := range gs {
		out[i] = Facet{Value: g.Name, Runs: g.Runs}
	}
	return out
}
