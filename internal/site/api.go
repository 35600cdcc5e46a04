package site

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/board"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// authorizedBody is how every POST starts: it finds the user of the request's bearer
// token, takes one request from that token's rate limit and reads the body up to
// MaxBodyBytes, writing the 401, 429 or 413 itself when one of them fails. Nothing is
// read from the body before the token is known and within its rate.
func (s *Server) authorizedBody(w http.ResponseWriter, r *http.Request) (store.User, []byte, bool) {
	user, ok := s.authenticate(w, r)
	if !ok {
		return store.User{}, nil, false
	}
	body, ok := s.readBody(w, r, store.HashToken(guard.BearerToken(r.Header.Get("Authorization"))))
	return user, body, ok
}

// authFailure is why a request may not act as a user: the status, the reason to show,
// and how long to wait when it is a rate limit.
type authFailure struct {
	status     int
	reason     string
	retryAfter time.Duration
}

// authenticate finds the user of the request's bearer token (guard.Guards.User), writing
// the 401, 429 or 500 itself when the request may not go on.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (store.User, bool) {
	token := guard.BearerToken(r.Header.Get("Authorization"))
	u, fail := s.guards.User(r, token)
	if fail == nil {
		return u, true
	}
	switch fail.Status {
	case http.StatusUnauthorized:
		challenge := `Bearer realm="llmbench"`
		if strings.TrimSpace(token) != "" {
			challenge += `, error="invalid_token"`
		}
		w.Header().Set("WWW-Authenticate", challenge)
		wire.WriteError(w, fail.Status, "Authorization", fail.Reason)
	case http.StatusTooManyRequests:
		tooMany(w, fail.RetryAfter, fail.Reason)
	default:
		wire.WriteError(w, fail.Status, "", fail.Reason)
	}
	return store.User{}, false
}

// readBody reads at most MaxBodyBytes of the body of a request with token (its hash),
// writing the 413 itself when the body is larger (before reading anything, when
// Content-Length says so), and a 503 when too many bodies are being read at once, or
// maxBodiesPerToken with this token.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, token string) ([]byte, bool) {
	if r.ContentLength > s.opt.MaxBodyBytes {
		wire.WriteError(w, http.StatusRequestEntityTooLarge, "", fmt.Sprintf("the body is over the limit of %d bytes", s.opt.MaxBodyBytes))
		return nil, false
	}
	if !s.guards.Bodies.Acquire(r.Context(), token, bodyWait) {
		setRetryAfter(w, bodyWait)
		wire.WriteError(w, http.StatusServiceUnavailable, "", fmt.Sprintf("the site is busy reading other submissions, or %d of this token's; try again shortly", guard.MaxBodiesPerToken))
		return nil, false
	}
	defer s.guards.Bodies.Release(token)
	s.guards.BodyDeadline(w, s.guards.APITimeout)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opt.MaxBodyBytes))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		wire.WriteError(w, http.StatusRequestEntityTooLarge, "", fmt.Sprintf("the body is over the limit of %d bytes", s.opt.MaxBodyBytes))
		return nil, false
	}
	if guard.IsTimeout(err) {
		wire.WriteError(w, http.StatusRequestTimeout, "", fmt.Sprintf("the body did not arrive within %s", s.guards.APITimeout))
		return nil, false
	}
	if err != nil {
		wire.WriteError(w, http.StatusBadRequest, "", "reading the body: "+err.Error())
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

func (s *Server) apiSubmitRun(w http.ResponseWriter, r *http.Request) {
	user, body, ok := s.authorizedBody(w, r)
	if !ok {
		return
	}
	if !s.guards.Validations.Acquire(r.Context(), bodyWait) {
		setRetryAfter(w, bodyWait)
		wire.WriteError(w, http.StatusServiceUnavailable, "", "the site is busy checking other submissions; try again shortly")
		return
	}
	run, ferr := guard.ValidateRun(body)
	s.guards.Validations.Release()
	if ferr != nil {
		wire.WriteError(w, http.StatusBadRequest, ferr.Field, ferr.Reason)
		return
	}
	rec := store.RunRecord{ID: run.ID, Summary: store.Summarize(run), CreatedAt: run.CreatedAt,
		SubmittedAt: time.Now().UTC(), Submitter: user.Name, Org: user.Org}
	created, err := s.store.PutRun(r.Context(), rec, body)
	if errors.Is(err, store.ErrNotCounted) {
		// Stored: the counts catch up with the next run stored or the next start.
		s.log.Warn("a run was stored but not counted yet", "id", run.ID, "err", err)
		err = nil
	}
	if errors.Is(err, store.ErrConflict) {
		wire.WriteError(w, http.StatusConflict, "id", fmt.Sprintf("run %s is already stored with a different document; give this run a new id", run.ID))
		return
	}
	if errors.Is(err, store.ErrFull) {
		s.log.Error("the database is full: a run could not be stored", "id", run.ID, "err", err)
		setRetryAfter(w, fullRetry)
		wire.WriteError(w, http.StatusServiceUnavailable, "", reasonFull)
		return
	}
	if err != nil {
		s.log.Error("storing a run", "id", run.ID, "err", err)
		wire.WriteError(w, http.StatusInternalServerError, "", "could not store the run")
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		s.board.Forget()
		s.log.Info("run stored", "id", run.ID, "submitter", user.Name)
	}
	w.Header().Set("Location", "/runs/"+run.ID)
	wire.Write(w, status, wire.SubmitResult{ID: run.ID, URL: "/runs/" + run.ID, Created: created})
}

func summaryOf(r store.RunRecord) wire.RunSummary {
	return wire.RunSummary{ID: r.ID, URL: "/runs/" + r.ID, Title: r.Title, Kind: r.Kind, Model: r.Model, GPU: r.GPU,
		GPUCount: r.GPUCount, VRAMGB: r.VRAMGB, Engine: r.Engine, EngineVersion: r.EngineVersion,
		Quantization: r.Quantization, Profile: r.Profile, Mode: r.Mode, DecodeTokS: r.DecodeTokS, PeakTokS: r.PeakTokS,
		Prefill32KTokS: r.Prefill32KTokS, TokSPerGB: r.TokSPerGB, CreatedAt: r.CreatedAt,
		SubmittedAt: r.SubmittedAt, Submitter: r.Submitter, Org: r.Org}
}

func (s *Server) apiListRuns(w http.ResponseWriter, r *http.Request) {
	q, ferr := board.Filters(r.URL.Query(), 100)
	if ferr != nil {
		wire.WriteError(w, http.StatusBadRequest, ferr.Field, ferr.Reason)
		return
	}
	rows, next, err := s.listPage(r.Context(), q)
	if err != nil {
		s.log.Error("listing runs", "err", err)
		wire.WriteError(w, http.StatusInternalServerError, "", "could not list runs")
		return
	}
	out := wire.RunList{Runs: []wire.RunSummary{}}
	for _, rec := range rows {
		out.Runs = append(out.Runs, summaryOf(rec))
	}
	if next >= 0 {
		out.NextOffset = &next
	}
	wire.Write(w, http.StatusOK, out)
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
		wire.WriteError(w, http.StatusNotFound, "id", "no run with this id")
		return
	}
	if err != nil {
		s.log.Error("reading a run", "err", err)
		wire.WriteError(w, http.StatusInternalServerError, "", "could not read the run")
		return
	}
	// The document exactly as submitted, byte for byte.
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(doc)
}

// apiGroups answers GET /api/v1/hardware, /models and /families: each group with its
// run count, best measured figures and catalog specs.
func (s *Server) apiGroups(w http.ResponseWriter, r *http.Request, kind groupKind) {
	gs, err := kind.list(s.store, r.Context())
	if err != nil {
		s.log.Error("listing groups", "err", err)
		wire.WriteError(w, http.StatusInternalServerError, "", "could not list")
		return
	}
	out := []wire.Group{}
	for _, g := range gs {
		sp, _ := kind.specs(s, g.Name)
		out = append(out, wire.Group{Name: g.Name, Runs: g.Runs, BestDecode: g.BestDecode, BestPeak: g.BestPeak, VRAMGB: g.VRAMGB, URL: "/" + kind.Nav + "/" + pathEscape(g.Name), Specs: sp})
	}
	wire.Write(w, http.StatusOK, out)
}

func (s *Server) gpuSpecs(name string) ([]wire.Spec, bool) {
	if s.opt.Catalog == nil {
		return nil, false
	}
	return s.opt.Catalog.GPUSpecs(name)
}

func (s *Server) modelSpecs(name string) ([]wire.Spec, bool) {
	if s.opt.Catalog == nil {
		return nil, false
	}
	return s.opt.Catalog.ModelSpecs(name)
}

func (s *Server) apiSubmitReport(w http.ResponseWriter, r *http.Request) {
	user, body, ok := s.authorizedBody(w, r)
	if !ok {
		return
	}
	var sub wire.ReportSubmission
	if ferr := guard.DecodeStrict(body, &sub, maxReportBody); ferr != nil {
		wire.WriteError(w, http.StatusBadRequest, ferr.Field, ferr.Reason)
		return
	}
	rep, status, ferr := s.publishReport(r, user, sub)
	if ferr != nil {
		if status == http.StatusServiceUnavailable {
			setRetryAfter(w, fullRetry)
		}
		wire.WriteError(w, status, ferr.Field, ferr.Reason)
		return
	}
	wire.Write(w, http.StatusCreated, wire.ReportCreated{Slug: rep.Slug, URL: "/reports/" + rep.Slug})
}

// publishReport checks a report and stores it under the user's name: the API and the
// report form share it. On failure it returns the HTTP status and the field at fault.
func (s *Server) publishReport(r *http.Request, user store.User, sub wire.ReportSubmission) (store.Report, int, *guard.FieldError) {
	for _, f := range []struct {
		name, value string
		max         int
	}{{"slug", sub.Slug, 128}, {"title", sub.Title, maxTitle}, {"body_md", sub.BodyMD, 0}} {
		if ferr := guard.CheckText(f.name, f.value, f.max); ferr != nil {
			return store.Report{}, http.StatusBadRequest, ferr
		}
	}
	switch {
	case !rundoc.ValidID(sub.Slug):
		return store.Report{}, http.StatusBadRequest, &guard.FieldError{Field: "slug", Reason: "must be 1–128 characters of letters, digits, '.', '_' or '-', starting with a letter or digit"}
	case strings.TrimSpace(sub.Title) == "":
		return store.Report{}, http.StatusBadRequest, &guard.FieldError{Field: "title", Reason: fmt.Sprintf("is required (up to %d characters)", maxTitle)}
	case strings.TrimSpace(sub.BodyMD) == "":
		return store.Report{}, http.StatusBadRequest, &guard.FieldError{Field: "body_md", Reason: "is required (Markdown)"}
	case len(sub.BodyMD) > maxReportBody:
		return store.Report{}, http.StatusBadRequest, &guard.FieldError{Field: "body_md", Reason: fmt.Sprintf("is %d bytes long; at most %d", len(sub.BodyMD), maxReportBody)}
	}
	rep := store.Report{Slug: sub.Slug, Title: sub.Title, BodyMD: sub.BodyMD, Author: user.Name, Org: user.Org, CreatedAt: time.Now().UTC()}
	if err := s.store.PutReport(r.Context(), rep); errors.Is(err, store.ErrConflict) {
		return store.Report{}, http.StatusConflict, &guard.FieldError{Field: "slug", Reason: "a report with this slug exists"}
	} else if errors.Is(err, store.ErrFull) {
		s.log.Error("the database is full: a report could not be stored", "err", err)
		return store.Report{}, http.StatusServiceUnavailable, &guard.FieldError{Reason: reasonFull}
	} else if err != nil {
		s.log.Error("storing a report", "err", err)
		return store.Report{}, http.StatusInternalServerError, &guard.FieldError{Reason: "could not store the report"}
	}
	return rep, http.StatusCreated, nil
}

func (s *Server) apiListReports(w http.ResponseWriter, r *http.Request) {
	list, err := s.store.Reports(r.Context())
	if err != nil {
		s.log.Error("listing reports", "err", err)
		wire.WriteError(w, http.StatusInternalServerError, "", "could not list reports")
		return
	}
	out := []wire.Report{}
	for _, rep := range list {
		out = append(out, wire.Report{Slug: rep.Slug, Title: rep.Title, BodyMD: rep.BodyMD, Author: rep.Author, Org: rep.Org, CreatedAt: rep.CreatedAt})
	}
	wire.Write(w, http.StatusOK, out)
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
