package site

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
)

// apiError is the body of every API error: the field at fault (if any) and why.
type apiError struct {
	Error  string `json:"error"`
	Field  string `json:"field,omitempty"`
	Reason string `json:"reason,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

func writeAPIError(w http.ResponseWriter, status int, field, reason string) {
	writeJSON(w, status, apiError{Error: http.StatusText(status), Field: field, Reason: reason})
}

// authorizedBody is how every POST starts: it finds the user of the request's bearer
// token, takes one request from that token's rate limit and reads the body up to
// MaxBodyBytes, writing the 401, 429 or 413 itself when one of them fails. Nothing is
// read from the body before the token is known and within its rate.
func (s *Server) authorizedBody(w http.ResponseWriter, r *http.Request) (store.User, []byte, bool) {
	user, ok := s.authenticate(w, r)
	if !ok {
		return store.User{}, nil, false
	}
	body, ok := s.readBody(w, r, store.HashToken(bearerToken(r.Header.Get("Authorization"))))
	return user, body, ok
}

// authFailure is why a request may not act as a user: the status, the reason to show,
// and how long to wait when it is a rate limit.
type authFailure struct {
	status     int
	reason     string
	retryAfter time.Duration
}

// userForToken finds the user of an API token and applies the failure limit of the
// client's address and the token's own rate limit. The API (bearer token) and the
// report form (token field) both come here.
func (s *Server) userForToken(r *http.Request, token string) (store.User, *authFailure) {
	// An address that keeps failing is turned away before its next token is looked up.
	addr := s.clientAddr(r)
	if ok, wait := s.authFail.peek(r.Context(), addr); !ok {
		return store.User{}, &authFailure{http.StatusTooManyRequests, "too many failed authentications from this address", wait}
	}
	token = strings.TrimSpace(token)
	if token == "" {
		s.authFail.allow(r.Context(), addr)
		return store.User{}, &authFailure{status: http.StatusUnauthorized, reason: "send an API token: Authorization: Bearer <token> (an operator creates one with llmbench serve token create)"}
	}
	u, err := s.store.UserByToken(r.Context(), token)
	if errors.Is(err, store.ErrNotFound) {
		s.authFail.allow(r.Context(), addr)
		return store.User{}, &authFailure{status: http.StatusUnauthorized, reason: "unknown API token"}
	}
	if err != nil {
		s.log.Error("checking a token", "err", err)
		return store.User{}, &authFailure{status: http.StatusInternalServerError, reason: "could not check the token"}
	}
	if ok, wait := s.limit.allow(r.Context(), store.HashToken(token)); !ok {
		return store.User{}, &authFailure{http.StatusTooManyRequests, "too many requests with this token", wait}
	}
	return u, nil
}

// authenticate finds the user of the request's bearer token (userForToken), writing
// the 401, 429 or 500 itself when the request may not go on.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (store.User, bool) {
	token := bearerToken(r.Header.Get("Authorization"))
	u, fail := s.userForToken(r, token)
	if fail == nil {
		return u, true
	}
	switch fail.status {
	case http.StatusUnauthorized:
		challenge := `Bearer realm="llmbench"`
		if strings.TrimSpace(token) != "" {
			challenge += `, error="invalid_token"`
		}
		w.Header().Set("WWW-Authenticate", challenge)
		writeAPIError(w, fail.status, "Authorization", fail.reason)
	case http.StatusTooManyRequests:
		tooMany(w, fail.retryAfter, fail.reason)
	default:
		writeAPIError(w, fail.status, "", fail.reason)
	}
	return store.User{}, false
}

// bearerToken is the token of an Authorization header's Bearer credentials, "" when it
// has none. The scheme is case-insensitive (RFC 7235 §2.1: "bearer" is "Bearer").
func bearerToken(header string) string {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// readBody reads at most MaxBodyBytes of the body of a request with token (its hash),
// writing the 413 itself when the body is larger (before reading anything, when
// Content-Length says so), and a 503 when too many bodies are being read at once, or
// maxBodiesPerToken with this token.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, token string) ([]byte, bool) {
	if r.ContentLength > s.opt.MaxBodyBytes {
		writeAPIError(w, http.StatusRequestEntityTooLarge, "", fmt.Sprintf("the body is over the limit of %d bytes", s.opt.MaxBodyBytes))
		return nil, false
	}
	if !s.bodies.acquire(r.Context(), token, bodyWait) {
		setRetryAfter(w, bodyWait)
		writeAPIError(w, http.StatusServiceUnavailable, "", fmt.Sprintf("the site is busy reading other submissions, or %d of this token's; try again shortly", maxBodiesPerToken))
		return nil, false
	}
	defer s.bodies.release(token)
	s.bodyDeadline(w, s.apiTimeout)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opt.MaxBodyBytes))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeAPIError(w, http.StatusRequestEntityTooLarge, "", fmt.Sprintf("the body is over the limit of %d bytes", s.opt.MaxBodyBytes))
		return nil, false
	}
	if isTimeout(err) {
		writeAPIError(w, http.StatusRequestTimeout, "", fmt.Sprintf("the body did not arrive within %s", s.apiTimeout))
		return nil, false
	}
	if err != nil {
		writeAPIError(w, http.StatusBadRequest, "", "reading the body: "+err.Error())
		return nil, false
	}
	return body, true
}

// Limits of what a submission may hold beyond a run document's own.
const (
	maxTitle      = 200       // characters of a report's title
	maxReportBody = 256 << 10 // bytes of a report's Markdown
	// maxFormBytes is the most the report form may send: its fields and their
	// URL-encoding (at most ×3), well below MaxBodyBytes.
	maxFormBytes = 3*maxReportBody + 16<<10
	// bodyWait is how long a request waits for a body slot before it is told to retry.
	bodyWait = 10 * time.Second
	// fullRetry is the Retry-After of a 503 for a full database.
	fullRetry = 5 * time.Minute
)

// reasonFull is what a submitter reads when the database has no room.
const reasonFull = "the site's database is out of space (its disk is full), so nothing was stored; the operator has to free space; try again later"

// SubmitResult is what POST /api/v1/runs answers on success.
type SubmitResult struct {
	ID      string `json:"id"`
	URL     string `json:"url"`
	Created bool   `json:"created"` // false when the same document was already stored
}

func (s *Server) apiSubmitRun(w http.ResponseWriter, r *http.Request) {
	user, body, ok := s.authorizedBody(w, r)
	if !ok {
		return
	}
	if !s.validations.acquire(r.Context(), bodyWait) {
		setRetryAfter(w, bodyWait)
		writeAPIError(w, http.StatusServiceUnavailable, "", "the site is busy checking other submissions; try again shortly")
		return
	}
	run, ferr := ValidateRun(body)
	s.validations.release()
	if ferr != nil {
		writeAPIError(w, http.StatusBadRequest, ferr.Field, ferr.Reason)
		return
	}
	rec := store.RunRecord{ID: run.ID, Summary: metric.Summarize(run), CreatedAt: run.CreatedAt,
		SubmittedAt: time.Now().UTC(), Submitter: user.Name, Org: user.Org}
	created, err := s.store.PutRun(r.Context(), rec, body)
	if errors.Is(err, store.ErrNotCounted) {
		// Stored: the counts catch up with the next run stored or the next start.
		s.log.Warn("a run was stored but not counted yet", "id", run.ID, "err", err)
		err = nil
	}
	if errors.Is(err, store.ErrConflict) {
		writeAPIError(w, http.StatusConflict, "id", fmt.Sprintf("run %s is already stored with a different document; give this run a new id", run.ID))
		return
	}
	if errors.Is(err, store.ErrFull) {
		s.log.Error("the database is full: a run could not be stored", "id", run.ID, "err", err)
		setRetryAfter(w, fullRetry)
		writeAPIError(w, http.StatusServiceUnavailable, "", reasonFull)
		return
	}
	if err != nil {
		s.log.Error("storing a run", "id", run.ID, "err", err)
		writeAPIError(w, http.StatusInternalServerError, "", "could not store the run")
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		s.invalidateFacets()
		s.log.Info("run stored", "id", run.ID, "submitter", user.Name)
	}
	w.Header().Set("Location", "/runs/"+run.ID)
	writeJSON(w, status, SubmitResult{ID: run.ID, URL: "/runs/" + run.ID, Created: created})
}

// RunSummary is a run in API listings.
type RunSummary struct {
	ID             string    `json:"id"`
	URL            string    `json:"url"`
	Title          string    `json:"title"`
	Kind           string    `json:"kind"`
	Model          string    `json:"model"`
	GPU            string    `json:"gpu"`
	GPUCount       int       `json:"gpu_count"`
	VRAMGB         *float64  `json:"vram_gb"`
	Engine         string    `json:"engine"`
	EngineVersion  string    `json:"engine_version,omitempty"`
	Quantization   string    `json:"quantization,omitempty"`
	Profile        string    `json:"profile"`
	Mode           string    `json:"mode"` // matrix or rate (open-loop cells)
	DecodeTokS     *float64  `json:"decode_tok_s"`
	PeakTokS       *float64  `json:"peak_tok_s"`
	Prefill32KTokS *float64  `json:"prefill_32k_tok_s"`
	TokSPerGB      *float64  `json:"tok_s_per_gb"`
	CreatedAt      time.Time `json:"created_at"`
	SubmittedAt    time.Time `json:"submitted_at"`
	Submitter      string    `json:"submitter"`
	Org            string    `json:"org,omitempty"`
}

func summaryOf(r store.RunRecord) RunSummary {
	return RunSummary{ID: r.ID, URL: "/runs/" + r.ID, Title: r.Title, Kind: r.Kind, Model: r.Model, GPU: r.GPU,
		GPUCount: r.GPUCount, VRAMGB: r.VRAMGB, Engine: r.Engine, EngineVersion: r.EngineVersion,
		Quantization: r.Quantization, Profile: r.Profile, Mode: r.Mode, DecodeTokS: r.DecodeTokS, PeakTokS: r.PeakTokS,
		Prefill32KTokS: r.Prefill32KTokS, TokSPerGB: r.TokSPerGB, CreatedAt: r.CreatedAt,
		SubmittedAt: r.SubmittedAt, Submitter: r.Submitter, Org: r.Org}
}

// queryFromRequest reads the filters shared by the leaderboard, the run list and
// GET /api/v1/runs.
func queryFromRequest(r *http.Request, maxLimit int) (store.Query, *FieldError) {
	v := r.URL.Query()
	q := store.Query{Model: v.Get("model"), GPU: v.Get("gpu"), Engine: v.Get("engine"),
		Quantization: v.Get("quant"), Profile: v.Get("profile"), Org: v.Get("org"), Submitter: v.Get("submitter"),
		Family: v.Get("family"), Author: v.Get("author")}
	if sz := v.Get("size"); sz != "" {
		b, ok := store.SizeBucketByName(sz)
		if !ok {
			var names []string
			for _, b := range store.SizeBuckets {
				names = append(names, b.Name)
			}
			return q, fieldErrorT("size", "qerr_size", strings.Join(names, ", "))
		}
		q.SizeMin, q.SizeMax = b.Min, b.Max
	}
	switch m := v.Get("mode"); m {
	case "", metric.ModeMatrix, metric.ModeRate:
		q.Mode = m
	default:
		return q, fieldErrorT("mode", "qerr_mode")
	}
	if k := v.Get("kind"); k != "" && k != "all" {
		for _, kind := range strings.Split(k, ",") {
			switch kind {
			case "measured", "emulated", "predicted":
				q.Kinds = append(q.Kinds, kind)
			default:
				return q, fieldErrorT("kind", "qerr_kind")
			}
		}
	}
	if m := v.Get("sort"); m != "" && m != "newest" && v.Get("metric") == "" {
		q.Sort = metric.Metric(m)
		if !q.Sort.Valid() {
			return q, fieldErrorT("sort", "qerr_sort")
		}
	}
	var err error
	if l := v.Get("limit"); l != "" {
		if q.Limit, err = strconv.Atoi(l); err != nil || q.Limit < 1 || q.Limit > maxLimit {
			return q, fieldErrorT("limit", "qerr_limit", maxLimit)
		}
	}
	if o := v.Get("offset"); o != "" {
		if q.Offset, err = strconv.Atoi(o); err != nil || q.Offset < 0 || q.Offset > 1_000_000 {
			return q, fieldErrorT("offset", "qerr_offset")
		}
	}
	return q, nil
}

func (s *Server) apiListRuns(w http.ResponseWriter, r *http.Request) {
	q, ferr := queryFromRequest(r, 100)
	if ferr != nil {
		writeAPIError(w, http.StatusBadRequest, ferr.Field, ferr.Reason)
		return
	}
	rows, next, err := s.listPage(r.Context(), q)
	if err != nil {
		s.log.Error("listing runs", "err", err)
		writeAPIError(w, http.StatusInternalServerError, "", "could not list runs")
		return
	}
	out := struct {
		Runs       []RunSummary `json:"runs"`
		NextOffset *int         `json:"next_offset,omitempty"`
	}{Runs: []RunSummary{}}
	for _, rec := range rows {
		out.Runs = append(out.Runs, summaryOf(rec))
	}
	if next >= 0 {
		out.NextOffset = &next
	}
	writeJSON(w, http.StatusOK, out)
}

// listPage lists one page of q (q.Limit runs; 50 when unset) and the offset of the
// next page, or -1 when this is the last. It asks for one run more than the page
// rather than counting them all.
func (s *Server) listPage(ctx context.Context, q store.Query) (rows []store.RunRecord, next int, err error) {
	if q.Limit == 0 {
		q.Limit = 50
	}
	want := q.Limit
	q.Limit++
	if rows, err = s.store.ListRuns(ctx, q); err != nil {
		return nil, -1, err
	}
	if len(rows) > want {
		return rows[:want], q.Offset + want, nil
	}
	return rows, -1, nil
}

func (s *Server) apiGetRun(w http.ResponseWriter, r *http.Request) {
	_, doc, err := s.store.Run(r.Context(), r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) {
		writeAPIError(w, http.StatusNotFound, "id", "no run with this id")
		return
	}
	if err != nil {
		s.log.Error("reading a run", "err", err)
		writeAPIError(w, http.StatusInternalServerError, "", "could not read the run")
		return
	}
	// The document exactly as submitted, byte for byte.
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(doc)
}

// groupJSON is a GPU or model in the API, with its catalog specs when known.
type groupJSON struct {
	store.GroupStat
	URL   string `json:"url"`
	Specs []Spec `json:"specs,omitempty"`
}

// apiGroups answers GET /api/v1/hardware, /models and /families: each group with its
// run count, best measured figures and catalog specs.
func (s *Server) apiGroups(w http.ResponseWriter, r *http.Request, kind groupKind) {
	gs, err := kind.list(s.store, r.Context())
	if err != nil {
		s.log.Error("listing groups", "err", err)
		writeAPIError(w, http.StatusInternalServerError, "", "could not list")
		return
	}
	out := []groupJSON{}
	for _, g := range gs {
		sp, _ := kind.specs(s, g.Name)
		out = append(out, groupJSON{GroupStat: g, URL: "/" + kind.Nav + "/" + pathEscape(g.Name), Specs: sp})
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) gpuSpecs(name string) ([]Spec, bool) {
	if s.opt.Catalog == nil {
		return nil, false
	}
	return s.opt.Catalog.GPUSpecs(name)
}

func (s *Server) modelSpecs(name string) ([]Spec, bool) {
	if s.opt.Catalog == nil {
		return nil, false
	}
	return s.opt.Catalog.ModelSpecs(name)
}

// reportSubmission is the body of POST /api/v1/reports.
type reportSubmission struct {
	Slug   string `json:"slug"`
	Title  string `json:"title"`
	BodyMD string `json:"body_md"`
}

func (s *Server) apiSubmitReport(w http.ResponseWriter, r *http.Request) {
	user, body, ok := s.authorizedBody(w, r)
	if !ok {
		return
	}
	var sub reportSubmission
	if ferr := checkJSON(body, reflect.TypeOf(sub), maxReportBody); ferr != nil {
		writeAPIError(w, http.StatusBadRequest, ferr.Field, ferr.Reason)
		return
	}
	if err := json.Unmarshal(body, &sub); err != nil {
		ferr := jsonError(err, body, reflect.TypeOf(sub))
		writeAPIError(w, http.StatusBadRequest, ferr.Field, ferr.Reason)
		return
	}
	rep, status, ferr := s.publishReport(r, user, sub)
	if ferr != nil {
		if status == http.StatusServiceUnavailable {
			setRetryAfter(w, fullRetry)
		}
		writeAPIError(w, status, ferr.Field, ferr.Reason)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"slug": rep.Slug, "url": "/reports/" + rep.Slug})
}

// publishReport checks a report and stores it under the user's name: the API and the
// report form share it. On failure it returns the HTTP status and the field at fault.
func (s *Server) publishReport(r *http.Request, user store.User, sub reportSubmission) (store.Report, int, *FieldError) {
	for _, f := range []struct {
		name, value string
		max         int
	}{{"slug", sub.Slug, 128}, {"title", sub.Title, maxTitle}, {"body_md", sub.BodyMD, 0}} {
		if ferr := checkText(f.name, f.value, f.max); ferr != nil {
			return store.Report{}, http.StatusBadRequest, ferr
		}
	}
	switch {
	case !rundoc.ValidID(sub.Slug):
		return store.Report{}, http.StatusBadRequest, &FieldError{Field: "slug", Reason: "must be 1–128 characters of letters, digits, '.', '_' or '-', starting with a letter or digit"}
	case strings.TrimSpace(sub.Title) == "":
		return store.Report{}, http.StatusBadRequest, &FieldError{Field: "title", Reason: fmt.Sprintf("is required (up to %d characters)", maxTitle)}
	case strings.TrimSpace(sub.BodyMD) == "":
		return store.Report{}, http.StatusBadRequest, &FieldError{Field: "body_md", Reason: "is required (Markdown)"}
	case len(sub.BodyMD) > maxReportBody:
		return store.Report{}, http.StatusBadRequest, &FieldError{Field: "body_md", Reason: fmt.Sprintf("is %d bytes long; at most %d", len(sub.BodyMD), maxReportBody)}
	}
	rep := store.Report{Slug: sub.Slug, Title: sub.Title, BodyMD: sub.BodyMD, Author: user.Name, Org: user.Org, CreatedAt: time.Now().UTC()}
	if err := s.store.PutReport(r.Context(), rep); errors.Is(err, store.ErrConflict) {
		return store.Report{}, http.StatusConflict, &FieldError{Field: "slug", Reason: "a report with this slug exists"}
	} else if errors.Is(err, store.ErrFull) {
		s.log.Error("the database is full: a report could not be stored", "err", err)
		return store.Report{}, http.StatusServiceUnavailable, &FieldError{Reason: reasonFull}
	} else if err != nil {
		s.log.Error("storing a report", "err", err)
		return store.Report{}, http.StatusInternalServerError, &FieldError{Reason: "could not store the report"}
	}
	return rep, http.StatusCreated, nil
}

func (s *Server) apiListReports(w http.ResponseWriter, r *http.Request) {
	list, err := s.store.Reports(r.Context())
	if err != nil {
		s.log.Error("listing reports", "err", err)
		writeAPIError(w, http.StatusInternalServerError, "", "could not list reports")
		return
	}
	if list == nil {
		list = []store.Report{}
	}
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) {
	b, err := assets.ReadFile("static/openapi.json")
	if err != nil {
		http.Error(w, "missing", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(b)
}
