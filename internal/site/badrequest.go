package site

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// badRequest answers a request the site cannot read: JSON for the API, a page for
// everything else.
func (s *Server) badRequest(w http.ResponseWriter, r *http.Request, ferr *guard.FieldError) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		wire.WriteError(w, http.StatusBadRequest, ferr.Field, ferr.Reason)
		return
	}
	// The page must not echo the address back as it came (it may be what was refused).
	r2 := r.Clone(r.Context())
	r2.URL = &url.URL{Path: "/", RawQuery: "lang=" + locale.FromRequest(r)}
	s.render(w, r2, http.StatusBadRequest, "error", "", locale.T(locale.FromRequest(r), "bad_request"), errorPage{Field: ferr.Field, Reason: ferr.Reason})
}

// errorPage is what the error template shows.
type errorPage struct {
	Field, Reason string
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
