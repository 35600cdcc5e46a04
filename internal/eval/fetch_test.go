package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

// mirror serves files at the paths the real hosts use; hits counts requests.
type mirror struct {
	files map[string][]byte
	hits  atomic.Int32
	seen  []string
}

func (m *mirror) start(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.hits.Add(1)
		m.seen = append(m.seen, r.URL.Path)
		b, ok := m.files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func pathOf(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Path
}

func sourceOf(rawURL string, data []byte) Source {
	s := sha256.Sum256(data)
	return Source{URL: rawURL, SHA256: hex.EncodeToString(s[:]), Size: int64(len(data))}
}

// TestFetchUsesThePinnedRevision: the built-in sets are asked for at their pinned
// revisions' paths, and a file that is not the pinned one is refused and not cached.
func TestFetchUsesThePinnedRevision(t *testing.T) {
	m := &mirror{files: map[string][]byte{
		pathOf(t, gsm8kSource.URL):   []byte(`{"question": "1+1?", "answer": "#### 2"}` + "\n"),
		pathOf(t, mmluProSource.URL): []byte("PAR1 not the real file"),
	}}
	srv := m.start(t)
	c := Cache{Dir: t.TempDir(), Mirror: srv.URL}
	for _, src := range []Source{gsm8kSource, mmluProSource} {
		_, err := c.Fetch(context.Background(), src)
		if !errors.Is(err, ErrChanged) {
			t.Fatalf("a file that is not the pinned one: %v, want ErrChanged", err)
		}
		if _, serr := os.Stat(c.Path(src)); serr == nil {
			t.Errorf("the refused file was cached at %s", c.Path(src))
		}
	}
	for i, rev := range []string{gsm8kRevision, mmluProRevision} {
		if i >= len(m.seen) || !strings.Contains(m.seen[i], "/"+rev+"/") {
			t.Errorf("request %d went to %v, not the pinned revision %s", i, m.seen, rev)
		}
	}
}

// TestFetchCachesAndRechecks: a file matching its pin is downloaded once, served from
// the cache after, and refused when the cached copy changes.
func TestFetchCachesAndRechecks(t *testing.T) {
	data := []byte(`{"question": "2+2?", "answer": "#### 4"}` + "\n")
	m := &mirror{files: map[string][]byte{"/owner/repo/abc123/test.jsonl": data}}
	srv := m.start(t)
	c := Cache{Dir: t.TempDir(), Mirror: srv.URL}
	src := sourceOf("https://example.invalid/owner/repo/abc123/test.jsonl", data)
	for range 2 {
		p, err := c.Fetch(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != string(data) {
			t.Fatalf("cached %q", b)
		}
	}
	if n := m.hits.Load(); n != 1 {
		t.Errorf("%d downloads, want 1 (the second from the cache)", n)
	}
	if err := os.WriteFile(c.Path(src), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Fetch(context.Background(), src); !errors.Is(err, ErrChanged) {
		t.Errorf("an altered cached copy: %v, want ErrChanged", err)
	}
}

// TestFetchOfflineNamesTheFile: without the host, the error names the file to fetch
// and the place to put it.
func TestFetchOfflineNamesTheFile(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close() // nothing listens there now
	c := Cache{Dir: t.TempDir(), Mirror: base}
	_, err := c.Fetch(context.Background(), gsm8kSource)
	if err == nil {
		t.Fatal("no error offline")
	}
	for _, want := range []string{"grade_school_math/data/test.jsonl", c.Path(gsm8kSource), gsm8kSource.SHA256, "Offline?"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("offline error does not name %q:\n%v", want, err)
		}
	}
}
