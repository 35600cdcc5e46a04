package guard

import (
	"errors"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/site/store"
)

// Failed authentications allowed per client address: a token is 256 random bits, so
// guessing is hopeless anyway; the limit keeps junk requests from costing a lookup each.
const (
	authFailuresPerMin = 10
	AuthFailureBurst   = 10
)

// Run documents laid over the best without a token (the upload page, POST /against)
// allowed per client address: a minute's share and a burst.
const (
	againstPerMin = 20
	AgainstBurst  = 5
)

// Config is what a site asks of its guards ("llmbench serve"'s flags).
type Config struct {
	MaxBodyBytes int64   // largest run document accepted
	RatePerToken float64 // submissions per minute per token
	RateBurst    int
	// RatePerIP limits every request from one client address, per minute (with
	// BurstPerIP at once); 0 leaves requests unlimited, as behind a proxy that limits.
	RatePerIP  float64
	BurstPerIP int
	// TrustProxy takes the client address from the last X-Forwarded-For entry (the one
	// the site's own reverse proxy adds) instead of the connection's.
	TrustProxy bool
}

// Guards are one site's limits, shared by its pages and its API.
type Guards struct {
	store *store.Store
	log   *slog.Logger
	cfg   Config
	// Token limits submissions per API token; AuthFail failed authentications per
	// client address; PerIP (nil when Config.RatePerIP is 0) every request per client
	// address.
	Token, AuthFail, PerIP Limiter
	// Against limits the documents laid over the best (POST /against) per address.
	Against Limiter
	// Bodies are the API's request bodies read at once, per token; FormBodies the
	// report form's (unauthenticated) bodies, per address; Validations the run
	// documents being checked at once.
	Bodies, FormBodies *KeyedSlots
	Validations        Slots
	// APITimeout and FormTimeout bound the time a body may take (shorter in tests).
	APITimeout, FormTimeout time.Duration
}

// New makes the guards of a site over st.
func New(st *store.Store, log *slog.Logger, cfg Config) *Guards {
	g := &Guards{store: st, log: log, cfg: cfg,
		Token:       NewLimiter(st, log, "tok:", cfg.RatePerToken/60, cfg.RateBurst),
		AuthFail:    NewLimiter(st, log, "fail:", authFailuresPerMin/60.0, AuthFailureBurst),
		Against:     NewLimiter(st, log, "against:", againstPerMin/60.0, AgainstBurst),
		Bodies:      NewKeyedSlots(MaxBodiesAtOnce, MaxBodiesPerToken),
		FormBodies:  NewKeyedSlots(MaxFormBodiesAtOnce, MaxFormBodiesPerAddr),
		Validations: make(Slots, max(1, runtime.GOMAXPROCS(0))),
		APITimeout:  apiReadTimeout, FormTimeout: formReadTimeout}
	if cfg.RatePerIP > 0 {
		g.PerIP = NewLimiter(st, log, "ip:", cfg.RatePerIP/60, cfg.BurstPerIP)
	}
	return g
}

// MaxBody is the largest request body the API reads.
func (g *Guards) MaxBody() int64 { return g.cfg.MaxBodyBytes }

// ClientAddr is the address a request came from: the connection's host, or with
// TrustProxy the last X-Forwarded-For entry, which the site's own proxy appended (the
// entries before it are whatever the client claimed).
func (g *Guards) ClientAddr(r *http.Request) string {
	if g.cfg.TrustProxy {
		if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
			parts := strings.Split(xff[len(xff)-1], ",")
			if a := strings.TrimSpace(parts[len(parts)-1]); a != "" {
				return a
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// AuthFailure is why a request may not act as a user: the status, the reason to show,
// and how long to wait when it is a rate limit.
type AuthFailure struct {
	Status     int
	Reason     string
	RetryAfter time.Duration
}

// User finds the user of an API token and applies the failure limit of the client's
// address and the token's own rate limit. The API (bearer token) and the report form
// (token field) both come here.
func (g *Guards) User(r *http.Request, token string) (store.User, *AuthFailure) {
	// An address that keeps failing is turned away before its next token is looked up.
	ctx, addr := r.Context(), g.ClientAddr(r)
	if ok, wait := g.AuthFail.Peek(ctx, addr); !ok {
		return store.User{}, &AuthFailure{http.StatusTooManyRequests, "too many failed authentications from this address", wait}
	}
	token = strings.TrimSpace(token)
	if token == "" {
		g.AuthFail.Allow(ctx, addr)
		return store.User{}, &AuthFailure{Status: http.StatusUnauthorized, Reason: "send an API token: Authorization: Bearer <token> (an operator creates one with llmbench serve token create)"}
	}
	u, err := g.store.UserByToken(ctx, token)
	if errors.Is(err, store.ErrNotFound) {
		g.AuthFail.Allow(ctx, addr)
		return store.User{}, &AuthFailure{Status: http.StatusUnauthorized, Reason: "unknown API token"}
	}
	if err != nil {
		g.log.Error("checking a token", "err", err)
		return store.User{}, &AuthFailure{Status: http.StatusInternalServerError, Reason: "could not check the token"}
	}
	if ok, wait := g.Token.Allow(ctx, store.HashToken(token)); !ok {
		return store.User{}, &AuthFailure{http.StatusTooManyRequests, "too many requests with this token", wait}
	}
	return u, nil
}

// BearerToken is the token of an Authorization header's Bearer credentials, "" when it
// has none. The scheme is case-insensitive (RFC 7235 §2.1: "bearer" is "Bearer").
func BearerToken(header string) string {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}
