// Package wire connects the site to the packages that render and predict runs:
// run pages show internal/report's HTML report body, and hardware/model pages and the
// decode calculator use internal/perf's catalog and model. It is kept apart from
// package site so that the site's own handlers and tests depend on neither.
package wire

import (
	"io"

	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site"
)

// Report renders run pages with internal/report's HTML body.
type Report struct{}

// Body writes the report page's content for the site's layout.
func (Report) Body(w io.Writer, run *rundoc.Run, lang string) error {
	return report.HTMLBody(w, run, lang)
}

// Styles is the CSS the body needs.
func (Report) Styles() string { return string(report.HTMLStyles()) }

// Options fills in the report renderer, the catalog and the calculator. A catalog
// that does not load leaves the calculator off (the page says so) rather than
// stopping the site.
func Options(opt site.Options) site.Options {
	if opt.Report == nil {
		opt.Report = Report{}
	}
	if opt.Calculator == nil || opt.Catalog == nil {
		p, err := NewPerf()
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
