package site

import (
	"context"
	"math"
	"net/url"

	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/wire"
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
	iv, ok := b[id].ci[boundKey{cell.Metric.Name, cq.Context, cq.Level, cq.Cond}]
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

// plusMinusText writes an entry's interval for the page: "± 0.6" (the larger distance from
// the value to an end), "" without one.
func plusMinusText(lang string, v float64, iv *stats.Interval, decimals int) string {
	if iv == nil {
		return ""
	}
	return "± " + report.FormatNumber(lang, math.Max(v-iv.Low, iv.High-v), decimals)
}

func markJSON(e *wire.Entry, m rankMark, cell cellSel) {
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
