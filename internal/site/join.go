package site

import (
	"io"

	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/calc"
)

// htmlReport renders run pages with internal/report's HTML body.
type htmlReport struct{}

// Body writes the report page's content for the site's layout.
func (htmlReport) Body(w io.Writer, run *rundoc.Run, lang string) error {
	return report.HTMLBody(w, run, lang)
}

// Styles is the CSS the body needs.
func (htmlReport) Styles() string { return string(report.HTMLStyles()) }

// Wired is opt as "llmbench serve" runs the site: with the report renderer, and the
// catalog and calculator of internal/perf where opt has none. A catalog that does not
// load leaves the calculator off (the page says so) rather than stopping the site.
func Wired(opt Options) Options {
	if opt.Report == nil {
		opt.Report = htmlReport{}
	}
	if opt.Calculator == nil || opt.Catalog == nil {
		p, err := calc.NewPerf()
		if err != nil {
			if opt.Logger != nil {
				opt.Logger.Warn("decode calculator off", "err", err)
			}
			return opt
		}
		if opt.Calculator == nil {
			opt.Calculator = p
		}
		if opt.Catalog == nil {
			opt.Catalog = p
		}
	}
	return opt
}
