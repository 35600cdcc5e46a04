package ui

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/wire"
)

type pageTemplate struct{ t *template.Template }

var templateFuncs = template.FuncMap{
	"path":     pathEscape,
	"tokens":   rundoc.FormatTokens,
	"add":      func(a, b int) int { return a + b },
	"list":     func(xs ...string) []string { return xs },
	"gpuLabel": gpuLabel,
	// mx, rt and kn pack arguments for the matrix, runtable and kindnote templates.
	"mx": func(p *page, m matrixView) any {
		return struct {
			P *page
			M matrixView
		}{p, m}
	},
	"rt": func(p *page, rows []store.RunRecord, metric string, offset int, check bool) any {
		return struct {
			P      *page
			Rows   []store.RunRecord
			Metric string
			Offset int
			Check  bool
		}{p, rows, metric, offset, check}
	},
	"sizes": func() []store.SizeBucket { return store.SizeBuckets },
	"vs": func(p *page, v *versusView) any {
		return struct {
			P *page
			V *versusView
		}{p, v}
	},
	"cf": func(p *page, f cellForm) any {
		return struct {
			P *page
			F cellForm
		}{p, f}
	},
	"kn": func(p *page, kind string) any {
		return struct {
			P    *page
			Kind string
		}{p, kind}
	},
}

func parseTemplates() (map[string]*pageTemplate, error) {
	base, err := template.New("layout.html").Funcs(templateFuncs).ParseFS(assets, "templates/layout.html", "templates/partials*.html")
	if err != nil {
		return nil, fmt.Errorf("parsing the site layout: %w", err)
	}
	names, err := fs.Glob(assets, "templates/*.html")
	if err != nil {
		return nil, err
	}
	out := map[string]*pageTemplate{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" || strings.HasPrefix(name, "partials") {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(assets, n)
		if err != nil {
			return nil, fmt.Errorf("parsing template %s: %w", n, err)
		}
		out[name] = &pageTemplate{t: t}
	}
	return out, nil
}

// page is what every template gets: the language, the menu, and the page's own data.
type page struct {
	Lang      string
	Title     string
	Nav       string // which menu entry is current
	SwitchURL string // this page in the other language
	OtherLang string
	Data      any
}

// T is the page's text in its language.
func (p *page) T(key string, args ...any) string { return locale.T(p.Lang, key, args...) }

// Num formats a number with grouping.
func (p *page) Num(v float64, decimals int) string { return report.FormatNumber(p.Lang, v, decimals) }

// NumP formats an optional figure ("—" when absent).
func (p *page) NumP(v *float64, decimals int) string {
	if v == nil {
		return "—"
	}
	return report.FormatNumber(p.Lang, *v, decimals)
}

// Int formats a count.
func (p *page) Int(n int) string { return report.FormatInt(p.Lang, n) }

// Int64 formats a large count.
func (p *page) Int64(n int64) string { return report.FormatNumber(p.Lang, float64(n), 0) }

// SpecLabel is a catalog spec's label in the page's language.
func (p *page) SpecLabel(s wire.Spec) string {
	if s.Key != "" {
		if locale.Has("spec_" + s.Key) {
			return locale.T(p.Lang, "spec_"+s.Key)
		}
	}
	return s.Label
}

// SpecValue is a specification's value in the page's language: the site's text for
// the catalog's words ("full" attention), else the value as the catalog has it.
func (p *page) SpecValue(s wire.Spec) string {
	if locale.Has("spec_"+s.Key+"_"+s.Value) && s.Key != "" {
		return locale.T(p.Lang, "spec_"+s.Key+"_"+s.Value)
	}
	return s.Value
}

// KindLabel is "Measured", "Emulated" or "Predicted" in the page's language.
func (p *page) KindLabel(kind string) string { return locale.T(p.Lang, "kind_"+kind) }

// Metric is the value of metric m of a run.
func (p *page) Metric(r store.RunRecord, m string) string {
	switch metric.Metric(m) {
	case metric.MetricPeak:
		return p.NumP(r.PeakTokS, 1)
	case metric.MetricPrefill32K:
		return p.NumP(r.Prefill32KTokS, 0)
	case metric.MetricPerGB:
		return p.NumP(r.TokSPerGB, 2)
	default:
		return p.NumP(r.DecodeTokS, 1)
	}
}

func (s *Pages) render(w http.ResponseWriter, r *http.Request, status int, name, nav, title string, data any) {
	lang := locale.FromRequest(r)
	other := locale.JA
	if lang == locale.JA {
		other = locale.EN
	}
	p := &page{Lang: lang, Title: title, Nav: nav, SwitchURL: withLang(r.URL, other), OtherLang: other, Data: data}
	if p.Title == "" {
		p.Title = locale.T(lang, "nav_"+nav)
		if locale.Has("heading_" + nav) {
			p.Title = locale.T(lang, "heading_"+nav)
		}
	}
	t, ok := s.pages[name]
	if !ok {
		s.log.Error("no such template", "name", name)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := t.t.ExecuteTemplate(&buf, "layout.html", p); err != nil {
		s.log.Error("rendering page", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Language", lang)
	w.Header().Add("Vary", "Cookie, Accept-Language")
	locale.Remember(w, r)
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func (s *Pages) serverError(w http.ResponseWriter, r *http.Request, what string, err error) {
	s.log.Error(what, "err", err, "path", r.URL.Path)
	http.Error(w, "internal error", http.StatusInternalServerError)
}

// found answers a failed lookup — the not-found page for store.ErrNotFound, a server
// error for any other error — and reports whether err is nil, so the page can go on.
func (s *Pages) found(w http.ResponseWriter, r *http.Request, what string, err error) bool {
	switch {
	case err == nil:
		return true
	case errors.Is(err, store.ErrNotFound):
		s.NotFound(w, r)
	default:
		s.serverError(w, r, what, err)
	}
	return false
}

// NotFound answers what is not on the site: the API's error under /api/, else a page.
func (s *Pages) NotFound(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		wire.WriteError(w, http.StatusNotFound, "", "no such API endpoint; see /api/openapi.json")
		return
	}
	s.render(w, r, http.StatusNotFound, "notfound", "", locale.T(locale.FromRequest(r), "not_found"), nil)
}

func pathEscape(s string) string { return url.PathEscape(s) }

// Static shows a page that is its template alone (getting started, the docs).
func (s *Pages) Static(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { s.render(w, r, http.StatusOK, name, name, "", nil) }
}

// withParam returns the request's URL (path and query) with k set to v, as a link
// that stays on this site: the path keeps its escapes (a requested /%2F%2Fevil.com
// must not become //evil.com, which a browser reads as another host).
func withParam(u *url.URL, k, v string) string {
	q := u.Query()
	q.Set(k, v)
	path := u.EscapedPath()
	if !strings.HasPrefix(path, "/") || strings.HasPrefix(path, "//") {
		path = "/" + strings.TrimLeft(path, "/")
	}
	return path + "?" + q.Encode()
}

// withLang returns the request's URL (path and query) with lang set to l.
func withLang(u *url.URL, l string) string { return withParam(u, "lang", l) }

// badRequest answers a request the site cannot read: JSON for the API, a page for
// everything else.
func (s *Pages) BadRequest(w http.ResponseWriter, r *http.Request, ferr *guard.FieldError) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		wire.WriteError(w, http.StatusBadRequest, ferr.Field, ferr.Reason)
		return
	}
	// The page must not echo the address back as it came (it may be what was refused).
	r2 := r.Clone(r.Context())
	r2.URL = &url.URL{Path: "/", RawQuery: "lang=" + locale.FromRequest(r)}
	s.render(w, r2, http.StatusBadRequest, "error", "", locale.T(locale.FromRequest(r), "bad_request"), errorPage{Field: ferr.Field, Reason: ferr.ReasonIn(locale.FromRequest(r))})
}

// errorPage is what the error template shows.
type errorPage struct {
	Field, Reason string
}
