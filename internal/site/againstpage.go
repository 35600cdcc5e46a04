package site

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
)

// "My run against the best": a run laid over the best run of its GPU and model, cell
// by cell, marked where the 95% intervals do not overlap (internal/overlay, the rule
// that llmbench report --against marks by too). The run page shows it for its own run;
// the upload page (GET /against) for a document the reader picks, posted to POST
// /against, checked as a submission is and never stored.

// Limits of the upload: a reader without a token may send a run document to be laid
// over the best, as often as againstPerMin a minute (againstBurst at once) from one
// address, each as large as a submission may be.
const (
	againstPerMin = 20
	againstBurst  = 5
	// multipartSlack is what a form's boundary and headers add to the document.
	multipartSlack = 16 << 10
)

// againstView is the overlay section as a page shows it: every text already in the
// page's language (report.NewOverlayView, the report's own rows), or None saying
// why there is nothing to lay the run over.
type againstView struct {
	*report.OverlayView
	Title, BestURL, None string
	Upload               string // the link to the upload page
}

// bestAgainst is the overlay of run over the best other run of its GPU and model on
// this site: the first run of the API's own answer to metric.BestParams, as
// llmbench report --against asks it. nil for an open-loop run (no matrix).
func (s *Server) bestAgainst(ctx context.Context, run *rundoc.Run, lang string) (*againstView, error) {
	if metric.ModeOf(run) == metric.ModeRate {
		return nil, nil
	}
	v := &againstView{Title: T(lang, "ov_title"), Upload: T(lang, "ov_upload_link")}
	params := metric.BestParams(run)
	none := T(lang, "ov_none", params.Get("model"), params.Get("gpu"))
	q, ferr := queryFromRequest(&http.Request{URL: &url.URL{RawQuery: params.Encode()}}, 2)
	if ferr != nil {
		v.None = none // a name over the site's limits: no run can have it
		return v, nil
	}
	rs, err := s.store.ListRuns(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("finding the best run to lay %s over: %w", run.ID, err)
	}
	for _, rec := range rs {
		if rec.ID == run.ID {
			continue
		}
		_, best, err := s.loadRun(ctx, rec.ID)
		if err != nil {
			return nil, err
		}
		v.BestURL = "/runs/" + pathEscape(rec.ID)
		v.OverlayView = report.NewOverlayView(lang, run, report.Baseline{Run: best, URL: v.BestURL})
		return v, nil
	}
	v.None = none
	return v, nil
}

// runAgainst is the run page's overlay section; an error leaves the section out (the
// page still shows the run) and is logged.
func (s *Server) runAgainst(ctx context.Context, run *rundoc.Run, lang string) *againstView {
	v, err := s.bestAgainst(ctx, run, lang)
	if err != nil {
		s.log.Warn("laying a run over the best", "id", run.ID, "err", err)
		return nil
	}
	return v
}

// againstData is the upload page: the form, and after a post the run laid over the
// best, or why it could not be.
type againstData struct {
	Mine    string // the posted run's title
	Against *againstView
	Error   string
}

// againstForm shows GET /against: the file picker.
func (s *Server) againstForm(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "against", "", T(requestLang(r), "ov_upload_title"), againstData{})
}

// againstUpload answers POST /against: the document posted (multipart, field "run"),
// checked as a submission is (size before reading, strict JSON, rundoc.Validate),
// laid over the best run, and forgotten. It never stores, and answers every refusal
// with the form and the reason.
func (s *Server) againstUpload(w http.ResponseWriter, r *http.Request) {
	lang := requestLang(r)
	refuse := func(status int, reason string) {
		s.render(w, r, status, "against", "", T(lang, "ov_upload_title"), againstData{Error: reason})
	}
	addr := s.clientAddr(r)
	if ok, wait := s.againstLimit.allow(r.Context(), addr); !ok {
		setRetryAfter(w, wait)
		refuse(http.StatusTooManyRequests, T(lang, "ov_err_rate", int(wait.Seconds()+1)))
		return
	}
	doc, status, reason := s.readUpload(w, r, addr)
	if status != 0 {
		refuse(status, reason)
		return
	}
	if !s.validations.acquire(r.Context(), bodyWait) {
		setRetryAfter(w, bodyWait)
		refuse(http.StatusServiceUnavailable, T(lang, "err_busy"))
		return
	}
	mine, ferr := ValidateRun(doc)
	s.validations.release()
	if ferr != nil {
		refuse(http.StatusBadRequest, T(lang, "ov_err_invalid", strings.TrimPrefix(ferr.Field+": "+ferr.Reason, ": ")))
		return
	}
	v, err := s.bestAgainst(r.Context(), mine, lang)
	switch {
	case err != nil:
		s.log.Error("laying an uploaded run over the best", "err", err)
		setRetryAfter(w, bodyWait)
		refuse(http.StatusServiceUnavailable, T(lang, "err_busy"))
		return
	case v == nil:
		refuse(http.StatusUnprocessableEntity, T(lang, "ov_err_rate_run"))
		return
	}
	s.render(w, r, http.StatusOK, "against", "", T(lang, "ov_upload_title"), againstData{Mine: metric.Summarize(mine).Title, Against: v})
}

// readUpload reads the form's "run" file: refused before reading when the body is
// larger than a document may be, one body at a time per address (the report form's
// slots), within the form's time. status 0: doc is the file's bytes.
func (s *Server) readUpload(w http.ResponseWriter, r *http.Request, addr string) (doc []byte, status int, reason string) {
	lang := requestLang(r)
	limit := s.opt.MaxBodyBytes + multipartSlack
	if r.ContentLength > limit {
		return nil, http.StatusRequestEntityTooLarge, T(lang, "ov_err_size", report.FormatInt(lang, int(s.opt.MaxBodyBytes>>10)))
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "multipart/form-data" {
		return nil, http.StatusUnsupportedMediaType, T(lang, "ov_err_form")
	}
	if !s.formBodies.acquire(r.Context(), addr, bodyWait) {
		setRetryAfter(w, bodyWait)
		return nil, http.StatusServiceUnavailable, T(lang, "err_busy")
	}
	defer s.formBodies.release(addr)
	s.bodyDeadline(w, s.formTimeout)
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	doc, err := uploadedFile(r, s.opt.MaxBodyBytes)
	var tooLarge *http.MaxBytesError
	switch {
	case isTimeout(err):
		return nil, http.StatusRequestTimeout, T(lang, "err_form_timeout", s.formTimeout.Seconds())
	case errors.As(err, &tooLarge), errors.Is(err, errUploadTooLarge):
		return nil, http.StatusRequestEntityTooLarge, T(lang, "ov_err_size", report.FormatInt(lang, int(s.opt.MaxBodyBytes>>10)))
	case err != nil:
		return nil, http.StatusBadRequest, T(lang, "ov_err_form")
	}
	return doc, 0, ""
}

var errUploadTooLarge = errors.New("the file is larger than a run document may be")

// uploadedFile is the multipart body's "run" part, read part by part (nothing goes to
// a temporary file), at most max bytes.
func uploadedFile(r *http.Request, max int64) ([]byte, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, err
	}
	for {
		p, err := mr.NextPart()
		if err != nil {
			return nil, err // io.EOF: no "run" part
		}
		if p.FormName() != "run" {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(p, max+1))
		if err == nil && int64(len(b)) > max {
			err = errUploadTooLarge
		}
		return b, err
	}
}
