package site

import (
	"cmp"
	"context"
	"math"
	"net/url"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/stats"
)

// The leaderboard ranks honestly: each entry carries its value's 95% interval where
// the run document has one (bounds.go), and an entry whose interval overlaps the one
// above is a tie with it — the two cannot be told apart at the noise they measured.
// An entry without an interval (a document from before intervals) ties with nothing.

// rankMark is what ranking adds to an entry: its interval and whether it ties with
// the entry above. Runs and Spread describe a grouped entry (several submissions of
// one setup): how many runs it stands for and the range of their values.
type rankMark struct {
	CI     *stats.Interval
	Tied   bool
	Runs   int
	Spread *stats.Interval
	RunIDs []string
}

// boundOf is the interval of run id's value at the ranked cell.
func boundOf(b map[string]runBounds, id string, cell cellSel) *stats.Interval {
	cq := cell.store(store.Query{})
	iv, ok := b[id][boundKey{cell.Metric.Name, cq.Context, cq.Level, cq.Cond}]
	if !ok {
		return nil
	}
	return &iv
}

// markTies gives every ranked run its interval and tie with the run above; prev is
// the run ranked just above the page (nil on the first page).
func (s *Server) markTies(ctx context.Context, cell cellSel, ranked []store.RankedRun, prev *store.RankedRun) []rankMark {
	ids := make([]string, 0, len(ranked)+1)
	for _, r := range ranked {
		ids = append(ids, r.ID)
	}
	if prev != nil {
		ids = append(ids, prev.ID)
	}
	b := s.bounds(ctx, ids)
	marks := make([]rankMark, len(ranked))
	var above *stats.Interval
	if prev != nil {
		above = boundOf(b, prev.ID, cell)
	}
	for i, r := range ranked {
		marks[i].CI = boundOf(b, r.ID, cell)
		marks[i].Tied = tied(above, marks[i].CI)
		above = marks[i].CI
	}
	return marks
}

// tied says two entries' intervals overlap; an entry without one ties with nothing.
func tied(above, this *stats.Interval) bool {
	return above != nil && this != nil && above.Overlaps(*this)
}

// runAbove is the run ranked just above the page at q's offset, nil on the first page.
func (s *Server) runAbove(ctx context.Context, cell cellSel, q store.Query) *store.RankedRun {
	if q.Offset <= 0 {
		return nil
	}
	q.Offset, q.Limit = q.Offset-1, 1
	rows, err := s.store.RankByCell(ctx, cell.store(q))
	if err != nil || len(rows) == 0 {
		if err != nil {
			s.log.Warn("reading the run above the page", "err", err)
		}
		return nil
	}
	return &rows[0]
}

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
func (s *Server) groupBySetup(ctx context.Context, cell cellSel, ranked []store.RankedRun) ([]store.RankedRun, []rankMark) {
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
	b := s.bounds(ctx, ids)
	var out []store.RankedRun
	var marks []rankMark
	for _, k := range order {
		g := groups[k]
		med := g[(len(g)-1)/2] // ranked best first: the median rank is the median value
		m := rankMark{Runs: len(g), CI: boundOf(b, med.ID, cell)}
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
	sortedRuns, sortedMarks := make([]store.RankedRun, len(out)), make([]rankMark, len(out))
	for i, j := range idx {
		sortedRuns[i], sortedMarks[i] = out[j], marks[j]
	}
	for i := range sortedMarks {
		if i > 0 {
			sortedMarks[i].Tied = tied(sortedMarks[i-1].CI, sortedMarks[i].CI)
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

// groupedSetups says the ranking asks for one entry per setup (?group=setup).
func groupedSetups(v url.Values) bool { return v.Get("group") == "setup" }

// maxGrouped is how many ranked runs a grouped ranking reads to group.
const maxGrouped = 500

// rankGrouped ranks one page of setups: the best maxGrouped runs grouped, then the
// page's slice of the groups (next is -1 on the last page).
func (s *Server) rankGrouped(ctx context.Context, cell cellSel, q store.Query) ([]store.RankedRun, []rankMark, int, error) {
	all := q
	all.Offset, all.Limit = 0, maxGrouped
	rows, err := s.store.RankByCell(ctx, cell.store(all))
	if err != nil {
		return nil, nil, -1, err
	}
	runs, marks := s.groupBySetup(ctx, cell, rows)
	start := min(q.Offset, len(runs))
	end := min(start+q.Limit, len(runs))
	next := -1
	if end < len(runs) {
		next = end
	}
	return runs[start:end], marks[start:end], next, nil
}

// plusMinus writes an entry's interval for the page: "± 0.6" (the larger distance from
// the value to an end), "" without one.
func plusMinusText(lang string, v float64, iv *stats.Interval, decimals int) string {
	if iv == nil {
		return ""
	}
	return "± " + report.FormatNumber(lang, math.Max(v-iv.Low, iv.High-v), decimals)
}

// entryMarks are an API entry's interval and tie (and a grouped setup's runs).
type entryMarks struct {
	CI               *stats.Interval `json:"ci,omitempty"`
	TiedWithPrevious bool            `json:"tied_with_previous"`
	Runs             int             `json:"runs,omitempty"`
	Spread           *stats.Interval `json:"spread,omitempty"`
	RunIDs           []string        `json:"run_ids,omitempty"`
}

func markJSON(e *entryJSON, m rankMark, cell cellSel) {
	e.TiedWithPrevious = m.Tied
	if m.CI != nil {
		iv := m.CI.Round(cell.Metric.Decimals + 1)
		e.CI = &iv
	}
	if m.Runs > 1 {
		e.Runs, e.Spread, e.RunIDs = m.Runs, m.Spread, m.RunIDs
	}
}

// rankMarked ranks one page, every run or one entry per setup (?group=setup), with
// each entry's interval and tie.
func (s *Server) rankMarked(ctx context.Context, cell cellSel, q store.Query, v url.Values) ([]store.RankedRun, []rankMark, int, error) {
	if groupedSetups(v) {
		return s.rankGrouped(ctx, cell, q)
	}
	ranked, next, err := s.rankPage(ctx, cell, q)
	if err != nil {
		return nil, nil, -1, err
	}
	return ranked, s.markTies(ctx, cell, ranked, s.runAbove(ctx, cell, q)), next, nil
}

// applyMarks writes the marks into the page's entries (ranked holds their values).
func applyMarks(entries []boardEntry, ranked []store.RankedRun, marks []rankMark, cell cellSel, lang string) {
	for i := range entries {
		if i >= len(marks) || i >= len(ranked) {
			return
		}
		m, e := marks[i], &entries[i]
		e.Tied, e.Runs = m.Tied, m.Runs
		if m.CI != nil {
			e.CI = plusMinusText(lang, ranked[i].Value, m.CI, cell.Metric.Decimals)
		}
		if m.Spread != nil {
			e.Spread = report.FormatNumber(lang, m.Spread.Low, cell.Metric.Decimals) + "–" + report.FormatNumber(lang, m.Spread.High, cell.Metric.Decimals)
		}
	}
}

// groupToggle is the page's link between every run and one entry per setup.
func groupToggle(u *url.URL) string {
	v := u.Query()
	if groupedSetups(v) {
		v.Del("group")
	} else {
		v.Set("group", "setup")
	}
	v.Del("offset")
	return u.EscapedPath() + "?" + v.Encode()
}

// withCellCI gives a matrix cell its interval, and says it on hover.
func withCellCI(cv *cellView, c *bench.DecodeCell, lang string) {
	if c.CellIntervals == nil || c.TotalTokSCI == nil {
		return
	}
	cv.ci = c.TotalTokSCI
	cv.Title = T(lang, "cell_ci", report.FormatNumber(lang, c.TotalTokSCI.Low, 1)+"–"+report.FormatNumber(lang, c.TotalTokSCI.High, 1))
}

// markNoise says whether a compared cell's difference from the base run's is beyond
// the noise: only where both have intervals, and it is when they do not overlap.
func markNoise(c *cellView, base cellView) {
	if c.ci == nil || base.ci == nil {
		return
	}
	if c.ci.Overlaps(*base.ci) {
		c.DiffClass = strings.TrimSpace(c.DiffClass + " noise")
		c.Diff += " ≈"
		c.DiffTitle = "diff_noise"
		return
	}
	c.DiffTitle = "diff_real"
}
