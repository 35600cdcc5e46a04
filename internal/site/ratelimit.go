package site

import (
	"context"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/site/store"
)

// limiter is a token bucket per key (an API token's hash, a client address).
type limiter interface {
	// allow takes one request from key's bucket; when it is empty it says how long
	// until the next request would be allowed.
	allow(ctx context.Context, key string) (ok bool, retryAfter time.Duration)
	// peek says whether key's bucket has a request left, without taking it: for limits
	// that count only requests that turn out badly (failed authentications).
	peek(ctx context.Context, key string) (ok bool, retryAfter time.Duration)
}

// sharedLimiter keeps its buckets in the database, so that every instance of a site
// on one PostgreSQL database takes from the same bucket. A database error lets the
// request through (and is logged): the limits guard against abuse, and a site whose
// database fails cannot serve the request anyway.
type sharedLimiter struct {
	st     *store.Store
	prefix string // keeps the limits apart in one table: "tok:", "fail:", "ip:"
	perSec float64
	burst  int
	now    func() time.Time
	log    *slog.Logger
}

func (l *sharedLimiter) allow(ctx context.Context, key string) (bool, time.Duration) {
	return l.take(ctx, key, true)
}

func (l *sharedLimiter) peek(ctx context.Context, key string) (bool, time.Duration) {
	return l.take(ctx, key, false)
}

func (l *sharedLimiter) take(ctx context.Context, key string, consume bool) (bool, time.Duration) {
	ok, wait, err := l.st.TakeToken(ctx, l.prefix+key, l.perSec, l.burst, l.now(), consume)
	if err != nil {
		l.log.Warn("rate limit unavailable; letting the request through", "limit", l.prefix, "err", err)
		return true, 0
	}
	return ok, wait
}

// rateLimiter is a limiter in memory: each site instance limits on its own, which
// bounds the total at instances × rate. A SQLite site is one instance.
type rateLimiter struct {
	perSec float64
	burst  float64
	now    func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newRateLimiter(perSec float64, burst int) *rateLimiter {
	return &rateLimiter{perSec: perSec, burst: float64(burst), now: time.Now, buckets: map[string]*bucket{}}
}

func (l *rateLimiter) allow(_ context.Context, key string) (ok bool, retryAfter time.Duration) {
	return l.take(key, true)
}

func (l *rateLimiter) peek(_ context.Context, key string) (ok bool, retryAfter time.Duration) {
	return l.take(key, false)
}

func (l *rateLimiter) take(key string, consume bool) (ok bool, retryAfter time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b, found := l.buckets[key]
	if !found {
		// Forget idle buckets now and then so the map cannot grow without bound.
		if len(l.buckets) > 10000 {
			for k, old := range l.buckets {
				if now.Sub(old.last).Seconds()*l.perSec >= l.burst {
					delete(l.buckets, k)
				}
			}
		}
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	b.tokens = math.Min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.perSec)
	b.last = now
	if b.tokens >= 1 {
		if consume {
			b.tokens--
		}
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) / l.perSec * float64(time.Second))
	return false, wait
}
