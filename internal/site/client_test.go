package site

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/site/client"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// TestSubmitWaitsOutTheSitesRateLimit: against a site whose token allows one
// submission at a time, a second submission is told to wait (429, Retry-After), waits
// that long on the site's clock, and is answered; on both stores (PostgreSQL keeps the
// limit in the database).
func TestSubmitWaitsOutTheSitesRateLimit(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{RatePerToken: 6, RateBurst: 1})
		var mu sync.Mutex
		now := time.Now()
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		switch l := ts.srv.guards.Token.(type) {
		case *guard.MemoryLimiter:
			l.Now = clock
		case *guard.SharedLimiter:
			l.Now = clock
		}
		ts.mustSubmit(t, seedDoc(t))
		var waited []time.Duration
		var note strings.Builder
		res, err := client.SubmitRetrying(context.Background(), ts.Client(), ts.URL, ts.token, seedDoc(t), &note,
			func(_ context.Context, d time.Duration) error {
				waited = append(waited, d)
				mu.Lock()
				now = now.Add(d)
				mu.Unlock()
				return nil
			})
		if err != nil || res == nil || res.Created {
			t.Fatalf("the same run again, after waiting: %+v, %v; want it answered as already stored", res, err)
		}
		if len(waited) != 1 || waited[0] != 10*time.Second || !strings.Contains(note.String(), "429") {
			t.Errorf("waited %v saying %q; want the 10 s a rate of 6 a minute asks, after a 429", waited, note.String())
		}
	})
}
