// Package ui is the site's pages, one file each (leaderboard.go, run.go, compare.go,
// calculator.go, groups.go, …), their templates beside them (templates/) and the
// files /static/ serves (static/), in English and Japanese: what they show comes
// from the board's ranking, the calculator, the store and the report package, and
// the report form publishes through the API's own checks (api.PublishReport).
package ui

import (
	"embed"
	"io"
	"log/slog"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/api"
	"github.com/llmbench/llmbench/internal/site/board"
	"github.com/llmbench/llmbench/internal/site/calc"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/store"
)

//go:embed templates static
var assets embed.FS

// ReportRenderer writes a run's report page body (the HTML report's content, without
// <html>/<head>) and the CSS it needs, so the run page can show the full report inside
// the site's layout.
type ReportRenderer interface {
	Body(w io.Writer, run *rundoc.Run, lang string) error
	Styles() string
}

// Pages renders the site's pages.
type Pages struct {
	store   *store.Store
	log     *slog.Logger
	board   *board.Board
	calc    *calc.Service  // nil: the calculator page says it is unavailable
	catalog calc.Catalog   // nil: specs come from submitted runs only
	report  ReportRenderer // nil: run pages show the site's own view of a run
	guards  *guard.Guards
	api     *api.API // the report form publishes as the API does
	pages   map[string]*pageTemplate
}

// Config is what the pages show and how.
type Config struct {
	Store   *store.Store
	Log     *slog.Logger
	Board   *board.Board
	Calc    *calc.Service
	Catalog calc.Catalog
	Report  ReportRenderer
	Guards  *guard.Guards
	API     *api.API
}

// New parses the templates and makes the pages of cfg's site.
func New(cfg Config) (*Pages, error) {
	pages, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	return &Pages{store: cfg.Store, log: cfg.Log, board: cfg.Board, calc: cfg.Calc, catalog: cfg.Catalog, report: cfg.Report,
		guards: cfg.Guards, api: cfg.API, pages: pages}, nil
}

// ContentSecurityPolicy allows no inline script, so that submitted text can never run
// as code even if something escaped the templates' escaping; a run page adds the hashes
// of its report's own scripts (cspWithScripts).
const ContentSecurityPolicy = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
