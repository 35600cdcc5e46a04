package ui

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/site/api"
)

type apiRefData struct {
	Paths []apiPath
}

type apiPath struct {
	Method, Path, Summary string
	SummaryJA             string // the document's x-summary-ja
}

// Text is the operation's summary in lang.
func (a apiPath) Text(lang string) string {
	if lang == locale.JA && a.SummaryJA != "" {
		return a.SummaryJA
	}
	return a.Summary
}

// APIReference shows GET /api: the API's operations, each summary in the page's language.
func (s *Pages) APIReference(w http.ResponseWriter, r *http.Request) {
	paths, err := apiPaths()
	if err != nil {
		s.serverError(w, r, "reading the OpenAPI document", err)
		return
	}
	s.render(w, r, http.StatusOK, "api", "api", "", apiRefData{Paths: paths})
}

// apiPaths lists the operations of the embedded OpenAPI document, read once: the
// document is part of the binary and never changes while it runs.
var apiPaths = sync.OnceValues(func() ([]apiPath, error) {
	var doc struct {
		Paths map[string]map[string]struct {
			Summary   string `json:"summary"`
			SummaryJA string `json:"x-summary-ja"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(api.Reference(), &doc); err != nil {
		return nil, fmt.Errorf("decoding the OpenAPI document: %w", err)
	}
	var paths []apiPath
	for p, ops := range doc.Paths {
		for m, op := range ops {
			paths = append(paths, apiPath{Method: strings.ToUpper(m), Path: p, Summary: op.Summary, SummaryJA: op.SummaryJA})
		}
	}
	sortAPIPaths(paths)
	return paths, nil
})

func sortAPIPaths(ps []apiPath) {
	slices.SortFunc(ps, func(a, b apiPath) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Method, b.Method))
	})
}
