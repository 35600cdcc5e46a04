package guard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// Slots bound how many request bodies are read at once, so that many clients
// sending large bodies together cannot hold more than slots × the body limit in memory.
type Slots chan struct{}

// Acquire waits for a slot, at most wait; false when none came free (the caller answers 503).
func (b Slots) Acquire(ctx context.Context, wait time.Duration) bool {
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

// Release gives a slot back.
func (b Slots) Release() { <-b }

// How long a body may take to arrive, and how many are read at once, in all and per
// client. API bodies are read only after their token is known and within its rate,
// and at most 2 per token, so that one token sending slowly cannot hold every slot
// (16 bodies of 60 s each, renewed within its rate) while everyone else waits. The
// report form carries its token inside its body, so its bodies are read in slots of
// their own, at most 2 per address: clients without a token who send slowly hold at
// most those, never the slots of API submissions.
const (
	// BodyWait is how long a request waits for a body slot before it is told to retry.
	BodyWait             = 10 * time.Second
	apiReadTimeout       = 60 * time.Second // a 4 MiB run at 70 KB/s
	formReadTimeout      = 15 * time.Second // a 784 KB form at 52 KB/s
	MaxBodiesAtOnce      = 16
	MaxBodiesPerToken    = 2
	MaxFormBodiesAtOnce  = 8
	MaxFormBodiesPerAddr = 2
)

// KeyedSlots bound the bodies read at once, in all and per key (an API token's hash,
// a client address).
type KeyedSlots struct {
	all    Slots
	perKey int
	mu     sync.Mutex
	held   map[string]int
	Taken  func(key string) // tests: called when a slot is taken
}

// NewKeyedSlots bounds bodies to all at once, perKey of them for one key.
func NewKeyedSlots(all, perKey int) *KeyedSlots {
	return &KeyedSlots{all: make(Slots, all), perKey: perKey, held: map[string]int{}}
}

// Acquire takes a slot for key, waiting at most wait for one of all; false at once
// when key already holds perKey.
func (k *KeyedSlots) Acquire(ctx context.Context, key string, wait time.Duration) bool {
	k.mu.Lock()
	if k.held[key] >= k.perKey {
		k.mu.Unlock()
		return false
	}
	k.held[key]++
	k.mu.Unlock()
	if !k.all.Acquire(ctx, wait) {
		k.drop(key)
		return false
	}
	if k.Taken != nil {
		k.Taken(key)
	}
	return true
}

// Release gives key's slot back.
func (k *KeyedSlots) Release(key string) {
	k.all.Release()
	k.drop(key)
}

func (k *KeyedSlots) drop(key string) {
	k.mu.Lock()
	if k.held[key]--; k.held[key] <= 0 {
		delete(k.held, key)
	}
	k.mu.Unlock()
}

// BodyDeadline ends the reading of the request's body after d (the connection's read
// deadline), so that a client sending a byte a second holds its slot for d at most.
// A ResponseWriter that cannot set it (a test recorder) leaves the body unbounded in time.
func (g *Guards) BodyDeadline(w http.ResponseWriter, d time.Duration) {
	if err := http.NewResponseController(w).SetReadDeadline(time.Now().Add(d)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		g.log.Warn("setting a body's read deadline", "err", err)
	}
}

// IsTimeout reports whether reading a body failed because its deadline passed.
func IsTimeout(err error) bool {
	var ne net.Error
	return err != nil && (errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded))
}
