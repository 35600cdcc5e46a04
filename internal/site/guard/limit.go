package guard

import (
	"context"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/site/store"
)

// Limiter is a token bucket per key (an API token's hash, a client address).
type Limiter interface {
	// Allow takes one request from key's bucket; when it is empty it says how long
	// until the next request would be allowed.
	Allow(ctx context.Context, key string) (ok bool, retryAfter time.Duration)
	// Peek says whether key's bucket has a request left, without taking it: for limits
	// that count only requests that turn out badly (failed authentications).
	Peek(ctx context.Context, key string) (ok bool, retryAfter time.Duration)
}

// SharedLimiter keeps its buckets in the database, so that every instance of a site
// on one PostgreSQL database takes from the same bucket. A database error lets the
// request through (and is logged): the limits guard against abuse, and a site whose
// database fails cannot serve the request anyway.
type SharedLimiter struct {
	st     *store.Store
	prefix string // keeps the limits apart in one table: "tok:", "fail:", "ip:"
	perSec float64
	burst  int
	Now    func() time.Time // the clock (tests set their own)
	log    *slog.Logger
}

// Allow takes a request from key's bucket in the database.
func (l *SharedLimiter) Allow(ctx context.Context, key string) (bool, time.Duration) {
	return l.take(ctx, key, true)
}

// Peek says whether key's bucket in the database has a request left.
func (l *SharedLimiter) Peek(ctx context.Context, key string) (bool, time.Duration) {
	return l.take(ctx, key, false)
}

func (l *SharedLimiter) take(ctx context.Context, key string, consume bool) (bool, time.Duration) {
	ok, wait, err := l.st.TakeToken(ctx, l.prefix+key, l.perSec, l.burst, l.Now(), consume)
	if err != nil {
		l.log.Warn("rate limit unavailable; letting the request through", "limit", l.prefix, "err", err)
		return true, 0
	}
	return ok, wait
}

// MemoryLimiter is a Limiter in memory: each site instance limits on its own, which
// bounds the total at instances × rate. A SQLite site is one instance.
type MemoryLimiter struct {
	perSec float64
	burst  float64
	Now    func() time.Time // the clock (tests set their own)

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

// NewMemoryLimiter is a Limiter in memory of perSec requests a second, burst at once.
func NewMemoryLimiter(perSec float64, burst int) *MemoryLimiter {
	return &MemoryLimiter{perSec: perSec, burst: float64(burst), Now: time.Now, buckets: map[string]*bucket{}}
}

// Allow takes a request from key's bucket.
func (l *MemoryLimiter) Allow(_ context.Context, key string) (ok bool, retryAfter time.Duration) {
	return l.take(key, true)
}

// Peek says whether key's bucket has a request left.
func (l *MemoryLimiter) Peek(_ context.Context, key string) (ok bool, retryAfter time.Duration) {
	return l.take(key, false)
}

func (l *MemoryLimiter) take(key string, consume bool) (ok bool, retryAfter time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.Now()
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

// NewLimiter is a limit of perSec requests a second (burst at once) per key, shared by
// every instance when the database is PostgreSQL (the one that several instances can
// share), in memory otherwise; prefix keeps its buckets apart from other limits'.
func NewLimiter(st *store.Store, log *slog.Logger, prefix string, perSec float64, burst int) Limiter {
	if st != nil && st.Dialect() == store.Postgres {
		return &SharedLimiter{st: st, prefix: prefix, perSec: perSec, burst: burst, Now: time.Now, log: log}
	}
	return NewMemoryLimiter(perSec, burst)
}
