package board

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/stats"
)

// Several submissions of one setup can rank as one entry (?group=setup): the
// leaderboard then says how one setup performs, with the spread of its runs, rather
// than listing the same machine five times.

// setupKey is what makes two submissions the same setup: GPU (and how many), engine
// and its version, model, quantization and plan (profile).
type setupKey struct {
	gpu                   string
	gpus                  int
	engine, version       string
	model, quant, profile string
}

func setupOf(r store.RunRecord) setupKey {
	return setupKey{r.GPU, r.GPUCount, r.Engine, r.EngineVersion, r.Model, r.Quantization, r.Profile}
}

// groupBySetup makes one entry of the runs of each setup, in ranked (best-first)
// order: the run with the median value stands for the group, with the interval over
// the runs' values (t, n − 1 degrees of freedom, widened to hold the median) and their
// range. A setup with one run keeps its own interval.
func (b *Board) groupBySetup(ctx context.Context, cell Cell, ranked []store.RankedRun) ([]store.RankedRun, []Mark) {
	order := []setupKey{}
	groups := map[setupKey][]store.RankedRun{}
	for _, r := range ranked {
		k := setupOf(r.RunRecord)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	ids := make([]string, 0, len(ranked))
	for _, r := range ranked {
		ids = append(ids, r.ID)
	}
	bs := b.bounds(ctx, ids)
	var out []store.RankedRun
	var marks []Mark
	for _, k := range order {
		g := groups[k]
		med := g[(len(g)-1)/2] // ranked best first: the median rank is the median value
		m := Mark{Runs: len(g), CI: boundOf(bs, med.ID, cell)}
		for _, r := range g {
			m.RunIDs = append(m.RunIDs, r.ID)
		}
		if len(g) >= 2 {
			vals := make([]float64, len(g))
			for i, r := range g {
				vals[i] = r.Value
			}
			lo, hi := slices.Min(vals), slices.Max(vals)
			m.Spread = &stats.Interval{Low: lo, High: hi}
			m.CI = overRuns(vals, med.Value)
		}
		out = append(out, med)
		marks = append(marks, m)
	}
	// The median of a group can rank differently from its best run.
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, c int) int {
		if cell.Metric.LowerIsBetter {
			return cmp.Compare(out[a].Value, out[c].Value)
		}
		return cmp.Compare(out[c].Value, out[a].Value)
	})
	sortedRuns, sortedMarks := make([]store.RankedRun, len(out)), make([]Mark, len(out))
	for i, j := range idx {
		sortedRuns[i], sortedMarks[i] = out[j], marks[j]
	}
	for i := range sortedMarks {
		if i > 0 {
			sortedMarks[i].Tied = Tied(sortedMarks[i-1].CI, sortedMarks[i].CI)
		}
	}
	return sortedRuns, sortedMarks
}

// overRuns is the t interval over several runs' values, widened to hold the median.
func overRuns(v []float64, median float64) *stats.Interval {
	mean, sd := stats.MeanSD(v)
	h := stats.TQuantile(len(v)-1) * sd / math.Sqrt(float64(len(v)))
	return &stats.Interval{Low: math.Min(mean-h, median), High: math.Max(mean+h, median)}
}

// maxGrouped is how many ranked runs a grouped ranking reads to group.
const maxGrouped = 500

// rankGrouped ranks one page of setups: the best maxGrouped runs grouped, then the
// page's slice of the groups (next is -1 on the last page).
func (b *Board) rankGrouped(ctx context.Context, cell Cell, q store.Query) ([]store.RankedRun, []Mark, int, error) {
	all := q
	all.Offset, all.Limit = 0, maxGrouped
	rows, err := b.store.RankByCell(ctx, cell.Store(all))
	if err != nil {
		return nil, nil, -1, err
	}
	runs, marks := b.groupBySetup(ctx, cell, rows)
	start := min(q.Offset, len(runs))
	end := min(start+q.Limit, len(runs))
	next := -1
	if end < len(runs) {
		next = end
	}
	return runs[start:end], marks[start:end], next, nil
}
