package api

import (
	"net/http"
	"net/url"

	"github.com/llmbench/llmbench/internal/site/board"
	"github.com/llmbench/llmbench/internal/site/calc"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// apiGroups answers GET /api/v1/hardware, /models and /families: each group with its
// run count, best measured figures and catalog specs.
func (s *API) groups(w http.ResponseWriter, r *http.Request, kind board.Group) {
	gs, err := kind.List(s.store, r.Context())
	if err != nil {
		s.log.Error("listing groups", "err", err)
		wire.WriteError(w, http.StatusInternalServerError, "", "could not list")
		return
	}
	out := []wire.Group{}
	for _, g := range gs {
		sp, _ := calc.SpecsOf(s.specs, g.Name, kind.ModelSpecs)
		out = append(out, wire.Group{Name: g.Name, Runs: g.Runs, BestDecode: g.BestDecode, BestPeak: g.BestPeak, VRAMGB: g.VRAMGB, URL: "/" + kind.Nav + "/" + url.PathEscape(g.Name), Specs: sp})
	}
	wire.Write(w, http.StatusOK, out)
}

// Hardware answers GET /api/v1/hardware.
func (s *API) Hardware(w http.ResponseWriter, r *http.Request) { s.groups(w, r, board.GPUs) }

// Models answers GET /api/v1/models.
func (s *API) Models(w http.ResponseWriter, r *http.Request) { s.groups(w, r, board.Models) }

// Families answers GET /api/v1/families.
func (s *API) Families(w http.ResponseWriter, r *http.Request) { s.groups(w, r, board.Families) }
