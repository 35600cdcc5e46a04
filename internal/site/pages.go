package site

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
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
func (p *page) T(key string, args ...any) string { return T(p.Lang, key, args...) }

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
func (p *page) SpecLabel(s Spec) string {
	if s.Key != "" {
		if _, ok := messages["spec_"+s.Key]; ok {
			return T(p.Lang, "spec_"+s.Key)
		}
	}
	return s.Label
}

// SpecValue is a specification's value in the page's language: the site's text for
// the catalog's words ("full" attention), else the value as the catalog has it.
func (p *page) SpecValue(s Spec) string {
	if _, ok := messages["spec_"+s.Key+"_"+s.Value]; ok && s.Key != "" {
		return T(p.Lang, "spec_"+s.Key+"_"+s.Value)
	}
	return s.Value
}

// KindLabel is "Measured", "Emulated" or "Predicted" in the page's language.
func (p *page) KindLabel(kind string) string { return T(p.Lang, "kind_"+kind) }

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

func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name, nav, title string, data any) {
	lang := requestLang(r)
	other := LangJA
	if lang == LangJA {
		other = LangEN
	}
	p := &page{Lang: lang, Title: title, Nav: nav, SwitchURL: withLang(r.URL, other), OtherLang: other, Data: data}
	if p.Title == "" {
		p.Title = T(lang, "nav_"+nav)
		if _, ok := messages["heading_"+nav]; ok {
			p.Title = T(lang, "heading_"+nav)
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
	rememberLang(w, r)
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func (s *Server) serverError(w http.ResponseWriter, r *http.Request, what string, err error) {
	s.log.Error(what, "err", err, "path", r.URL.Path)
	http.Error(w, "internal error", http.StatusInternalServerError)
}

// found answers a failed lookup — the not-found page for store.ErrNotFound, a server
// error for any other error — and reports whether err is nil, so the page can go on.
func (s *Server) found(w http.ResponseWriter, r *http.Request, what string, err error) bool {
	switch {
	case err == nil:
		return true
	case errors.Is(err, store.ErrNotFound):
		s.notFound(w, r)
	default:
		s.serverError(w, r, what, err)
	}
	return false
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		writeAPIError(w, http.StatusNotFound, "", "no such API endpoint; see /api/openapi.json")
		return
	}
	s.render(w, r, http.StatusNotFound, "notfound", "", T(requestLang(r), "not_found"), nil)
}

func pathEscape(s string) string { return url.PathEscape(s) }

func (s *Server) static(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { s.render(w, r, http.StatusOK, name, name, "", nil) }
}

// ---- leaderboard and run lists ----

type filterSel struct {
	Metric                             string
	Model, GPU, Engine, Quant, Profile string
	Family, Size                       string
	Mode                               string // matrix, rate or "" (both)
	All                                bool
}

// menuNames sets sel's model, GPU, engine, quantization and family to the names the
// filter menus give them (store.MenuName): a page asked for "?quant=q4_k_m" or
// "?engine=VLLM" filters in any case, and shows the menu's value chosen.
func (s *Server) menuNames(ctx context.Context, sel *filterSel) error {
	for _, f := range []struct {
		dim string
		v   *string
	}{{"model", &sel.Model}, {"gpu", &sel.GPU}, {"engine", &sel.Engine}, {"quantization", &sel.Quant}, {"family", &sel.Family}} {
		if *f.v == "" {
			continue
		}
		name, err := s.store.MenuName(ctx, f.dim, *f.v)
		if err != nil {
			return err
		}
		*f.v = name
	}
	return nil
}

type listData struct {
	Sel              filterSel
	Metrics          []string
	Facets           store.Facets
	Rows             []store.RunRecord
	Offset           int
	PrevURL, NextURL string
	Error            string
}

func (s *Server) listRuns(w http.ResponseWriter, r *http.Request, ranked bool) (*listData, bool) {
	q, ferr := queryFromRequest(r, 200)
	d := &listData{}
	for _, m := range metric.Metrics {
		d.Metrics = append(d.Metrics, string(m))
	}
	if ferr != nil {
		d.Error = ferr.In(requestLang(r))
		q = store.Query{}
	}
	d.Sel = filterSel{Model: q.Model, GPU: q.GPU, Engine: q.Engine, Quant: q.Quantization, Profile: q.Profile,
		Family: q.Family, Size: r.URL.Query().Get("size"), All: r.URL.Query().Get("kind") == "all", Mode: q.Mode}
	if ranked {
		if q.Sort == "" {
			q.Sort = metric.MetricDecode
		}
		d.Sel.Metric = string(q.Sort)
		if len(q.Kinds) == 0 && !d.Sel.All {
			q.Kinds = []string{rundoc.RunMeasured} // emulated and predicted runs stay off the main board
		}
	}
	if q.Limit == 0 {
		q.Limit = 50
	}
	rows, next, err := s.listPage(r.Context(), q)
	if err != nil {
		s.serverError(w, r, "listing runs", err)
		return nil, false
	}
	if next >= 0 {
		d.NextURL = withParam(r.URL, "offset", strconv.Itoa(next))
	}
	if q.Offset > 0 {
		d.PrevURL = withParam(r.URL, "offset", strconv.Itoa(max(0, q.Offset-q.Limit)))
	}
	d.Rows, d.Offset = rows, q.Offset
	if d.Facets, err = s.cachedFacets(r.Context()); err == nil {
		err = s.menuNames(r.Context(), &d.Sel)
	}
	if err != nil {
		s.serverError(w, r, "listing filter values", err)
		return nil, false
	}
	return d, true
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

func (s *Server) runList(w http.ResponseWriter, r *http.Request) {
	d, ok := s.listRuns(w, r, false)
	if ok {
		s.render(w, r, http.StatusOK, "runs", "runs", "", d)
	}
}

// ---- a run, and compare ----

func (s *Server) loadRun(ctx context.Context, id string) (store.RunRecord, *rundoc.Run, error) {
	rec, doc, err := s.store.Run(ctx, id)
	if err != nil {
		return rec, nil, err
	}
	var run rundoc.Run
	if err := json.Unmarshal(doc, &run); err != nil {
		return rec, nil, fmt.Errorf("decoding stored run %s: %w", id, err)
	}
	return rec, &run, nil
}

type runPageData struct {
	runView
	Styles template.CSS
	Versus *versusView
	// Rated: an open-loop run; RateChart its goodput and achieved rate by rate, and
	// RateRows its cells (for the site's own view, without the report body).
	Rated     bool
	RateChart *chartView
	RateRows  []rateRunRow
	// ReportTooLarge: the report body was over maxRunReportBytes, so the page shows
	// the site's own view of the run (runreport.go).
	ReportTooLarge bool
	// Accuracy is the run's evaluations (accuracy.go), shown beside its speed.
	Accuracy template.HTML
	// Against is the run laid over the best of its GPU and model (againstpage.go).
	Against *againstView
}

// rateRunRow is one rate cell of an open-loop run, for the site's own view.
type rateRunRow struct {
	Rate string
	rateCompareCell
}

func (s *Server) runPage(w http.ResponseWriter, r *http.Request) {
	rec, run, err := s.loadRun(r.Context(), r.PathValue("id"))
	if !s.found(w, r, "reading a run", err) {
		return
	}
	lang := requestLang(r)
	d := runPageData{runView: newRunView(rec, run, lang), Versus: s.versus(r.Context(), rec, run, lang), Accuracy: accuracyHTML(run, lang),
		Against: s.runAgainst(r.Context(), run, lang)}
	if d.Rated = metric.ModeOf(run) == metric.ModeRate; d.Rated {
		d.RateChart = rateRunChart(run, lang)
		for i := range run.Rate {
			d.RateRows = append(d.RateRows, rateRunRow{Rate: rateText(lang, run.Rate[i].RateRPS), rateCompareCell: rateCellView(lang, &run.Rate[i])})
		}
	}
	if s.opt.Report != nil {
		// The sentences llmbench wrote into the document, in the page's language; its
		// accuracy the page shows beside the speed figures, not again in the report.
		body, err := s.reportBody(withoutAccuracy(docIn(run, lang)), lang)
		switch {
		case errors.Is(err, errReportTooLarge):
			d.ReportTooLarge = true
		case err != nil:
			s.log.Warn("rendering the report body; showing the site's own view", "id", rec.ID, "err", err)
		default:
			d.Report = template.HTML(body) // html/template output of the report package
			d.Styles = template.CSS(s.opt.Report.Styles())
			// The report's own few lines of script (sorting, copy) are allowed by hash,
			// so the policy still refuses any other inline script.
			w.Header().Set("Content-Security-Policy", cspWithScripts(body))
		}
	}
	s.render(w, r, http.StatusOK, "run", "runs", rec.Title, d)
}

var inlineScript = regexp.MustCompile(`(?s)<script>(.*?)</script>`)

// cspWithScripts is the site's policy plus the hashes of the inline scripts in html.
func cspWithScripts(html string) string {
	var hashes []string
	for _, m := range inlineScript.FindAllStringSubmatch(html, -1) {
		h := sha256.Sum256([]byte(m[1]))
		hashes = append(hashes, "'sha256-"+base64.StdEncoding.EncodeToString(h[:])+"'")
	}
	return strings.Replace(contentSecurityPolicy, "script-src 'self'", "script-src 'self' "+strings.Join(hashes, " "), 1)
}

type compareData struct {
	Runs []runView
	// CardRows are the runs' headline figures side by side (cards.go).
	CardRows []compareCardRow
	Charts   []chartView
	Message  string
	// Dropped says which runs ticked beyond maxCompare were left out.
	Dropped string
	Rate    *rateCompare // the rate runs' cells, when some run is one
	// HasMatrix: some run is a matrix run (otherwise the matrix charts and matrices,
	// all empty, are left out).
	HasMatrix bool
	// Users are the rows "Users at ≥ X tok/s" (capacity.go).
	Users *compareUsers
	// AB is the paired A/B of the runs' evaluations (accuracy.go).
	AB template.HTML
}

// maxCompare is how many runs a comparison shows side by side: more do not fit a
// screen's width as matrices and numbered lines.
const maxCompare = 4

func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	lang := requestLang(r)
	var ids []string
	for _, v := range r.URL.Query()["id"] {
		for _, id := range strings.Split(v, ",") {
			if id = strings.TrimSpace(id); id != "" && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	d := compareData{}
	if len(ids) > maxCompare {
		// More ticked than a comparison can show side by side: compare the first ones
		// and say which were left out, rather than nothing.
		d.Dropped = T(lang, "compare_dropped", len(ids), maxCompare, strings.Join(ids[maxCompare:], ", "))
		ids = ids[:maxCompare]
	}
	if len(ids) < 2 {
		d.Message = T(lang, "compare_need")
		s.render(w, r, http.StatusOK, "compare", "runs", T(lang, "compare"), d)
		return
	}
	var runs []*rundoc.Run
	for _, id := range ids {
		rec, run, err := s.loadRun(r.Context(), id)
		if !s.found(w, r, "reading a run", err) {
			return
		}
		d.Runs = append(d.Runs, runView{Rec: rec, Run: run, Cards: runCards(rec, run, lang)})
		runs = append(runs, run)
	}
	contexts, concurrency := axisContexts(runs...), axisConcurrency(runs...)
	if len(contexts) > maxAxis || len(concurrency) > maxAxis {
		// Each run's axes are within the limit; together they could make a matrix of
		// 256 × 256 cells per run.
		d.Runs, d.Message = nil, T(lang, "compare_too_wide", len(contexts), len(concurrency), maxAxis)
		s.render(w, r, http.StatusBadRequest, "compare", "runs", T(lang, "compare"), d)
		return
	}
	for i := range d.Runs {
		d.Runs[i].Matrix = buildMatrix(runs[i], contexts, concurrency, lang)
		if i > 0 {
			addDiffs(&d.Runs[i].Matrix, &d.Runs[0].Matrix)
		}
	}
	d.Charts = compareCharts(d.Runs, concurrency, lang)
	d.CardRows = compareCardRows(d.Runs)
	d.Rate = compareRates(d.Runs, lang)
	d.AB = abHTML(runs, lang)
	d.HasMatrix = slices.ContainsFunc(runs, func(r *rundoc.Run) bool { return metric.ModeOf(r) == metric.ModeMatrix })
	d.Users = compareUsersOf(runs, ids, r.URL.Query().Get("speed"), lang)
	s.render(w, r, http.StatusOK, "compare", "runs", T(lang, "compare"), d)
}

// ---- calculator ----

// nameMatcher is what a Calculator may also do: tell that two names ("RTX 3090",
// "rtx-3090") are the same GPU or model, so the calculator finds measured runs
// whatever name the reader typed.
type nameMatcher interface {
	SameGPU(a, b string) bool
	SameModel(a, b string) bool
}

// measuredLike lists measured runs of the GPU and model, best single-stream decode first.
func (s *Server) measuredLike(ctx context.Context, gpu, model string) ([]store.RunRecord, error) {
	gpus, models := []string{gpu}, []string{model}
	if m, ok := s.opt.Calculator.(nameMatcher); ok {
		f, err := s.cachedFacets(ctx)
		if err != nil {
			return nil, err
		}
		for _, v := range f.GPUs {
			if len(gpus) < 4 && v.Value != gpu && m.SameGPU(v.Value, gpu) {
				gpus = append(gpus, v.Value)
			}
		}
		for _, v := range f.Models {
			if len(models) < 4 && v.Value != model && m.SameModel(v.Value, model) {
				models = append(models, v.Value)
			}
		}
	}
	// Names that differ (the typed "rtx-3090", the stored "RTX 3090", another case)
	// may find the same runs: each is listed once (issue 37 item 8).
	var out []store.RunRecord
	seen := map[string]bool{}
	for _, g := range gpus {
		for _, mo := range models {
			rs, err := s.store.ListRuns(ctx, store.Query{GPU: g, Model: mo, Kinds: []string{rundoc.RunMeasured}, Sort: metric.MetricDecode, Limit: 20})
			if err != nil {
				return nil, err
			}
			for _, r := range rs {
				if !seen[r.ID] {
					seen[r.ID] = true
					out = append(out, r)
				}
			}
		}
	}
	sortByDecode(out)
	return out[:min(len(out), 20)], nil
}

// ---- benchmarks, organisations, reports, API ----

type profileView struct {
	Name, Description string
	Runs              int
	Profile           metric.Profile
}

func (s *Server) benchmarks(w http.ResponseWriter, r *http.Request) {
	lang := requestLang(r)
	f, err := s.cachedFacets(r.Context())
	if err != nil {
		s.serverError(w, r, "listing profiles", err)
		return
	}
	counts := map[string]int{}
	for _, p := range f.Profiles {
		counts[p.Value] = p.Runs
	}
	var out []profileView
	for _, p := range append(append([]metric.Profile{}, metric.Profiles...), metric.Profile{Name: metric.ProfileCustom}) {
		out = append(out, profileView{Name: p.Name, Description: T(lang, "profile_"+p.Name), Runs: counts[p.Name], Profile: p})
	}
	s.render(w, r, http.StatusOK, "benchmarks", "benchmarks", "", out)
}

type orgListData struct {
	Orgs       []store.Org
	Submitters []store.Submitter
	Authors    []store.Facet
}

func (s *Server) orgList(w http.ResponseWriter, r *http.Request) {
	orgs, err := s.store.Orgs(r.Context())
	if err != nil {
		s.serverError(w, r, "listing organisations", err)
		return
	}
	subs, err := s.store.Submitters(r.Context())
	if err != nil {
		s.serverError(w, r, "listing submitters", err)
		return
	}
	authors, err := s.store.Authors(r.Context())
	if err != nil {
		s.serverError(w, r, "listing authors", err)
		return
	}
	s.render(w, r, http.StatusOK, "orgs", "orgs", "", orgListData{Orgs: orgs, Submitters: subs, Authors: authors})
}

type orgPageData struct {
	Org  store.Org
	Runs []store.RunRecord
}

func (s *Server) orgPage(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	orgs, err := s.store.Orgs(r.Context())
	if err != nil {
		s.serverError(w, r, "listing organisations", err)
		return
	}
	for _, o := range orgs {
		if o.Name == name {
			runs, err := s.store.ListRuns(r.Context(), store.Query{Org: name, Limit: 200})
			if err != nil {
				s.serverError(w, r, "listing runs", err)
				return
			}
			s.render(w, r, http.StatusOK, "org", "orgs", name, orgPageData{Org: o, Runs: runs})
			return
		}
	}
	s.notFound(w, r)
}

func (s *Server) reportList(w http.ResponseWriter, r *http.Request) {
	list, err := s.store.Reports(r.Context())
	if err != nil {
		s.serverError(w, r, "listing reports", err)
		return
	}
	s.render(w, r, http.StatusOK, "reports", "reports", "", list)
}

// reportFormData fills the report form: what was typed (never the token) and, after a
// refused submission, why.
type reportFormData struct {
	Slug, Title, BodyMD string
	Field, Error        string
}

func (s *Server) reportForm(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "report_new", "reports", T(requestLang(r), "report_new"), reportFormData{})
}

// reportFormSubmit publishes a report from the form, with the same checks as the API,
// and sends the browser to it (303); a refused form comes back with the reason and
// what was typed, except the token.
func (s *Server) reportFormSubmit(w http.ResponseWriter, r *http.Request) {
	lang := requestLang(r)
	refuse := func(status int, data reportFormData) {
		s.render(w, r, status, "report_new", "reports", T(lang, "report_new"), data)
	}
	// An address that keeps failing to authenticate is turned away before its body is
	// read, and so is a body larger than a report can be.
	if ok, wait := s.authFail.peek(r.Context(), s.clientAddr(r)); !ok {
		setRetryAfter(w, wait)
		refuse(http.StatusTooManyRequests, reportFormData{Field: T(lang, "report_token"), Error: T(lang, "err_auth_failures")})
		return
	}
	if r.ContentLength > maxFormBytes {
		refuse(http.StatusRequestEntityTooLarge, reportFormData{Error: T(lang, "err_form_size", maxFormBytes)})
		return
	}
	addr := s.clientAddr(r)
	if !s.formBodies.acquire(r.Context(), addr, bodyWait) {
		setRetryAfter(w, bodyWait)
		refuse(http.StatusServiceUnavailable, reportFormData{Error: T(lang, "err_busy")})
		return
	}
	s.bodyDeadline(w, s.formTimeout)
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	err := r.ParseForm()
	s.formBodies.release(addr)
	if isTimeout(err) {
		refuse(http.StatusRequestTimeout, reportFormData{Error: T(lang, "err_form_timeout", s.formTimeout.Seconds())})
		return
	}
	if err != nil {
		refuse(http.StatusBadRequest, reportFormData{Error: T(lang, "err_form_size", maxFormBytes)})
		return
	}
	sub := reportSubmission{Slug: strings.TrimSpace(r.PostForm.Get("slug")), Title: r.PostForm.Get("title"), BodyMD: r.PostForm.Get("body_md")}
	data := reportFormData{}
	// What was typed comes back only when it is text the page can show.
	if checkText("slug", sub.Slug, 128) == nil && checkText("title", sub.Title, 0) == nil && checkText("body_md", sub.BodyMD, 0) == nil {
		data = reportFormData{Slug: sub.Slug, Title: sub.Title, BodyMD: sub.BodyMD}
	}
	user, fail := s.userForToken(r, r.PostForm.Get("token"))
	if fail != nil {
		if fail.status == http.StatusTooManyRequests {
			setRetryAfter(w, fail.retryAfter)
		}
		data.Field, data.Error = T(lang, "report_token"), formReason(lang, fail.status, "token", fail.reason)
		refuse(fail.status, data)
		return
	}
	rep, status, ferr := s.publishReport(r, user, sub)
	if ferr != nil {
		if status == http.StatusServiceUnavailable {
			setRetryAfter(w, fullRetry)
		}
		data.Field, data.Error = formField(lang, ferr.Field), formReason(lang, status, ferr.Field, ferr.Reason)
		refuse(status, data)
		return
	}
	http.Redirect(w, r, "/reports/"+url.PathEscape(rep.Slug)+"?lang="+lang, http.StatusSeeOther)
}

// formReason is a refusal of the report form in the page's language: the API's
// reasons are English, so each (field, status) the form can meet has its text.
func formReason(lang string, status int, field, reason string) string {
	key := fmt.Sprintf("form_%s_%d", field, status)
	if _, ok := messages[key]; ok {
		return T(lang, key)
	}
	if lang == LangEN {
		return reason
	}
	return T(lang, "form_other", reason)
}

// formField names a form field in the page's language.
func formField(lang, field string) string {
	if _, ok := messages["report_"+field]; ok {
		return T(lang, "report_"+field)
	}
	return field
}

type reportPageData struct {
	Report store.Report
	Body   template.HTML
}

func (s *Server) reportPage(w http.ResponseWriter, r *http.Request) {
	rep, err := s.store.Report(r.Context(), r.PathValue("slug"))
	if !s.found(w, r, "reading a report", err) {
		return
	}
	lang := requestLang(r)
	body, err := renderMarkdown(r.Context(), rep.BodyMD, func(ctx context.Context, id string, kind embedKind) string {
		if kind != embedCard {
			return s.runRef(id, lang, kind)
		}
		return s.runCard(ctx, id, lang)
	})
	if err != nil {
		s.serverError(w, r, "rendering a report", err)
		return
	}
	s.render(w, r, http.StatusOK, "report", "reports", rep.Title, reportPageData{Report: rep, Body: body})
}

// runCard is the HTML a report shows for an embedded run.
func (s *Server) runCard(ctx context.Context, id, lang string) string {
	rec, run, err := s.loadRun(ctx, id)
	var buf bytes.Buffer
	data := struct {
		P     *page
		ID    string
		Found bool
		V     runView
	}{P: &page{Lang: lang}, ID: id}
	switch {
	case err == nil:
		data.Found, data.V = true, newRunView(rec, run, lang)
	case !errors.Is(err, store.ErrNotFound):
		s.log.Error("reading an embedded run", "id", id, "err", err)
	}
	if err := s.pages["run"].t.ExecuteTemplate(&buf, "runcard", data); err != nil {
		s.log.Error("rendering a run card", "err", err)
		return ""
	}
	return buf.String()
}

// runRef is the HTML a report shows for an embedded run that it does not show as a
// card: a link to its card above, or to its page.
func (s *Server) runRef(id, lang string, kind embedKind) string {
	var buf bytes.Buffer
	data := struct {
		P     *page
		ID    string
		Again bool
	}{&page{Lang: lang}, id, kind == embedAgain}
	if err := s.pages["run"].t.ExecuteTemplate(&buf, "runref", data); err != nil {
		s.log.Error("rendering a run link", "err", err)
		return ""
	}
	return buf.String()
}

type apiRefData struct {
	Paths []apiPath
}

type apiPath struct {
	Method, Path, Summary string
	SummaryJA             string // the document's x-summary-ja
}

// Text is the operation's summary in lang.
func (a apiPath) Text(lang string) string {
	if lang == LangJA && a.SummaryJA != "" {
		return a.SummaryJA
	}
	return a.Summary
}

func (s *Server) apiReference(w http.ResponseWriter, r *http.Request) {
	paths, err := apiPaths()
	if err != nil {
		s.serverError(w, r, "reading the OpenAPI document", err)
		return
	}
	s.render(w, r, http.StatusOK, "api", "api", "", apiRefData{Paths: paths})
}

// apiPaths lists the operations of the embedded OpenAPI document, read once: the
// document is part of the binary and never changes while it runs.
var apiPaths = sync.OnceValues(func() ([]apiPath, error) {
	b, err := assets.ReadFile("static/openapi.json")
	if err != nil {
		return nil, fmt.Errorf("reading the OpenAPI document: %w", err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Summary   string `json:"summary"`
			SummaryJA string `json:"x-summary-ja"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("decoding the OpenAPI document: %w", err)
	}
	var paths []apiPath
	for p, ops := range doc.Paths {
		for m, op := range ops {
			paths = append(paths, apiPath{Method: strings.ToUpper(m), Path: p, Summary: op.Summary, SummaryJA: op.SummaryJA})
		}
	}
	sortAPIPaths(paths)
	return paths, nil
})
