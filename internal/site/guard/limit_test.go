package guard

import (
	"context"
	"testing"
	"time"
)

func TestRateLimiterRefills(t *testing.T) {
	now := time.Unix(0, 0)
	l := NewMemoryLimiter(2, 2) // 2 per second, burst 2
	l.Now = func() time.Time { return now }
	for i := range 2 {
		if ok, _ := l.Allow(context.Background(), "k"); !ok {
			t.Fatalf("request %d of the burst refused", i)
		}
	}
	ok, wait := l.Allow(context.Background(), "k")
	if ok || wait <= 0 || wait > time.Second {
		t.Fatalf("third request: ok=%v wait=%v; want refused with a wait ≤ 1 s", ok, wait)
	}
	now = now.Add(wait)
	if ok, _ := l.Allow(context.Background(), "k"); !ok {
		t.Errorf("refused after waiting the advertised %v", wait)
	}
}
