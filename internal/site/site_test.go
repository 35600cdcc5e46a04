package site

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
	seedcopy "github.com/llmbench/llmbench/internal/seed"

	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

var verboseLog = flag.Bool("site.log", false, "log requests while testing")

var seedPath = seedcopy.RunPath()

func seedDoc(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(seedPath)
	if err != nil {
		t.Fatalf("reading the seed run: %v", err)
	}
	return b
}

// edited returns the seed document with edit applied, re-encoded.
func edited(t testing.TB, edit func(r *rundoc.Run)) []byte {
	t.Helper()
	r, err := rundoc.Decode(seedDoc(t))
	if err != nil {
		t.Fatal(err)
	}
	edit(r)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rawEdit applies edit to the seed as a generic JSON map (to write what rundoc.Run
// cannot: wrong types, missing fields).
func rawEdit(t testing.TB, edit func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(seedDoc(t), &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type testSite struct {
	*httptest.Server
	store *store.Store
	srv   *Server
	token string
}

func newTestSite(t testing.TB, st *store.Store, opt Options) *testSite {
	t.Helper()
	opt.Store = st
	if opt.Logger == nil {
		level := slog.LevelError
		if *verboseLog {
			level = slog.LevelDebug
		}
		opt.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	}
	srv, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	tok, err := st.CreateToken(context.Background(), "@alice", "Acme Labs")
	if err != nil {
		t.Fatal(err)
	}
	return &testSite{Server: hs, store: st, srv: srv, token: tok}
}

func (ts *testSite) do(t testing.TB, method, path, token string, body []byte, header ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func (ts *testSite) get(t testing.TB, path string, header ...string) (int, string) {
	t.Helper()
	code, _, body := ts.do(t, http.MethodGet, path, "", nil, header...)
	return code, body
}

func (ts *testSite) submit(t testing.TB, doc []byte) (int, string) {
	t.Helper()
	code, _, body := ts.do(t, http.MethodPost, "/api/v1/runs", ts.token, doc)
	return code, body
}

func (ts *testSite) mustSubmit(t testing.TB, doc []byte) {
	t.Helper()
	if code, body := ts.submit(t, doc); code != http.StatusCreated {
		t.Fatalf("submitting: %d %s", code, body)
	}
}

func TestPagesRenderInBothLanguages(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	ts.mustSubmit(t, seedDoc(t))
	id := "seed-rtx3090-qwen3.8-27b-int4"
	pages := []string{"/", "/leaderboard", "/getting-started", "/calculator", "/calculator?gpu=RTX+3090&model=RedHatAI%2FQwen3.8-27B-INT4",
		"/models", "/models/RedHatAI%2FQwen3.8-27B-INT4", "/orgs", "/orgs/Acme%20Labs", "/reports", "/runs", "/runs/" + id,
		"/hardware", "/hardware/RTX%203090", "/benchmarks", "/api", "/docs", "/compare?id=" + id}
	for _, lang := range []string{"en", "ja"} {
		for _, p := range pages {
			sep := "?"
			if strings.Contains(p, "?") {
				sep = "&"
			}
			code, hdr, body := ts.do(t, http.MethodGet, p+sep+"lang="+lang, "", nil)
			if csp := hdr.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "script-src 'self' 'unsafe-inline'") {
				t.Errorf("GET %s: Content-Security-Policy %q", p, csp)
			}
			if hdr.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("GET %s: no X-Content-Type-Options: nosniff", p)
			}
			if code != http.StatusOK {
				t.Errorf("GET %s (%s) = %d", p, lang, code)
				continue
			}
			wantNav := map[string][]string{
				"en": {"Getting started", "Leaderboard", "Decode calculator", "Models", "Organizations", "Reports", "Matrix runs", "Hardware", "Benchmarks", "API", "Docs", "Language"},
				"ja": {"はじめに", "リーダーボード", "Decode calculator", "モデル", "Organizations", "Reports", "Matrix runs", "ハードウェア", "ベンチマーク", "API", "ドキュメント", "言語"},
			}[lang]
			for _, n := range wantNav {
				if !strings.Contains(body, n) {
					t.Errorf("GET %s (%s): the menu lacks %q", p, lang, n)
				}
			}
			if !strings.Contains(body, `id="lang-switch"`) {
				t.Errorf("GET %s (%s): no language switch", p, lang)
			}
		}
	}
}

func TestStaticFiles(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	if code, body := ts.get(t, "/static/site.css"); code != http.StatusOK || !strings.Contains(body, "table.matrix") {
		t.Errorf("GET /static/site.css = %d", code)
	}
	for _, p := range []string{"/static/", "/static/nope.css", "/static/../site.go"} {
		if code, body := ts.get(t, p); code != http.StatusNotFound {
			t.Errorf("GET %s = %d (%.80s), want 404", p, code, body)
		}
	}
}

// TestDocsExplainEveryFigure: /docs says what each figure the pages show means, in
// both languages (issue 24 item 11: goodput, SLO, TPOT/ITL, saturation, J/token,
// $/Mtok and client headroom were explained nowhere on the site).
func TestDocsExplainEveryFigure(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	want := map[string][]string{
		"en": {"TPOT", "ITL", "meets the SLO", "goodput", "saturated", "J/token", "$/Mtok", "Client headroom", "≈ Tie"},
		"ja": {"TPOT", "ITL", "SLO を満たした", "グッドプット", "飽和", "J/トークン", "$/Mtok", "クライアントの余裕", "≈ 同等"},
	}
	for lang, terms := range want {
		code, body := ts.get(t, "/docs?lang="+lang)
		if code != http.StatusOK {
			t.Fatalf("GET /docs?lang=%s = %d", lang, code)
		}
		for _, term := range terms {
			if !strings.Contains(body, term) {
				t.Errorf("/docs (%s) does not explain %q", lang, term)
			}
		}
	}
}
