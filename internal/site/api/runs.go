package api

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/site/board"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// SubmitRun answers POST /api/v1/runs: a run document checked and stored.
func (s *API) SubmitRun(w http.ResponseWriter, r *http.Request) {
	user, body, ok := s.authorizedBody(w, r)
	if !ok {
		return
	}
	if !s.guards.Validations.Acquire(r.Context(), guard.BodyWait) {
		guard.RetryAfter(w, guard.BodyWait)
		wire.WriteError(w, http.StatusServiceUnavailable, "", "the site is busy checking other submissions; try again shortly")
		return
	}
	run, ferr := guard.ValidateRun(body)
	s.guards.Validations.Release()
	if ferr != nil {
		wire.WriteError(w, http.StatusBadRequest, ferr.Field, ferr.Reason)
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
		wire.WriteError(w, http.StatusConflict, "id", fmt.Sprintf("run %s is already stored with a different document; give this run a new id", run.ID))
		return
	}
	if errors.Is(err, store.ErrFull) {
		s.log.Error("the database is full: a run could not be stored", "id", run.ID, "err", err)
		guard.RetryAfter(w, FullRetry)
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

// ListRuns answers GET /api/v1/runs: one page of runs, filtered.
func (s *API) ListRuns(w http.ResponseWriter, r *http.Request) {
	q, ferr := board.Filters(r.URL.Query(), 100)
	if ferr != nil {
		wire.WriteError(w, http.StatusBadRequest, ferr.Field, ferr.Reason)
		return
	}
	rows, next, err := s.board.List(r.Context(), q)
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

// GetRun answers GET /api/v1/runs/{id}: the document exactly as submitted.
func (s *API) GetRun(w http.ResponseWriter, r *http.Request) {
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

// apiRunCapacity answers GET /api/v1/runs/{id}/capacity: the run's capacity block (the
// json report's "users") at the targets tok_s= and ttft= (defaults 20 tok/s, 1 s), its
// sentences in lang= (en).
func (s *API) RunCapacity(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	t, err := capacity.ParseTargets(targetsQuery(v))
	if err != nil {
		wire.WriteError(w, http.StatusBadRequest, "tok_s", strings.TrimPrefix(err.Error(), "--capacity "))
		return
	}
	_, run, err := s.board.Run(r.Context(), r.PathValue("id"))
	switch {
	case errors.Is(err, store.ErrNotFound):
		wire.WriteError(w, http.StatusNotFound, "id", "no run with this id")
		return
	case err != nil:
		s.log.Error("reading a run", "err", err)
		wire.WriteError(w, http.StatusInternalServerError, "", "could not read the run")
		return
	}
	sum := capacity.Summarize(run, t)
	if sum == nil {
		wire.WriteError(w, http.StatusNotFound, "id", "the run has no decode cells and no SLO to answer with")
		return
	}
	sum.Sentences = report.CapacitySentences(run, report.Options{Lang: v.Get("lang"), Capacity: t})
	wire.Write(w, http.StatusOK, sum)
}

// targetsQuery is the query's tok_s= and ttft= as --capacity spells them.
func targetsQuery(v url.Values) string {
	var parts []string
	if x := strings.TrimSpace(v.Get("tok_s")); x != "" {
		parts = append(parts, "tok/s="+x)
	}
	if x := strings.TrimSpace(v.Get("ttft")); x != "" {
		parts = append(parts, "ttft="+x)
	}
	return strings.Join(parts, ",")
}
