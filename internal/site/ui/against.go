package ui

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/metric"
)

// "My run against the best": a run laid over the best run of its GPU and model, cell
// by cell, marked where the 95% intervals do not overlap (internal/overlay, the rule
// llmbench report --against marks by too; the rows are the report's own,
// report.NewOverlayView). The run page shows it for its run; the upload page (GET
// /against) for a document the reader picks, posted to POST /against, checked as a
// submission is and never stored.

// multipartSlack is what a form's boundary and part headers add to the document.
const multipartSlack = 16 << 10

// againstView is the overlay section as a page shows it, every text in the page's
// language, or None saying why there is nothing to lay the run over.
type againstView struct {
	*report.OverlayView
	Title, Lead, BestURL, None string
	Upload                     string // the link to the upload page
}

// against lays run over the best other run of its GPU and model on this site (the
// board's BestAgainst). nil for an open-loop run: it has no matrix.
func (s *Pages) against(ctx context.Context, run *rundoc.Run, lang string) (*againstView, error) {
	if metric.ModeOf(run) == metric.ModeRate {
		return nil, nil
	}
	v := &againstView{Title: locale.T(lang, "ov_title"), Lead: locale.T(lang, "ov_site_lead"), Upload: locale.T(lang, "ov_upload_link")}
	best, id, err := s.board.BestAgainst(ctx, run)
	switch {
	case err != nil:
		return nil, err
	case best == nil:
		sum := metric.Summarize(run)
		v.None = locale.T(lang, "ov_none", sum.Model, sum.GPU)
	default:
		v.BestURL = "/runs/" + pathEscape(id)
		v.OverlayView = report.NewOverlayView(lang, run, report.Baseline{Run: best, URL: v.BestURL})
	}
	return v, nil
}

// runAgainst is the run page's overlay section; an error leaves the section out (the
// page still shows the run) and is logged.
func (s *Pages) runAgainst(ctx context.Context, run *rundoc.Run, lang string) *againstView {
	v, err := s.against(ctx, run, lang)
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

// AgainstForm shows GET /against: the file picker.
func (s *Pages) AgainstForm(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "against", "", locale.T(locale.FromRequest(r), "ov_upload_title"), againstData{})
}

// AgainstUpload answers POST /against: the document posted (multipart, field "run"),
// checked as a submission is (its size before reading, strict JSON, rundoc.Validate),
// laid over the best run, and forgotten. It never stores, and answers each refusal
// with the form, its status and the reason.
func (s *Pages) AgainstUpload(w http.ResponseWriter, r *http.Request) {
	lang := locale.FromRequest(r)
	refuse := func(status int, reason string) {
		s.render(w, r, status, "against", "", locale.T(lang, "ov_upload_title"), againstData{Error: reason})
	}
	addr := s.guards.ClientAddr(r)
	if ok, wait := s.guards.Against.Allow(r.Context(), addr); !ok {
		refuse(http.StatusTooManyRequests, locale.T(lang, "ov_err_rate", guard.RetryAfter(w, wait)))
		return
	}
	doc, status, reason := s.readUpload(w, r, addr)
	if status != 0 {
		refuse(status, reason)
		return
	}
	if !s.guards.Validations.Acquire(r.Context(), guard.BodyWait) {
		guard.RetryAfter(w, guard.BodyWait)
		refuse(http.StatusServiceUnavailable, locale.T(lang, "err_busy"))
		return
	}
	mine, ferr := guard.ValidateRun(doc)
	s.guards.Validations.Release()
	if ferr != nil {
		refuse(http.StatusBadRequest, locale.T(lang, "ov_err_invalid", strings.TrimPrefix(ferr.Field+": "+ferr.ReasonIn(lang), ": ")))
		return
	}
	v, err := s.against(r.Context(), mine, lang)
	switch {
	case err != nil:
		s.log.Error("laying an uploaded run over the best", "err", err)
		guard.RetryAfter(w, guard.BodyWait)
		refuse(http.StatusServiceUnavailable, locale.T(lang, "err_busy"))
		return
	case v == nil:
		refuse(http.StatusUnprocessableEntity, locale.T(lang, "ov_err_rate_run"))
		return
	}
	s.render(w, r, http.StatusOK, "against", "", locale.T(lang, "ov_upload_title"), againstData{Mine: metric.Summarize(mine).Title, Against: v})
}

// readUpload reads the form's "run" file: refused before reading when the body is
// larger than a document may be, one body at a time per address (the report form's
// slots), within the form's time. status 0: doc is the file's bytes.
func (s *Pages) readUpload(w http.ResponseWriter, r *http.Request, addr string) (doc []byte, status int, reason string) {
	lang := locale.FromRequest(r)
	max := s.guards.MaxBody()
	tooLarge := locale.T(lang, "ov_err_size", report.FormatInt(lang, int(max>>10)))
	if r.ContentLength > max+multipartSlack {
		return nil, http.StatusRequestEntityTooLarge, tooLarge
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "multipart/form-data" {
		return nil, http.StatusUnsupportedMediaType, locale.T(lang, "ov_err_form")
	}
	if !s.guards.FormBodies.Acquire(r.Context(), addr, guard.BodyWait) {
		guard.RetryAfter(w, guard.BodyWait)
		return nil, http.StatusServiceUnavailable, locale.T(lang, "err_busy")
	}
	defer s.guards.FormBodies.Release(addr)
	s.guards.BodyDeadline(w, s.guards.FormTimeout)
	r.Body = http.MaxBytesReader(w, r.Body, max+multipartSlack)
	doc, err := uploadedFile(r, max)
	var over *http.MaxBytesError
	switch {
	case guard.IsTimeout(err):
		return nil, http.StatusRequestTimeout, locale.T(lang, "err_form_timeout", s.guards.FormTimeout.Seconds())
	case errors.As(err, &over), errors.Is(err, errUploadTooLarge):
		return nil, http.StatusRequestEntityTooLarge, tooLarge
	case err != nil:
		return nil, http.StatusBadRequest, locale.T(lang, "ov_err_form")
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
