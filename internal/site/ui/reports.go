package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/site/api"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// MaxFormBytes is the most the report form may send: its fields and their
// URL-encoding (at most ×3) of a report as large as the API takes.
const MaxFormBytes = 3*api.MaxReportBody + 16<<10

// ReportList shows GET /reports: the written reports.
func (s *Pages) ReportList(w http.ResponseWriter, r *http.Request) {
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

// ReportForm shows GET /reports/new: the form that publishes a report.
func (s *Pages) ReportForm(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "report_new", "reports", locale.T(locale.FromRequest(r), "report_new"), reportFormData{})
}

// reportFormSubmit publishes a report from the form, with the same checks as the API,
// and sends the browser to it (303); a refused form comes back with the reason and
// what was typed, except the token.
func (s *Pages) ReportFormSubmit(w http.ResponseWriter, r *http.Request) {
	lang := locale.FromRequest(r)
	refuse := func(status int, data reportFormData) {
		s.render(w, r, status, "report_new", "reports", locale.T(lang, "report_new"), data)
	}
	// An address that keeps failing to authenticate is turned away before its body is
	// read, and so is a body larger than a report can be.
	if ok, wait := s.guards.AuthFail.Peek(r.Context(), s.guards.ClientAddr(r)); !ok {
		guard.RetryAfter(w, wait)
		refuse(http.StatusTooManyRequests, reportFormData{Field: locale.T(lang, "report_token"), Error: locale.T(lang, "err_auth_failures")})
		return
	}
	if r.ContentLength > MaxFormBytes {
		refuse(http.StatusRequestEntityTooLarge, reportFormData{Error: locale.T(lang, "err_form_size", MaxFormBytes)})
		return
	}
	addr := s.guards.ClientAddr(r)
	if !s.guards.FormBodies.Acquire(r.Context(), addr, guard.BodyWait) {
		guard.RetryAfter(w, guard.BodyWait)
		refuse(http.StatusServiceUnavailable, reportFormData{Error: locale.T(lang, "err_busy")})
		return
	}
	s.guards.BodyDeadline(w, s.guards.FormTimeout)
	r.Body = http.MaxBytesReader(w, r.Body, MaxFormBytes)
	err := r.ParseForm()
	s.guards.FormBodies.Release(addr)
	if guard.IsTimeout(err) {
		refuse(http.StatusRequestTimeout, reportFormData{Error: locale.T(lang, "err_form_timeout", s.guards.FormTimeout.Seconds())})
		return
	}
	if err != nil {
		refuse(http.StatusBadRequest, reportFormData{Error: locale.T(lang, "err_form_size", MaxFormBytes)})
		return
	}
	sub := wire.ReportSubmission{Slug: strings.TrimSpace(r.PostForm.Get("slug")), Title: r.PostForm.Get("title"), BodyMD: r.PostForm.Get("body_md")}
	data := reportFormData{}
	// What was typed comes back only when it is text the page can show.
	if guard.CheckText("slug", sub.Slug, 128) == nil && guard.CheckText("title", sub.Title, 0) == nil && guard.CheckText("body_md", sub.BodyMD, 0) == nil {
		data = reportFormData{Slug: sub.Slug, Title: sub.Title, BodyMD: sub.BodyMD}
	}
	user, fail := s.guards.User(r, r.PostForm.Get("token"))
	if fail != nil {
		if fail.Status == http.StatusTooManyRequests {
			guard.RetryAfter(w, fail.RetryAfter)
		}
		data.Field, data.Error = locale.T(lang, "report_token"), formReason(lang, fail.Status, "token", fail.Reason)
		refuse(fail.Status, data)
		return
	}
	rep, status, ferr := s.api.PublishReport(r, user, sub)
	if ferr != nil {
		if status == http.StatusServiceUnavailable {
			guard.RetryAfter(w, api.FullRetry)
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
	if locale.Has(key) {
		return locale.T(lang, key)
	}
	if lang == locale.EN {
		return reason
	}
	return locale.T(lang, "form_other", reason)
}

// formField names a form field in the page's language.
func formField(lang, field string) string {
	if locale.Has("report_" + field) {
		return locale.T(lang, "report_"+field)
	}
	return field
}

type reportPageData struct {
	Report store.Report
	Body   template.HTML
}

// ReportPage shows GET /reports/{slug}: a report, with the runs it embeds.
func (s *Pages) ReportPage(w http.ResponseWriter, r *http.Request) {
	rep, err := s.store.Report(r.Context(), r.PathValue("slug"))
	if !s.found(w, r, "reading a report", err) {
		return
	}
	lang := locale.FromRequest(r)
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
func (s *Pages) runCard(ctx context.Context, id, lang string) string {
	rec, run, err := s.board.Run(ctx, id)
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
func (s *Pages) runRef(id, lang string, kind embedKind) string {
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
