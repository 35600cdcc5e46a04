package site

import (
	"github.com/llmbench/llmbench/internal/site/calc"
	"github.com/llmbench/llmbench/internal/site/ui"
)

// Wired is opt as "llmbench serve" runs the site: with the report renderer, and the
// catalog and calculator of internal/perf where opt has none. A catalog that does not
// load leaves the calculator off (the page says so) rather than stopping the site.
func Wired(opt Options) Options {
	if opt.Report == nil {
		opt.Report = ui.HTMLReport{}
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
