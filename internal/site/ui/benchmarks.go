package ui

import (
	"net/http"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/site/metric"
)

type profileView struct {
	Name, Description string
	Runs              int
	Profile           metric.Profile
}

// Benchmarks shows GET /benchmarks: the benchmark profiles and their runs.
func (s *Pages) Benchmarks(w http.ResponseWriter, r *http.Request) {
	lang := locale.FromRequest(r)
	f, err := s.board.Facets(r.Context())
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
		out = append(out, profileView{Name: p.Name, Description: locale.T(lang, "profile_"+p.Name), Runs: counts[p.Name], Profile: p})
	}
	s.render(w, r, http.StatusOK, "benchmarks", "benchmarks", "", out)
}
