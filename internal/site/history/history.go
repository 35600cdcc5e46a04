// Package history is a GPU × model's single-stream decode figures across engine
// versions (issue 39 item 2): per engine and weight format, its versions in the order
// the engine numbers them (engine.ParseVersion), each with every run as a point with
// its 95% interval and the best of them. A pure function of the store's rows, so the
// page and the API answer alike.
package history

import (
	"cmp"
	"slices"

	"github.com/llmbench/llmbench/internal/engine"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// Build groups runs into series by engine and weight format (by name), and each
// series' runs by version, ordered as the engine orders them.
func Build(runs []store.HistoryRun) []wire.HistorySeries {
	type key struct{ engine, quant string }
	groups := map[key][]store.HistoryRun{}
	var keys []key
	for _, r := range runs {
		k := key{r.Engine, r.Quantization}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r)
	}
	slices.SortFunc(keys, func(a, b key) int { return cmp.Or(cmp.Compare(a.engine, b.engine), cmp.Compare(a.quant, b.quant)) })
	out := make([]wire.HistorySeries, 0, len(keys))
	for _, k := range keys {
		out = append(out, wire.HistorySeries{Engine: k.engine, Quantization: k.quant, Versions: versions(k.engine, groups[k])})
	}
	return out
}

// release is one version's runs with the version as the engine's rule reads it.
type release struct {
	parsed engine.Version
	ok     bool // the rule reads it
	runs   []store.HistoryRun
}

// versions orders one engine's runs by version: the versions its rule reads in its
// order, one release however spelled; then the others by their first run's date.
func versions(eng string, runs []store.HistoryRun) []wire.HistoryVersion {
	runs = slices.Clone(runs)
	slices.SortFunc(runs, func(a, b store.HistoryRun) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	var rel []release
	bySpelling := map[string]int{}
	for _, r := range runs {
		if i, ok := bySpelling[r.EngineVersion]; ok {
			rel[i].runs = append(rel[i].runs, r)
			continue
		}
		v, ok := engine.ParseVersion(eng, r.EngineVersion)
		i := slices.IndexFunc(rel, func(x release) bool { return ok && x.ok && x.parsed.Compare(v) == 0 })
		if i < 0 {
			i = len(rel)
			rel = append(rel, release{parsed: v, ok: ok})
		}
		bySpelling[r.EngineVersion] = i
		rel[i].runs = append(rel[i].runs, r)
	}
	// Runs are oldest first, so each release's first run is its first: a stable
	// sort keeps the releases the rule cannot read in the order of their dates.
	slices.SortStableFunc(rel, func(a, b release) int {
		switch {
		case a.ok && b.ok:
			return a.parsed.Compare(b.parsed)
		case a.ok != b.ok:
			if a.ok {
				return -1
			}
			return 1
		}
		return 0
	})
	out := make([]wire.HistoryVersion, len(rel))
	for i, r := range rel {
		out[i] = version(r)
	}
	return out
}

// version is a release's points and its best: the highest figure, the earliest run
// among equals.
func version(r release) wire.HistoryVersion {
	v := wire.HistoryVersion{Version: r.runs[0].EngineVersion, ByDate: !r.ok}
	for _, run := range r.runs {
		p := wire.HistoryPoint{RunID: run.ID, DecodeTokS: run.DecodeTokS, CI: run.DecodeCI, CreatedAt: run.CreatedAt, GPUCount: run.GPUCount}
		v.Runs = append(v.Runs, p)
		if len(v.Runs) == 1 || p.DecodeTokS > v.Best.DecodeTokS {
			v.Best = p
		}
	}
	return v
}
