package site

import (
	"math"
	"net/url"

	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/site/board"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/wire"
	"github.com/llmbench/llmbench/internal/stats"
)

// The leaderboard ranks honestly: each entry carries its value's 95% interval where
// the run document has one (bounds.go), and an entry whose interval overlaps the one
// above is a tie with it — the two cannot be told apart at the noise they measured.
// An entry without an interval (a document from before intervals) ties with nothing.

// plusMinusText writes an entry's interval for the page: "± 0.6" (the larger distance from
// the value to an end), "" without one.
func plusMinusText(lang string, v float64, iv *stats.Interval, decimals int) string {
	if iv == nil {
		return ""
	}
	return "± " + report.FormatNumber(lang, math.Max(v-iv.Low, iv.High-v), decimals)
}

func markJSON(e *wire.Entry, m board.Mark, cell board.Cell) {
	e.TiedWithPrevious = m.Tied
	if m.CI != nil {
		iv := m.CI.Round(cell.Metric.Decimals + 1)
		e.CI = &iv
	}
	if m.Runs > 1 {
		e.Runs, e.Spread, e.RunIDs = m.Runs, m.Spread, m.RunIDs
	}
}

// applyMarks writes the marks into the page's entries (ranked holds their values).
func applyMarks(entries []boardEntry, ranked []store.RankedRun, marks []board.Mark, cell board.Cell, lang string) {
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
	if board.Grouped(v) {
		v.Del("group")
	} else {
		v.Set("group", "setup")
	}
	v.Del("offset")
	return u.EscapedPath() + "?" + v.Encode()
}
