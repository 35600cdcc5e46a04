package site

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// What a request's address may hold: every query value and every path segment is a
// name, an id or a number, so none needs more than maxName characters; a longer one
// is refused before any handler looks it up (a fuzzy catalog lookup of a 400 KB name
// costs seconds of CPU).
const (
	maxPathBytes   = 1024
	maxQueryParams = 64
)

// checkRequest refuses a request whose address the site cannot use as text: a path or
// query value that is not UTF-8, holds NUL, or is longer than a name may be. It
// returns the field at fault ("path", or the query parameter's name).
func checkRequest(r *http.Request) *FieldError {
	if len(r.URL.Path) > maxPathBytes {
		return &FieldError{Field: "path", Reason: "the address is too long"}
	}
	for _, seg := range strings.Split(r.URL.Path, "/") {
		if err := checkText("path", seg, maxName); err != nil {
			return err
		}
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return &FieldError{Field: "query", Reason: "the query string cannot be read: " + err.Error()}
	}
	if len(q) > maxQueryParams {
		return &FieldError{Field: "query", Reason: "too many query parameters"}
	}
	for k, vs := range q {
		if err := checkText("query", k, maxName); err != nil {
			return err
		}
		if len(vs) > maxQueryParams {
			return &FieldError{Field: k, Reason: "given too many times"}
		}
		for _, v := range vs {
			if err := checkText(k, v, maxName); err != nil {
				return err
			}
		}
	}
	return nil
}

// badRequest answers a request the site cannot read: JSON for the API, a page for
// everything else.
func (s *Server) badRequest(w http.ResponseWriter, r *http.Request, ferr *FieldError) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		writeAPIError(w, http.StatusBadRequest, ferr.Field, ferr.Reason)
		return
	}
	// The page must not echo the address back as it came (it may be what was refused).
	r2 := r.Clone(r.Context())
	r2.URL = &url.URL{Path: "/", RawQuery: "lang=" + requestLang(r)}
	s.render(w, r2, http.StatusBadRequest, "error", "", T(requestLang(r), "bad_request"), errorPage{Field: ferr.Field, Reason: ferr.Reason})
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

// bodySlots bounds how many request bodies are read at once, so that many clients
// sending large bodies together cannot hold more than slots × the body limit in memory.
type bodySlots chan struct{}

// acquire waits for a slot, at most wait; false when none came free (the caller answers 503).
func (b bodySlots) acquire(ctx context.Context, wait time.Duration) bool {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case b <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	case <-t.C:
		return false
	}
}

func (b bodySlots) release() { <-b }
