package ui

import (
	"net/http"
	"net/url"

	"github.com/llmbench/llmbench/internal/site/store"
)

// Two kinds of people are named on the site, and never mixed up: a submitter is the
// site account whose API token sent a run or a report (the operator made the token, so
// the name is the site's word); an author is whoever a run document says made it (its
// own "submitter" field: text anyone could type). Each has a page of their own.

type personData struct {
	Name      string
	Submitter bool // a site account; false: a name documents give
	Org       string
	Runs      []store.RunRecord
	Reports   []store.Report
	More      bool // more runs than the page shows
	RunsURL   string
}

const personRuns = 100

// SubmitterPage shows GET /submitters/{name}: the runs a site account submitted.
func (s *Pages) SubmitterPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	name := r.PathValue("name")
	u, err := s.store.UserByName(ctx, name)
	if !s.found(w, r, "reading a user", err) {
		return
	}
	d := personData{Name: u.Name, Submitter: true, Org: u.Org, RunsURL: "/runs?submitter=" + queryEscape(u.Name)}
	if d.Runs, err = s.store.ListRuns(ctx, store.Query{Submitter: u.Name, Limit: personRuns + 1}); err != nil {
		s.serverError(w, r, "listing runs", err)
		return
	}
	if d.Reports, err = s.store.ReportsBy(ctx, u.Name); err != nil {
		s.serverError(w, r, "listing reports", err)
		return
	}
	d.trim()
	s.render(w, r, http.StatusOK, "person", "orgs", u.Name, d)
}

// AuthorPage shows GET /authors/{name}: the runs whose documents name this author.
func (s *Pages) AuthorPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	name := r.PathValue("name")
	d := personData{Name: name, RunsURL: "/runs?author=" + queryEscape(name)}
	var err error
	if d.Runs, err = s.store.ListRuns(ctx, store.Query{Author: name, Limit: personRuns + 1}); err != nil {
		s.serverError(w, r, "listing runs", err)
		return
	}
	if len(d.Runs) == 0 {
		s.found(w, r, "", store.ErrNotFound)
		return
	}
	d.trim()
	s.render(w, r, http.StatusOK, "person", "orgs", name, d)
}

func (d *personData) trim() {
	if len(d.Runs) > personRuns {
		d.Runs, d.More = d.Runs[:personRuns], true
	}
}

func queryEscape(s string) string { return url.QueryEscape(s) }
