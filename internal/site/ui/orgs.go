package ui

import (
	"net/http"

	"github.com/llmbench/llmbench/internal/site/store"
)

type orgListData struct {
	Orgs       []store.Org
	Submitters []store.Submitter
	Authors    []store.Facet
}

// OrgList shows GET /orgs: organisations, submitters and authors.
func (s *Pages) OrgList(w http.ResponseWriter, r *http.Request) {
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

// OrgPage shows GET /orgs/{name}: an organisation's runs.
func (s *Pages) OrgPage(w http.ResponseWriter, r *http.Request) {
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
	s.NotFound(w, r)
}
