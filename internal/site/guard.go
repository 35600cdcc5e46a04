package site

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/locale"
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

// How long a body may take to arrive, and how many are read at once, in all and per
// client. API bodies are read only after their token is known and within its rate,
// and at most 2 per token, so that one token sending slowly cannot hold every slot
// (16 bodies of 60 s each, renewed within its rate) while everyone else waits. The
// report form carries its token inside its body, so its bodies are read in slots of
// their own, at most 2 per address: clients without a token who send slowly hold at
// most those, never the slots of API submissions.
const (
	apiReadTimeout       = 60 * time.Second // a 4 MiB run at 70 KB/s
	formReadTimeout      = 15 * time.Second // a 784 KB form at 52 KB/s
	maxBodiesAtOnce      = 16
	maxBodiesPerToken    = 2
	maxFormBodiesAtOnce  = 8
	maxFormBodiesPerAddr = 2
)

// keyedSlots bounds the bodies read at once, in all and per key (an API token's hash,
// a client address).
type keyedSlots struct {
	all    bodySlots
	perKey int
	mu     sync.Mutex
	held   map[string]int
	taken  func(key string) // tests: called when a slot is taken
}

func newKeyedSlots(all, perKey int) *keyedSlots {
	return &keyedSlots{all: make(bodySlots, all), perKey: perKey, held: map[string]int{}}
}

// acquire takes a slot for key, waiting at most wait for one of all; false at once
// when key already holds perKey.
func (k *keyedSlots) acquire(ctx context.Context, key string, wait time.Duration) bool {
	k.mu.Lock()
	if k.held[key] >= k.perKey {
		k.mu.Unlock()
		return false
	}
	k.held[key]++
	k.mu.Unlock()
	if !k.all.acquire(ctx, wait) {
		k.drop(key)
		return false
	}
	if k.taken != nil {
		k.taken(key)
	}
	return true
}

func (k *keyedSlots) release(key string) {
	k.all.release()
	k.drop(key)
}

func (k *keyedSlots) drop(key string) {
	k.mu.Lock()
	if k.held[key]--; k.held[key] <= 0 {
		delete(k.held, key)
	}
	k.mu.Unlock()
}

// bodyDeadline ends the reading of the request's body after d (the connection's read
// deadline), so that a client sending a byte a second holds its slot for d at most.
// A ResponseWriter that cannot set it (a test recorder) leaves the body unbounded in time.
func (s *Server) bodyDeadline(w http.ResponseWriter, d time.Duration) {
	if err := http.NewResponseController(w).SetReadDeadline(time.Now().Add(d)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.log.Warn("setting a body's read deadline", "err", err)
	}
}

// isTimeout reports whether reading a body failed because its deadline passed.
func isTimeout(err error) bool {
	var ne net.Error
	return err != nil && (errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded))
}
