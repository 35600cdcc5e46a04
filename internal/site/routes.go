package site

import (
	"context"
	"net/http"
	"strings"

	"github.com/llmbench/llmbench/internal/site/wire"
)

// noRoute answers what no route matched: 405 with Allow when the path is a route for
// other methods (PUT /api/v1/runs), else the not-found page.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	if s.mux != nil {
		if methods := allowed(s.mux, r); len(methods) > 0 {
			w.Header().Set("Allow", strings.Join(methods, ", "))
			if strings.HasPrefix(r.URL.Path, "/api/") {
				wire.WriteError(w, http.StatusMethodNotAllowed, "method", r.Method+" is not allowed here; use "+strings.Join(methods, ", "))
				return
			}
			http.Error(w, "method not allowed; use "+strings.Join(methods, ", "), http.StatusMethodNotAllowed)
			return
		}
	}
	s.pages.NotFound(w, r)
}

// allowed lists the methods the site answers at r's path, from the routes themselves,
// for a 405's Allow header; nil when the path is no route at all.
func allowed(mux *http.ServeMux, r *http.Request) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := &http.Request{Method: m, URL: r.URL, Host: r.Host, Header: http.Header{}}
		probe = probe.WithContext(context.Background())
		if _, pattern := mux.Handler(probe); pattern != "" && pattern != "/" {
			out = append(out, m)
		}
	}
	return out
}
