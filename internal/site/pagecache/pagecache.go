// Package pagecache keeps whole answers to GET requests, so that 64 readers of the
// same page cost one rendering (Cache).
package pagecache

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/locale"
)

// Cache keeps whole answers to GET requests, so that 64 readers of the same
// leaderboard, hardware or model page cost one rendering, not 64: rendering is most of
// a page's cost (templates, then the store's queries). An answer is kept only when it
// is a 200 that sets no cookie but the language one its URL asks for (?lang=: the
// same for every reader of that URL) and nobody authenticated; it is keyed by the request's
// path and query and the language it is shown in, and it is current while the store
// has committed no change since it was computed (this instance's submissions show at
// once) and for at most ttl (another instance's, within it). Concurrent requests for
// an answer being computed wait for it rather than compute it again.
type Cache struct {
	ttl      time.Duration
	maxBytes int
	maxPage  int    // one answer's body; a larger one is not kept
	Waiting  func() // tests: called when a reader starts waiting for another's rendering
	mu       sync.Mutex
	entries  map[string]*pageEntry
	bytes    int
	pending  map[string]*pendingPage
}

// pageEntry is one kept answer: its status, headers and body, the store's write count
// when its computation began and when it was kept.
type pageEntry struct {
	header http.Header
	body   []byte
	writes uint64
	at     time.Time
}

// pendingPage is an answer being computed; done closes when it is (entry is nil when
// it could not be kept).
type pendingPage struct {
	done  chan struct{}
	entry *pageEntry
}

const (
	Bytes        = 64 << 20 // every kept body together, unless New is told otherwise
	MaxPageBytes = 4 << 20  // one body; a larger one is not kept
)

// New keeps answers for at most ttl, maxBytes of bodies in all.
func New(ttl time.Duration, maxBytes int) *Cache {
	return &Cache{ttl: ttl, maxBytes: maxBytes, maxPage: min(maxBytes, MaxPageBytes), entries: map[string]*pageEntry{}, pending: map[string]*pendingPage{}}
}

// Cacheable says whether r's answer may be kept: a GET of a page or read API, not a
// static file or the health check (cheap already) or the report form, and from no one
// who sent credentials.
func Cacheable(r *http.Request) bool {
	if r.Method != http.MethodGet || r.Header.Get("Authorization") != "" {
		return false
	}
	p := r.URL.Path
	return p != "/healthz" && p != "/reports/new" && !strings.HasPrefix(p, "/static/")
}

// pageKey names r's answer: the language is part of it because a page's language can
// come from a cookie or Accept-Language, not the URL. The query is in its canonical
// order (by name; a name's values keep theirs, as handlers read them), so that
// ?a=1&b=2 and ?b=2&a=1 are one answer.
func pageKey(r *http.Request) string {
	q := r.URL.RawQuery
	if v, err := url.ParseQuery(q); err == nil {
		q = v.Encode()
	}
	return locale.FromRequest(r) + " " + r.URL.EscapedPath() + "?" + q
}

// Serve answers r from the cache, or with next (keeping its answer when it may be
// kept). writes is the store's current write count.
func (c *Cache) Serve(w http.ResponseWriter, r *http.Request, next http.Handler, writes uint64) {
	key := pageKey(r)
	for {
		e, wait := c.lookup(key, writes)
		if e != nil {
			e.replay(w)
			return
		}
		if wait == nil {
			break
		}
		if c.Waiting != nil {
			c.Waiting()
		}
		select {
		case <-wait.done:
		case <-r.Context().Done():
			return
		}
		if wait.entry == nil {
			// The one computed could not be kept (an error, a cookie): compute our own.
			next.ServeHTTP(w, r)
			return
		}
	}
	c.compute(w, r, next, key, writes)
}

// lookup is the current entry for key, or else the computation to wait for, or else
// neither (the caller computes it, marked as pending).
func (c *Cache) lookup(key string, writes uint64) (*pageEntry, *pendingPage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok {
		if e.writes == writes && time.Since(e.at) < c.ttl {
			return e, nil
		}
		c.drop(key)
	}
	if p, ok := c.pending[key]; ok {
		return nil, p
	}
	c.pending[key] = &pendingPage{done: make(chan struct{})}
	return nil, nil
}

// compute answers r with next into a buffer, keeps the answer if it may be kept,
// hands it to the readers waiting for it, and only then writes it to r's client: a
// client that reads slowly, or not at all, holds only its own answer. An answer over
// the page limit is not kept: the waiting readers are let go to render their own as
// soon as it is known, and it goes on to r's client as it is written.
func (c *Cache) compute(w http.ResponseWriter, r *http.Request, next http.Handler, key string, writes uint64) {
	var once sync.Once
	release := func(kept *pageEntry) {
		once.Do(func() {
			c.mu.Lock()
			p := c.pending[key]
			delete(c.pending, key)
			if kept != nil {
				c.keep(key, kept)
			}
			c.mu.Unlock()
			if p != nil {
				p.entry = kept
				close(p.done)
			}
		})
	}
	defer release(nil) // a panic, or an answer that went through unkept
	bw := &bufferWriter{client: w, status: http.StatusOK, limit: c.maxPage, overflow: func() { release(nil) }}
	next.ServeHTTP(bw, r)
	if bw.through {
		return
	}
	// A cancelled request's answer may be one the store's cancelled query left incomplete.
	var kept *pageEntry
	if bw.status == http.StatusOK && r.Context().Err() == nil && locale.CookieOnly(w.Header(), r) {
		kept = &pageEntry{header: w.Header().Clone(), body: bw.buf.Bytes(), writes: writes, at: time.Now()}
	}
	release(kept)
	w.WriteHeader(bw.status)
	w.Write(bw.buf.Bytes())
}

// keep stores e under key, making room by dropping entries at random (map order):
// cheap, and an entry that is asked for often is soon back. c.mu is held.
func (c *Cache) keep(key string, e *pageEntry) {
	if len(e.body) > c.maxBytes {
		return
	}
	c.drop(key)
	for k := range c.entries {
		if c.bytes+len(e.body) <= c.maxBytes {
			break
		}
		c.drop(k)
	}
	c.entries[key] = e
	c.bytes += len(e.body)
}

// drop forgets key's entry. c.mu is held.
func (c *Cache) drop(key string) {
	if e, ok := c.entries[key]; ok {
		c.bytes -= len(e.body)
		delete(c.entries, key)
	}
}

// replay writes the kept answer: its headers (the run page's own script policy
// among them) over the ones the middleware set, then its body.
func (e *pageEntry) replay(w http.ResponseWriter) {
	h := w.Header()
	for k, v := range e.header {
		h[k] = v
	}
	w.WriteHeader(http.StatusOK)
	w.Write(e.body)
}

// bufferWriter holds an answer (its status, and its body up to limit) instead of
// writing it to the client; its headers are the client's own, unsent until the answer
// is. Past limit it writes what it holds and passes the rest through (through), after
// calling overflow.
type bufferWriter struct {
	client      http.ResponseWriter
	status      int
	wroteHeader bool
	buf         bytes.Buffer
	limit       int
	through     bool
	overflow    func()
}

func (b *bufferWriter) Header() http.Header { return b.client.Header() }

func (b *bufferWriter) WriteHeader(code int) {
	if !b.wroteHeader {
		b.status, b.wroteHeader = code, true
		if b.through {
			b.client.WriteHeader(code)
		}
	}
}

func (b *bufferWriter) Write(p []byte) (int, error) {
	b.wroteHeader = true
	if !b.through && b.buf.Len()+len(p) > b.limit {
		b.through = true
		b.overflow()
		b.client.WriteHeader(b.status)
		if _, err := b.client.Write(b.buf.Bytes()); err != nil {
			return 0, err
		}
		b.buf = bytes.Buffer{}
	}
	if b.through {
		return b.client.Write(p)
	}
	return b.buf.Write(p)
}
