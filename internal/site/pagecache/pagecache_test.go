package pagecache

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/locale"
)

// countingPage answers with a body naming how many times it ran, a policy header and
// whatever the request asks for (?status=, ?cookie=).
type countingPage struct {
	calls   atomic.Int32
	release chan struct{} // when set, each answer waits for it
}

func (p *countingPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := p.calls.Add(1)
	if p.release != nil {
		<-p.release
	}
	w.Header().Set("Content-Security-Policy", "script-src 'sha256-x'")
	if r.URL.Query().Get("cookie") != "" {
		http.SetCookie(w, &http.Cookie{Name: "lang", Value: "ja"})
	}
	if s := r.URL.Query().Get("status"); s != "" {
		w.WriteHeader(http.StatusNotFound)
	}
	fmt.Fprintf(w, "answer %d in %s", n, locale.FromRequest(r))
}

// cachedGet asks c for target through a handler that serves what may be kept from the cache,
// as Server.cachePages does, at the store's write count writes.
func cachedGet(t *testing.T, c *Cache, page http.Handler, target string, writes uint64, header ...string) (string, http.Header) {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	if Cacheable(r) {
		c.Serve(w, r, page, writes)
	} else {
		page.ServeHTTP(w, r)
	}
	body, _ := io.ReadAll(w.Result().Body)
	return string(body), w.Result().Header
}

func TestPageCacheKeepsAnAnswerWithItsHeaders(t *testing.T) {
	c, page := New(time.Hour, 1<<20), &countingPage{}
	first, _ := cachedGet(t, c, page, "/hardware/H100", 0)
	again, h := cachedGet(t, c, page, "/hardware/H100", 0)
	if first != "answer 1 in en" || again != first {
		t.Errorf("answers %q then %q, want the first kept", first, again)
	}
	if got := h.Get("Content-Security-Policy"); got != "script-src 'sha256-x'" {
		t.Errorf("the kept answer's policy header = %q, want the page's own", got)
	}
	if n := page.calls.Load(); n != 1 {
		t.Errorf("the page was rendered %d times, want 1", n)
	}
}

func TestPageCacheRendersAgain(t *testing.T) {
	cases := []struct {
		name           string
		first, second  string
		writes         uint64 // the store's write count at the second request
		ttl            time.Duration
		header         []string // the second request's
		wantSecondCall bool
	}{
		{"another page", "/models", "/models/x", 0, time.Hour, nil, true},
		{"another query", "/?gpu=H100", "/?gpu=H200", 0, time.Hour, nil, true},
		{"the store changed", "/", "/", 1, time.Hour, nil, true},
		{"past the TTL", "/", "/", 0, time.Nanosecond, nil, true},
		{"another language", "/", "/", 0, time.Hour, []string{"Accept-Language", "ja"}, true},
		{"the language cookie", "/", "/", 0, time.Hour, []string{"Cookie", locale.Cookie + "=ja"}, true},
		{"credentials", "/", "/", 0, time.Hour, []string{"Authorization", "Bearer x"}, true},
		{"an error is not kept", "/?status=404", "/?status=404", 0, time.Hour, nil, true},
		{"a cookie set is not kept", "/?cookie=1", "/?cookie=1", 0, time.Hour, nil, true},
		{"the health check is not kept", "/healthz", "/healthz", 0, time.Hour, nil, true},
		{"the same", "/", "/", 0, time.Hour, []string{"Accept-Language", "en-GB"}, false},
		{"the same query in another order", "/?gpu=H100&sort=peak", "/?sort=peak&gpu=H100", 0, time.Hour, nil, false},
		{"a name's values in another order", "/compare?id=a&id=b", "/compare?id=b&id=a", 0, time.Hour, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, page := New(tc.ttl, 1<<20), &countingPage{}
			cachedGet(t, c, page, tc.first, 0)
			body, _ := cachedGet(t, c, page, tc.second, tc.writes, tc.header...)
			rendered := page.calls.Load() == 2
			if rendered != tc.wantSecondCall {
				t.Errorf("rendered again: %v, want %v (second answer %q)", rendered, tc.wantSecondCall, body)
			}
		})
	}
}

func TestPageCacheJapaneseAnswerIsKeptApart(t *testing.T) {
	c, page := New(time.Hour, 1<<20), &countingPage{}
	cachedGet(t, c, page, "/", 0)
	ja, _ := cachedGet(t, c, page, "/", 0, "Accept-Language", "ja,en;q=0.5")
	en, _ := cachedGet(t, c, page, "/", 0)
	if !strings.HasSuffix(ja, "in ja") || !strings.HasSuffix(en, "in en") {
		t.Errorf("answers %q (ja) and %q (en): each language must get its own", ja, en)
	}
}

// TestPageCacheRendersOnceForConcurrentReaders: readers arriving while a page renders
// wait for it instead of rendering it too. The rendering is held until every other
// reader has found it pending and started waiting, so each of them is known to have
// waited for it (not found it kept, having come late).
func TestPageCacheRendersOnceForConcurrentReaders(t *testing.T) {
	c, page := New(time.Hour, 1<<20), &countingPage{release: make(chan struct{})}
	const readers = 16
	waiting := make(chan struct{}, readers)
	c.Waiting = func() { waiting <- struct{}{} }
	bodies := make([]string, readers)
	var wg sync.WaitGroup
	for i := range readers {
		wg.Go(func() { bodies[i], _ = cachedGet(t, c, page, "/hardware/H100", 0) })
	}
	for range readers - 1 {
		<-waiting
	}
	close(page.release)
	wg.Wait()
	if n := page.calls.Load(); n != 1 {
		t.Errorf("%d readers at once rendered the page %d times, want 1", readers, n)
	}
	for i, b := range bodies {
		if b != "answer 1 in en" {
			t.Errorf("reader %d got %q", i, b)
		}
	}
}

// bigPage answers with size bytes, each rendering waiting for release; started gets a
// value when a rendering starts.
type bigPage struct {
	size    int
	started chan struct{}
	release chan struct{}
}

func (p *bigPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.started <- struct{}{}
	<-p.release
	w.Write(bytes.Repeat([]byte("x"), p.size))
}

// TestPageCacheSlowReaderHoldsOnlyItself: the first reader of a page renders it, but a
// client that asks for a page and never reads it must not hold the readers who wait
// for that rendering. Over loopback: the first client's request starts the rendering,
// four readers find it pending and wait, and once it is rendered they must have the
// page within a second, although the first client's answer (larger than what the
// connection buffers) can never be written.
func TestPageCacheSlowReaderHoldsOnlyItself(t *testing.T) {
	const size = 8 << 20 // more than loopback's socket buffers hold (4 MiB sent, 4 KiB received)
	c := New(time.Hour, 2*size)
	c.maxPage = size
	page := &bigPage{size: size, started: make(chan struct{}, 8), release: make(chan struct{})}
	const readers = 4
	waiting := make(chan struct{}, readers)
	c.Waiting = func() { waiting <- struct{}{} }
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { c.Serve(w, r, page, 0) }))
	defer ts.Close()

	stalled, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	stalled.(*net.TCPConn).SetReadBuffer(4 << 10)
	if _, err := io.WriteString(stalled, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	<-page.started // the stalled client's request renders the page

	type result struct {
		n   int64
		err error
		at  time.Time
	}
	results := make(chan result, readers)
	client := &http.Client{Timeout: 10 * time.Second}
	for range readers {
		go func() {
			resp, err := client.Get(ts.URL + "/big")
			if err != nil {
				results <- result{err: err}
				return
			}
			defer resp.Body.Close()
			n, err := io.Copy(io.Discard, resp.Body)
			results <- result{n, err, time.Now()}
		}()
	}
	for range readers {
		<-waiting
	}
	rendered := time.Now()
	close(page.release)
	var slowest time.Duration
	for range readers {
		res := <-results
		if res.err != nil || res.n != size {
			t.Fatalf("a waiting reader got %d bytes, %v; want the page's %d", res.n, res.err, size)
		}
		slowest = max(slowest, res.at.Sub(rendered))
	}
	t.Logf("the last of %d waiting readers had the %d-byte page %v after it was rendered", readers, size, slowest)
	if slowest > time.Second {
		t.Errorf("a waiting reader had the page %v after it was rendered; want under 1 s", slowest)
	}
	if n := len(page.started); n != 0 {
		t.Errorf("the page was rendered %d more times, want once for all", n)
	}
}

func TestPageCacheStaysWithinItsBytes(t *testing.T) {
	const limit = 64
	c, page := New(time.Hour, limit), &countingPage{}
	for i := range 20 {
		cachedGet(t, c, page, fmt.Sprintf("/runs/%d", i), 0) // "answer N in en": 14–15 bytes each
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	total := 0
	for _, e := range c.entries {
		total += len(e.body)
	}
	if total != c.bytes || total > limit || len(c.entries) == 0 {
		t.Errorf("%d entries of %d bytes (counted %d), want some, within %d", len(c.entries), total, c.bytes, limit)
	}
}

// TestLanguageLinksAreCached (issue 37 item 18): a page asked for with ?lang= — as
// every link and form carries it after a switch — is computed once for all its
// readers, and each of them still gets the language cookie that the URL asks for; a
// page that sets any other cookie is still never kept.
func TestLanguageLinksAreCached(t *testing.T) {
	c := New(time.Hour, 1<<20)
	calls := 0
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		locale.Remember(w, r)
		if r.URL.Query().Get("other") != "" {
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "x"})
		}
		fmt.Fprintf(w, "answer %d in %s", calls, locale.FromRequest(r))
	})
	get := func(target, cookie string) (string, string) {
		r := httptest.NewRequest(http.MethodGet, target, nil)
		if cookie != "" {
			r.Header.Set("Cookie", locale.Cookie+"="+cookie)
		}
		w := httptest.NewRecorder()
		c.Serve(w, r, page, 1)
		return w.Body.String(), w.Result().Header.Get("Set-Cookie")
	}
	first, set1 := get("/runs?lang=ja", "")
	second, set2 := get("/runs?lang=ja", "en") // a reader switching back to Japanese
	third, _ := get("/runs?lang=ja", "ja")
	if first != "answer 1 in ja" || second != first || third != first || calls != 1 {
		t.Errorf("three readers of /runs?lang=ja got %q, %q, %q from %d computations, want one answer computed once", first, second, third, calls)
	}
	for _, set := range []string{set1, set2} {
		if !strings.HasPrefix(set, locale.Cookie+"=ja") {
			t.Errorf("a reader of /runs?lang=ja was not given the language cookie: %q", set)
		}
	}
	if en, _ := get("/runs?lang=en", "ja"); en != "answer 2 in en" {
		t.Errorf("?lang=en answered %q, want its own answer", en)
	}
	get("/runs?lang=ja&other=1", "")
	if again, _ := get("/runs?lang=ja&other=1", ""); again != "answer 4 in ja" {
		t.Errorf("a page that sets another cookie was kept: %q", again)
	}
}
