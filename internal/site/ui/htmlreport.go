package ui

import (
	"io"

	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// HTMLReport renders run pages with internal/report's HTML body, as "llmbench serve"
// does (site.Wired); a site without it shows its own view of a run.
type HTMLReport struct{}

// Body writes the report page's content for the site's layout.
func (HTMLReport) Body(w io.Writer, run *rundoc.Run, lang string) error {
	return report.HTMLBody(w, run, lang)
}

// Styles is the CSS the body needs.
func (HTMLReport) Styles() string { return string(report.HTMLStyles()) }
