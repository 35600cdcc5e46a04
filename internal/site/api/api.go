// Package api is the site's JSON API under /api/v1 (the reference: openapi.json,
// served at /api/openapi.json): runs submitted and listed, a run's document and its
// capacity, the leaderboard, hardware, models and families, reports, and the
// calculator's prediction. Its answers are internal/site/wire's types; what comes in
// passes internal/site/guard first.
package api

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/site/board"
	"github.com/llmbench/llmbench/internal/site/calc"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// API answers the JSON API of one site.
type API struct {
	store  *store.Store
	log    *slog.Logger
	board  *board.Board
	calc   *calc.Service // nil: the site has no calculator
	specs  calc.Catalog  // nil: no group has catalog specs
	guards *guard.Guards
}

// Config is what the API answers from.
type Config struct {
	Store   *store.Store
	Log     *slog.Logger
	Board   *board.Board
	Calc    *calc.Service
	Catalog calc.Catalog
	Guards  *guard.Guards
}

// New is the API of cfg's site.
func New(cfg Config) *API {
	return &API{store: cfg.Store, log: cfg.Log, board: cfg.Board, calc: cfg.Calc, specs: cfg.Catalog, guards: cfg.Guards}
}

// authorizedBody is how every POST starts: it finds the user of the request's bearer
// token, takes one request from that token's rate limit and reads the body up to
// MaxBodyBytes, writing the 401, 429 or 413 itself when one of them fails. Nothing is
// read from the body before the token is known and within its rate.
func (s *API) authorizedBody(w http.ResponseWriter, r *http.Request) (store.User, []byte, bool) {
	user, ok := s.authenticate(w, r)
	if !ok {
		return store.User{}, nil, false
	}
	body, ok := s.readBody(w, r, store.HashToken(guard.BearerToken(r.Header.Get("Authorization"))))
	return user, body, ok
}

// authenticate finds the user of the request's bearer token (guard.Guards.User), writing
// the 401, 429 or 500 itself when the request may not go on.
func (s *API) authenticate(w http.ResponseWriter, r *http.Request) (store.User, bool) {
	token := guard.BearerToken(r.Header.Get("Authorization"))
	u, fail := s.guards.User(r, token)
	if fail == nil {
		return u, true
	}
	switch fail.Status {
	case http.StatusUnauthorized:
		challenge := `Bearer realm="llmbench"`
		if strings.TrimSpace(token) != "" {
			challenge += `, error="invalid_token"`
		}
		w.Header().Set("WWW-Authenticate", challenge)
		wire.WriteError(w, fail.Status, "Authorization", fail.Reason)
	case http.StatusTooManyRequests:
		guard.TooMany(w, fail.RetryAfter, fail.Reason)
	default:
		wire.WriteError(w, fail.Status, "", fail.Reason)
	}
	return store.User{}, false
}

// readBody reads at most MaxBodyBytes of the body of a request with token (its hash),
// writing the 413 itself when the body is larger (before reading anything, when
// Content-Length says so), and a 503 when too many bodies are being read at once, or
// maxBodiesPerToken with this token.
func (s *API) readBody(w http.ResponseWriter, r *http.Request, token string) ([]byte, bool) {
	if r.ContentLength > s.guards.MaxBody() {
		wire.WriteError(w, http.StatusRequestEntityTooLarge, "", fmt.Sprintf("the body is over the limit of %d bytes", s.guards.MaxBody()))
		return nil, false
	}
	if !s.guards.Bodies.Acquire(r.Context(), token, guard.BodyWait) {
		guard.RetryAfter(w, guard.BodyWait)
		wire.WriteError(w, http.StatusServiceUnavailable, "", fmt.Sprintf("the site is busy reading other submissions, or %d of this token's; try again shortly", guard.MaxBodiesPerToken))
		return nil, false
	}
	defer s.guards.Bodies.Release(token)
	s.guards.BodyDeadline(w, s.guards.APITimeout)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.guards.MaxBody()))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		wire.WriteError(w, http.StatusRequestEntityTooLarge, "", fmt.Sprintf("the body is over the limit of %d bytes", s.guards.MaxBody()))
		return nil, false
	}
	if guard.IsTimeout(err) {
		wire.WriteError(w, http.StatusRequestTimeout, "", fmt.Sprintf("the body did not arrive within %s", s.guards.APITimeout))
		return nil, false
	}
	if err != nil {
		wire.WriteError(w, http.StatusBadRequest, "", "reading the body: "+err.Error())
		return nil, false
	}
	return body, true
}

// Limits of what a submission may hold beyond a run document's own.
const (
	maxTitle      = 200       // characters of a report's title
	MaxReportBody = 256 << 10 // bytes of a report's Markdown
	// FullRetry is the Retry-After of a 503 for a full database.
	FullRetry = 5 * time.Minute
)

// reasonFull is what a submitter reads when the database has no room.
const reasonFull = "the site's database is out of space (its disk is full), so nothing was stored; the operator has to free space; try again later"
