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
	"context"
	"embed"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/memo"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store"
)

//go:embed templates static
var assets embed.FS

// Spec is one labelled specification of a GPU or model ("Memory bandwidth", "936 GB/s").
// Key names the label among the site's texts ("spec_<key>"), so that pages show it in
// their language; Label is the English, for the API and any key the site lacks.
type Spec struct {
	Key   string `json:"key,omitempty"`
	Label string `json:"label"`
	Value string `json:"value"`
}

// Catalog gives the specifications of GPUs and models, by the names runs use.
type Catalog interface {
	GPUSpecs(name string) ([]Spec, bool)
	ModelSpecs(name string) ([]Spec, bool)
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
	Calculator Calculator     // nil: the calculator page says it is unavailable
	Catalog    Catalog        // nil: specs come from submitted runs only
	Report     ReportRenderer // nil: run pages show the site's own matrix view

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

// srvLimiter is a limit shared by every instance when the database is PostgreSQL (the
// one that several instances can share), in memory otherwise.
func srvLimiter(opt Options, prefix string, perSec float64, burst int) limiter {
	if opt.Store != nil && opt.Store.Dialect() == store.Postgres {
		return &sharedLimiter{st: opt.Store, prefix: prefix, perSec: perSec, burst: burst, now: time.Now, log: opt.Logger}
	}
	return newRateLimiter(perSec, burst)
}

// Failed authentications allowed per client address: a token is 256 random bits, so
// guessing is hopeless anyway; the limit keeps junk requests from costing a lookup each.
const (
	authFailuresPerMin = 10
	authFailureBurst   = 10
)

// contentSecurityPolicy allows no inline script, so that submitted text can never run
// as code even if something escaped the templates' escaping.
const contentSecurityPolicy = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

// Server serves the site.
type Server struct {
	opt   Options
	store *store.Store
	log   *slog.Logger
	pages map[string]*pageTemplate
	limit limiter
	// authFail limits failed authentications per client address; perIP (nil when
	// Options.RatePerIP is 0) every request per client address.
	authFail, perIP limiter
	againstLimit    limiter     // uploads to lay over the best, per client address (againstpage.go)
	bodies          *keyedSlots // API request bodies being read at once, per token
	formBodies      *keyedSlots // the report form's (unauthenticated) bodies, per address
	validations     bodySlots   // run documents being checked at once
	// apiTimeout and formTimeout bound the time a body may take (apiReadTimeout,
	// formReadTimeout; shorter in tests).
	apiTimeout, formTimeout time.Duration
	mux                     *http.ServeMux
	predictions             *memo.Cache[cachedPrediction] // the calculator's answers (calc.go)
	best                    *bestCache
	boundsCache             *memo.Cache[runBounds] // leaderboard intervals (bounds.go)
	answers                 *pageCache             // whole answers to GET requests; nil when off

	facetsMu sync.Mutex
	facets   store.Facets
	facetsAt time.Time
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
		limit:        srvLimiter(opt, "tok:", opt.RatePerToken/60, opt.RateBurst),
		authFail:     srvLimiter(opt, "fail:", authFailuresPerMin/60.0, authFailureBurst),
		againstLimit: srvLimiter(opt, "against:", againstPerMin/60.0, againstBurst),
		bodies:       newKeyedSlots(maxBodiesAtOnce, maxBodiesPerToken),
		formBodies:   newKeyedSlots(maxFormBodiesAtOnce, maxFormBodiesPerAddr),
		validations:  make(bodySlots, max(1, runtime.GOMAXPROCS(0))),
		apiTimeout:   apiReadTimeout, formTimeout: formReadTimeout,
		predictions: memo.New[cachedPrediction](512, 0), best: newBestCache(opt.FacetTTL),
		boundsCache: memo.New[runBounds](20000, 0)}
	if opt.PageTTL > 0 {
		srv.answers = newPageCache(opt.PageTTL, pageCacheBytes)
	}
	if opt.RatePerIP > 0 {
		srv.perIP = srvLimiter(opt, "ip:", opt.RatePerIP/60, opt.BurstPerIP)
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
		{"GET /against", s.againstForm},
		{"POST /against", s.againstUpload},
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
		if s.perIP != nil && r.URL.Path != "/healthz" {
			if ok, wait := s.perIP.allow(r.Context(), s.clientAddr(r)); !ok {
				tooMany(rec, wait, "too many requests from this address")
				return
			}
		}
		if ferr := checkRequest(r); ferr != nil {
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

// clientAddr is the address a request came from: the connection's host, or with
// TrustProxy the last X-Forwarded-For entry, which the site's own proxy appended (the
// entries before it are whatever the client claimed).
func (s *Server) clientAddr(r *http.Request) string {
	if s.opt.TrustProxy {
		if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
			parts := strings.Split(xff[len(xff)-1], ",")
			if a := strings.TrimSpace(parts[len(parts)-1]); a != "" {
				return a
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// tooMany writes a 429 with Retry-After and a JSON error body.
func tooMany(w http.ResponseWriter, wait time.Duration, why string) {
	secs := setRetryAfter(w, wait)
	writeAPIError(w, http.StatusTooManyRequests, "", fmt.Sprintf("%s; try again in %d s", why, secs))
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

// cachedFacets returns the leaderboard's filter values, recomputed at most every
// FacetTTL (and at once after this instance stores a run): counting 100,000 rows on
// every page view would cost more than the page itself.
func (s *Server) cachedFacets(ctx context.Context) (store.Facets, error) {
	s.facetsMu.Lock()
	defer s.facetsMu.Unlock()
	if !s.facetsAt.IsZero() && time.Since(s.facetsAt) < s.opt.FacetTTL {
		return s.facets, nil
	}
	f, err := s.store.Facets(ctx)
	if err != nil {
		return f, err
	}
	s.facets, s.facetsAt = f, time.Now()
	return f, nil
}

func (s *Server) invalidateFacets() {
	s.facetsMu.Lock()
	s.facetsAt = time.Time{}
	s.facetsMu.Unlock()
	s.best.forget()
}
