// Package site is the llmbench web site and its JSON API, served by "llmbench serve",
// as one http.Handler: it wires the packages that do the work together and holds
// nothing else. The pages are internal/site/ui's, one file per page (the leaderboard,
// every run's page beside what the calculator predicts for it, hardware, models and
// model families, compare, the decode calculator, benchmark profiles, organisations
// and people, written reports, the docs), in English and Japanese; the JSON API that
// "llmbench submit" (internal/site/client) posts runs to is internal/site/api's, its
// answers internal/site/wire's types. Ranking is internal/site/board's, the
// calculator internal/site/calc's, and what stands between the site and what comes
// in — every address checked as text, every document checked against schema v1 and
// for what parsers read differently, body sizes, rate limits per token and address
// (in the database across instances, on PostgreSQL), API tokens — is
// internal/site/guard's. internal/site/pagecache keeps whole answers; all SQL lives
// in internal/site/store. Here: the options, the route table, the middleware
// (security headers, the limit per address, recovery), and serving (serve.go) and
// API tokens (tokens.go) for the command line.
package site

import (
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/llmbench/llmbench/internal/site/api"
	"github.com/llmbench/llmbench/internal/site/board"
	"github.com/llmbench/llmbench/internal/site/calc"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/pagecache"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/ui"
)

// Options configure a Server. Store is required; the rest have defaults.
type Options struct {
	Store      *store.Store
	Logger     *slog.Logger
	Calculator calc.Calculator   // nil: the calculator page says it is unavailable
	Catalog    calc.Catalog      // nil: specs come from submitted runs only
	Report     ui.ReportRenderer // nil: run pages show the site's own matrix view

	MaxBodyBytes int64         // largest run document accepted; default 4 MiB
	RatePerToken float64       // submissions per minute per token; default 30
	RateBurst    int           // default 10
	FacetTTL     time.Duration // how long filter values are cached; default 10 s
	// PageTTL is how long a whole page or API answer is kept for other readers
	// (internal/site/pagecache); default 10 s, negative keeps none. This instance's
	// own writes show at once; another instance's, within PageTTL.
	PageTTL time.Duration
	// RatePerIP limits every request from one client address, per minute (with
	// BurstPerIP at once); 0 leaves requests unlimited, as behind a proxy that limits.
	RatePerIP  float64
	BurstPerIP int // default 60
	// TrustProxy takes the client address from the last X-Forwarded-For entry (the one
	// the site's own reverse proxy adds) instead of the connection's.
	TrustProxy bool
}

// Server serves the site.
type Server struct {
	store *store.Store
	log   *slog.Logger
	// guards are the limits pages and the API share (rate limits, body slots and
	// timeouts, API tokens).
	guards  *guard.Guards
	pages   *ui.Pages
	api     *api.API
	answers *pagecache.Cache // whole answers to GET requests; nil when off
	mux     *http.ServeMux
}

// New makes a Server.
func New(opt Options) (*Server, error) {
	opt = withDefaults(opt)
	g := guard.New(opt.Store, opt.Logger, guard.Config{MaxBodyBytes: opt.MaxBodyBytes, RatePerToken: opt.RatePerToken, RateBurst: opt.RateBurst,
		RatePerIP: opt.RatePerIP, BurstPerIP: opt.BurstPerIP, TrustProxy: opt.TrustProxy})
	b, c := board.New(opt.Store, opt.Logger, opt.FacetTTL), calc.NewService(opt.Calculator)
	a := api.New(api.Config{Store: opt.Store, Log: opt.Logger, Board: b, Calc: c, Catalog: opt.Catalog, Guards: g})
	pages, err := ui.New(ui.Config{Store: opt.Store, Log: opt.Logger, Board: b, Calc: c, Catalog: opt.Catalog, Report: opt.Report, Guards: g, API: a})
	if err != nil {
		return nil, err
	}
	srv := &Server{store: opt.Store, log: opt.Logger, guards: g, pages: pages, api: a}
	if opt.PageTTL > 0 {
		srv.answers = pagecache.New(opt.PageTTL, pagecache.Bytes)
	}
	return srv, nil
}

// withDefaults fills in the options left out.
func withDefaults(opt Options) Options {
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
	if opt.BurstPerIP <= 0 {
		opt.BurstPerIP = 60
	}
	return opt
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
		{"GET /{$}", s.pages.Leaderboard},
		{"GET /leaderboard", s.pages.Leaderboard},
		{"GET /getting-started", s.pages.Static("start")},
		{"GET /docs", s.pages.Static("docs")},
		{"GET /api", s.pages.APIReference},
		{"GET /runs", s.pages.RunList},
		{"GET /runs/{id}", s.pages.RunPage},
		{"GET /compare", s.pages.Compare},
		{"GET /against", s.pages.AgainstForm},
		{"POST /against", s.pages.AgainstUpload},
		{"GET /hardware", s.pages.HardwareList},
		{"GET /hardware/{name...}", s.pages.HardwarePage},
		{"GET /models", s.pages.ModelList},
		{"GET /models/{name...}", s.pages.ModelPage},
		{"GET /history", s.pages.History},
		{"GET /calculator", s.pages.Calculator},
		{"GET /benchmarks", s.pages.Benchmarks},
		{"GET /orgs", s.pages.OrgList},
		{"GET /orgs/{name}", s.pages.OrgPage},
		{"GET /reports", s.pages.ReportList},
		{"GET /reports/new", s.pages.ReportForm},
		{"POST /reports/new", s.pages.ReportFormSubmit},
		{"GET /reports/{slug}", s.pages.ReportPage},
		{"GET /families", s.pages.FamilyList},
		{"GET /families/{name...}", s.pages.FamilyPage},
		{"GET /submitters/{name}", s.pages.SubmitterPage},
		{"GET /authors/{name}", s.pages.AuthorPage},
		{"GET /static/{file}", s.pages.StaticFile},
		{"GET /favicon.ico", s.pages.Favicon},
		{"GET /robots.txt", s.pages.Robots},
		{"GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") }},
		// API.
		{"GET /api/openapi.json", s.api.OpenAPI},
		{"POST /api/v1/runs", s.api.SubmitRun},
		{"GET /api/v1/runs", s.api.ListRuns},
		{"GET /api/v1/runs/{id}", s.api.GetRun},
		{"GET /api/v1/runs/{id}/capacity", s.api.RunCapacity},
		{"GET /api/v1/hardware", s.api.Hardware},
		{"GET /api/v1/models", s.api.Models},
		{"POST /api/v1/reports", s.api.SubmitReport},
		{"GET /api/v1/reports", s.api.ListReports},
		{"GET /api/v1/leaderboard", s.api.Leaderboard},
		{"GET /api/v1/predict", s.api.Predict},
		{"GET /api/v1/families", s.api.Families},
		{"GET /api/v1/history", s.api.History},
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

// cachePages answers what may be kept from the page cache.
func (s *Server) cachePages(next http.Handler) http.Handler {
	if s.answers == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !pagecache.Cacheable(r) {
			next.ServeHTTP(w, r)
			return
		}
		s.answers.Serve(w, r, next, s.store.Writes())
	})
}

func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Content-Security-Policy", ui.ContentSecurityPolicy)
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		if s.guards.PerIP != nil && r.URL.Path != "/healthz" {
			if ok, wait := s.guards.PerIP.Allow(r.Context(), s.guards.ClientAddr(r)); !ok {
				guard.TooMany(rec, wait, "too many requests from this address")
				return
			}
		}
		if ferr := guard.CheckRequest(r); ferr != nil {
			s.pages.BadRequest(rec, r, ferr)
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
