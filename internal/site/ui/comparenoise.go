package ui

import (
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// withCellCI gives a matrix cell its interval, and says it on hover.
func withCellCI(cv *cellView, c *rundoc.DecodeCell, lang string) {
	if c.CellIntervals == nil || c.TotalTokSCI == nil {
		return
	}
	cv.ci = c.TotalTokSCI
	cv.Title = locale.T(lang, "cell_ci", report.FormatNumber(lang, c.TotalTokSCI.Low, 1)+"–"+report.FormatNumber(lang, c.TotalTokSCI.High, 1))
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
