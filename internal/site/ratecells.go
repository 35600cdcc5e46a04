package site

import (
	"net/url"
	"slices"

	"github.com/llmbench/llmbench/internal/site/board"
	"github.com/llmbench/llmbench/internal/site/store"
)

// Open-loop cells on the leaderboard. A rate cell ranks only beside cells measured
// under the same conditions (store.RateCond): the output length, arrival pattern,
// length spread, client cap and shared prefix, and for goodput the SLO. The URL states
// them — output, arrival, len_dist, max_concurrency, prefix_share, requests or
// duration (a cell's length: --requests, or --duration), slo, target — and llmbench
// run --rate's defaults stand for the workload's parts left out; an SLO has no
// default: a reader who asks for goodput states the targets.

// condOption is one set of conditions runs were measured under, linking to the cell
// most of them have.
type condOption struct {
	Label    string
	URL      string
	Runs     int
	Cell     string // that cell: "512 in, 4 req/s"
	Selected bool
}

// condOptions lists the conditions a metric's cells were measured under, the most
// measured first.
func condOptions(u *url.URL, sel board.Cell, cells []store.MetricCell, lang string) []condOption {
	type best struct {
		cell store.MetricCell
		cond store.RateCond
	}
	byCond := map[string]*best{}
	var keys []string
	for _, c := range cells {
		b := byCond[c.Cond]
		if b == nil {
			cond, err := store.ParseCondKey(c.Cond)
			if err != nil {
				continue // written by a later release: not rankable here
			}
			b = &best{cell: c, cond: cond}
			byCond[c.Cond] = b
			keys = append(keys, c.Cond)
		}
		if c.Runs > b.cell.Runs {
			b.cell = c
		}
	}
	// Most runs first; at equal counts the conditions of finite rates before those of
	// rate inf (a burst of N requests), which hold one cell each.
	slices.SortStableFunc(keys, func(a, b string) int {
		if d := byCond[b].cell.Runs - byCond[a].cell.Runs; d != 0 {
			return d
		}
		return cmpBool(byCond[a].cell.Level == store.RateInf, byCond[b].cell.Level == store.RateInf)
	})
	var out []condOption
	for _, k := range keys {
		b := byCond[k]
		at := board.Cell{Metric: sel.Metric, Context: b.cell.Context, Level: b.cell.Level, Cond: b.cond}
		out = append(out, condOption{Label: board.CondLabel(lang, b.cond), URL: u.EscapedPath() + "?" + at.Query(u.Query()).Encode(),
			Runs: b.cell.Runs, Cell: at.ShortLabel(lang), Selected: k == sel.Cond.Key()})
	}
	return out
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
