package site

import (
	"math"
	"sync"
	"time"
)

// rateLimiter is a token bucket per key (an API token's hash, a client address), in
// memory: each site instance limits on its own, which bounds the total at instances ×
// rate.
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

// allow takes one request from key's bucket; when it is empty it says how long until
// the next request would be allowed.
func (l *rateLimiter) allow(key string) (ok bool, retryAfter time.Duration) {
	return l.take(key, true)
}

// peek says whether key's bucket has a request left, without taking it: for limits
// that count only requests that turn out badly (failed authentications).
func (l *rateLimiter) peek(key string) (ok bool, retryAfter time.Duration) {
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
