package api

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// SubmitReport answers POST /api/v1/reports: a written report published.
func (s *API) SubmitReport(w http.ResponseWriter, r *http.Request) {
	user, body, ok := s.authorizedBody(w, r)
	if !ok {
		return
	}
	var sub wire.ReportSubmission
	if ferr := guard.DecodeStrict(body, &sub, MaxReportBody); ferr != nil {
		wire.WriteError(w, http.StatusBadRequest, ferr.Field, ferr.Reason)
		return
	}
	rep, status, ferr := s.PublishReport(r, user, sub)
	if ferr != nil {
		if status == http.StatusServiceUnavailable {
			guard.RetryAfter(w, FullRetry)
		}
		wire.WriteError(w, status, ferr.Field, ferr.Reason)
		return
	}
	wire.Write(w, http.StatusCreated, wire.ReportCreated{Slug: rep.Slug, URL: "/reports/" + rep.Slug})
}

// publishReport checks a report and stores it under the user's name: the API and the
// report form share it. On failure it returns the HTTP status and the field at fault.
func (s *API) PublishReport(r *http.Request, user store.User, sub wire.ReportSubmission) (store.Report, int, *guard.FieldError) {
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
	case len(sub.BodyMD) > MaxReportBody:
		return store.Report{}, http.StatusBadRequest, &guard.FieldError{Field: "body_md", Reason: fmt.Sprintf("is %d bytes long; at most %d", len(sub.BodyMD), MaxReportBody)}
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

// ListReports answers GET /api/v1/reports.
func (s *API) ListReports(w http.ResponseWriter, r *http.Request) {
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
