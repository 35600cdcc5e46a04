// Package site is the llmbench web site and its JSON API, served by "llmbench serve":
// the leaderboard (ranked by any cell of the matrix, or by an open-loop rate cell under
// the conditions it was measured under: ratecells.go), every run's page (beside what
// the calculator predicts for it), hardware, models and model families with their
// trade-off charts, compare (rate runs' cells side by side: ratecompare.go), the
// decode calculator, benchmark profiles, organisations
// and people, written reports and the docs, in English and Japanese; and the API that
// "llmbench submit" posts runs to.
//
// Everything submitted is untrusted, and so is every address: pages are html/template
// (escaped by context), Markdown is sanitised, a request's path and query are checked
// as text before anything is looked up, the API checks every document against schema
// v1 (and for what parsers read differently), limits body sizes and rate-limits each
// token and address (in the database, across instances, on PostgreSQL), and a bad
// submission changes nothing. All SQL lives in the store subpackage; this package only
// handles HTTP.
package site

import (
	"embed"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/board"
	"github.com/llmbench/llmbench/internal/site/calc"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/wire"
)

//go:embed templates static
var assets embed.FS

// Catalog gives the specifications of GPUs and models, by the names runs use.
type Catalog interface {
	GPUSpecs(name string) ([]wire.Spec, bool)
	ModelSpecs(name string) ([]wire.Spec, bool)
}

// ReportRenderer writes a run's report page body (the HTML report's content, without
// <html>/<head>) and the CSS it needs, so the run page can show the full report inside
// the site's layout.
type ReportRenderer interface {
	Body(w io.Writer, run *rundoc.Run, lang string) error
	Styles() string
}

// Options configure a Server. Store is required; the rest have defaults.
type Options struct {
	Store      *store.Store
	Logger     *slog.Logger
	Calculator calc.Calculator // nil: the calculator page says it is unavailable
	Catalog    Catalog         // nil: specs come from submitted runs only
	Report     ReportRenderer  // nil: run pages show the site's own matrix view

	MaxBodyBytes int64         // largest run document accepted; default 4 MiB
	RatePerToken float64       // submissions per minute per token; default 30
	RateBurst    int           // default 10
	FacetTTL     time.Duration // how long filter values are cached; default 10 s
	// PageTTL is how long a whole page or API answer is kept for other readers
	// (pagecache.go); default 10 s, negative keeps none. This instance's own writes
	// show at once; another instance's, within PageTTL.
	PageTTL time.Duration
	// RatePerIP limits every request from one client address, per minute (with
	// BurstPerIP at once); 0 leaves requests unlimited, as behind a proxy that limits.
	RatePerIP  float64
	BurstPerIP int // default 60
	// TrustProxy takes the client address from the last X-Forwarded-For entry (the one
	// the site's own reverse proxy adds) instead of the connection's.
	TrustProxy bool
}

// contentSecurityPolicy allows no inline script, so that submitted text can never run
// as code even if something escaped the templates' escaping.
const contentSecurityPolicy = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

// Server serves the site.
type Server struct {
	opt   Options
	store *store.Store
	log   *slog.Logger
	pages map[string]*pageTemplate
	// guards are the limits pages and the API share (rate limits, body slots and
	// timeouts, API tokens).
	guards  *guard.Guards
	mux     *http.ServeMux
	calc    *calc.Service // the calculator through its cache; nil when there is none
	board   *board.Board  // the ranking, and the store's answers it keeps
	answers *pageCache    // whole answers to GET requests; nil when off

}

// New makes a Server.
func New(opt Options) (*Server, error) {
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.MaxBodyBytes <= 0 {
		opt.MaxBodyBytes = 4 << 20
	}
	if opt.RatePerToken <= 0 {
		opt.RatePerToken = 30
	}
	if opt.RateBurst <= 0 {
		opt.RateBurst = 10
	}
	if opt.FacetTTL <= 0 {
		opt.FacetTTL = 10 * time.Second
	}
	if opt.PageTTL == 0 {
		opt.PageTTL = 10 * time.Second
	}
	pages, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	if opt.BurstPerIP <= 0 {
		opt.BurstPerIP = 60
	}
	srv := &Server{opt: opt, store: opt.Store, log: opt.Logger, pages: pages,
		guards: guard.New(opt.Store, opt.Logger, guard.Config{MaxBodyBytes: opt.MaxBodyBytes, RatePerToken: opt.RatePerToken, RateBurst: opt.RateBurst,
			RatePerIP: opt.RatePerIP, BurstPerIP: opt.BurstPerIP, TrustProxy: opt.TrustProxy}),
		calc: calc.NewService(opt.Calculator), board: board.New(opt.Store, opt.Logger, opt.FacetTTL)}
	if opt.PageTTL > 0 {
		srv.answers = newPageCache(opt.PageTTL, pageCacheBytes)
	}
	return srv, nil
}

// route is one pattern of the site's router and its handler.
type route struct {
	pattern string
	handler http.HandlerFunc
}

// routes are every pattern the site answers: the router is built from them, and the
// API reference's test checks that it documents each one under /api/v1.
func (s *Server) routes() []route {
	return []route{
		// Pages.
		{"GET /{$}", s.leaderboard},
		{"GET /leaderboard", s.leaderboard},
		{"GET /getting-started", s.static("start")},
		{"GET /docs", s.static("docs")},
		{"GET /api", s.apiReference},
		{"GET /runs", s.runList},
		{"GET /runs/{id}", s.runPage},
		{"GET /compare", s.compare},
		{"GET /hardware", s.hardwareList},
		{"GET /hardware/{name...}", s.hardwarePage},
		{"GET /models", s.modelList},
		{"GET /models/{name...}", s.modelPage},
		{"GET /calculator", s.calculator},
		{"GET /benchmarks", s.benchmarks},
		{"GET /orgs", s.orgList},
		{"GET /orgs/{name}", s.orgPage},
		{"GET /reports", s.reportList},
		{"GET /reports/new", s.reportForm},
		{"POST /reports/new", s.reportFormSubmit},
		{"GET /reports/{slug}", s.reportPage},
		{"GET /families", s.familyList},
		{"GET /families/{name...}", s.familyPage},
		{"GET /submitters/{name}", s.submitterPage},
		{"GET /authors/{name}", s.authorPage},
		{"GET /static/{file}", s.staticFile},
		{"GET /favicon.ico", s.favicon},
		{"GET /robots.txt", s.robots},
		{"GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") }},
		// API.
		{"GET /api/openapi.json", s.openAPI},
		{"POST /api/v1/runs", s.apiSubmitRun},
		{"GET /api/v1/runs", s.apiListRuns},
		{"GET /api/v1/runs/{id}", s.apiGetRun},
		{"GET /api/v1/runs/{id}/capacity", s.apiRunCapacity},
		{"GET /api/v1/hardware", s.apiHardware},
		{"GET /api/v1/models", s.apiModels},
		{"POST /api/v1/reports", s.apiSubmitReport},
		{"GET /api/v1/reports", s.apiListReports},
		{"GET /api/v1/leaderboard", s.apiLeaderboard},
		{"GET /api/v1/predict", s.apiPredict},
		{"GET /api/v1/families", s.apiFamilies},
		{"/", s.noRoute},
	}
}

// Handler returns the site's routes, wrapped in logging, recovery and security headers.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range s.routes() {
		mux.HandleFunc(rt.pattern, rt.handler)
	}
	s.mux = mux
	return s.middleware(s.cachePages(mux))
}

// cachePages answers what may be kept from the page cache (pagecache.go).
func (s *Server) cachePages(next http.Handler) http.Handler {
	if s.answers == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !cacheable(r) {
			next.ServeHTTP(w, r)
			return
		}
		s.answers.serve(w, r, next, s.store.Writes())
	})
}

func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		if s.guards.PerIP != nil && r.URL.Path != "/healthz" {
			if ok, wait := s.guards.PerIP.Allow(r.Context(), s.guards.ClientAddr(r)); !ok {
				tooMany(rec, wait, "too many requests from this address")
				return
			}
		}
		if ferr := guard.CheckRequest(r); ferr != nil {
			s.badRequest(rec, r, ferr)
			return
		}
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("panic serving request", "path", r.URL.Path, "panic", p)
				if !rec.wrote {
					http.Error(rec, "internal error", http.StatusInternalServerError)
				}
			}
			s.log.Debug("request", "method", r.Method, "path", r.URL.Path, "status", rec.status, "dur", time.Since(start))
		}()
		next.ServeHTTP(rec, r)
	})
}

// tooMany writes a 429 with Retry-After and a JSON error body.
func tooMany(w http.ResponseWriter, wait time.Duration, why string) {
	secs := setRetryAfter(w, wait)
	wire.WriteError(w, http.StatusTooManyRequests, "", fmt.Sprintf("%s; try again in %d s", why, secs))
}

// setRetryAfter sets Retry-After to wait, rounded up to whole seconds, and returns them.
func setRetryAfter(w http.ResponseWriter, wait time.Duration) int {
	secs := int(math.Ceil(wait.Seconds()))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	return secs
}

type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (r *statusRecorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection (a body's read deadline).
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(b)
}
