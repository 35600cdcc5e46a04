package site

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
	"github.com/llmbench/llmbench/internal/site/ui"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// The attacks of issue 15, each as a stranger (or a token holder) would send it, on
// both databases: every one is refused with the status and the field named, and none
// changes the store.

// countingCatalog counts the lookups it is asked for, so that a test can tell a name
// was refused before any lookup.
type countingCatalog struct{ n atomic.Int64 }

func (c *countingCatalog) GPUSpecs(string) ([]wire.Spec, bool)   { c.n.Add(1); return nil, false }
func (c *countingCatalog) ModelSpecs(string) ([]wire.Spec, bool) { c.n.Add(1); return nil, false }

func apiErr(t *testing.T, body string) wire.Error {
	t.Helper()
	var e wire.Error
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("the error is not the API's JSON: %.200s", body)
	}
	return e
}

func TestLongNamesAreRefusedBeforeAnyLookup(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		cat := &countingCatalog{}
		ts := newTestSite(t, st, Options{Catalog: cat})
		long := strings.Repeat("x", 400<<10)
		for _, p := range []string{"/calculator?gpu=" + long + "&model=m", "/models/" + long, "/hardware/" + long,
			"/families/" + long, "/?model=" + long, "/api/v1/runs?gpu=" + long, "/api/v1/predict?gpu=" + long + "&model=m"} {
			code, body := ts.get(t, p)
			if code != http.StatusBadRequest {
				t.Errorf("GET %.40s… (400 KB): %d, want 400", p, code)
			}
			if len(body) > 64<<10 {
				t.Errorf("GET %.40s…: the refusal is %d bytes: it must not echo the name", p, len(body))
			}
		}
		// 257 characters is over the cap; 256 is a name like any other.
		if code, _ := ts.get(t, "/hardware/"+strings.Repeat("é", 257)); code != http.StatusBadRequest {
			t.Errorf("a 257-character GPU name: %d, want 400", code)
		}
		if n := cat.n.Load(); n != 0 {
			t.Errorf("the catalog was asked %d times for names over the cap", n)
		}
		if code, _ := ts.get(t, "/hardware/"+strings.Repeat("é", 256)); code != http.StatusNotFound {
			t.Errorf("a 256-character GPU name that no run has: %d, want 404", code)
		}
		code, body := ts.get(t, "/api/v1/runs?gpu="+long)
		if e := apiErr(t, body); code != http.StatusBadRequest || e.Field != "gpu" {
			t.Errorf("the API names the field: %d %+v", code, e)
		}
	})
}

func TestNULAndInvalidUTF8AreRefused(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{RateBurst: 100})
		ts.mustSubmit(t, seedDoc(t))
		for _, tt := range []struct{ path, field string }{
			{"/api/v1/runs?gpu=a%00b", "gpu"},
			{"/api/v1/runs?model=%ff%fe", "model"},
			{"/api/v1/leaderboard?family=%c3", "family"},
			{"/api/v1/runs/a%00b", "path"},
			{"/api/v1/predict?gpu=RTX%00&model=m", "gpu"},
		} {
			code, body := ts.get(t, tt.path)
			if e := apiErr(t, body); code != http.StatusBadRequest || e.Field != tt.field {
				t.Errorf("GET %s: %d %+v, want 400 naming %q", tt.path, code, e, tt.field)
			}
		}
		for _, p := range []string{"/?gpu=%00", "/runs?model=%ff", "/models/a%00", "/hardware/%ff", "/calculator?gpu=%00&model=x", "/compare?id=a%00&id=b"} {
			if code, body := ts.get(t, p); code != http.StatusBadRequest || !strings.Contains(body, `id="bad-request"`) {
				t.Errorf("GET %s: %d, want the 400 page", p, code)
			}
		}
		seed := string(seedDoc(t))
		for _, tt := range []struct {
			name, doc, field string
		}{
			{"NUL in the title", strings.Replace(seed, `"title": "Qwen3.8-27B-INT4 on RTX 3090 24GB"`, `"title": "a\u0000b"`, 1), "title"},
			{"NUL in a key", strings.Replace(seed, `"revision": "main"`, `"revision": "main", "x\u0000": 1`, 1), "model.x\x00"},
			{"invalid UTF-8 in the model", strings.Replace(seed, `"RedHatAI/Qwen3.8-27B-INT4"`, "\"RedHatAI/\xff\xfeQwen\"", 1), "model.id"},
			{"invalid UTF-8 in a note", strings.Replace(seed, `"revision": "main"`, "\"revision\": \"m\xc3\"", 1), "model.revision"},
		} {
			doc := strings.Replace(tt.doc, `"id": "seed-rtx3090-qwen3.8-27b-int4"`, `"id": "attack"`, 1)
			code, body := ts.submit(t, []byte(doc))
			if e := apiErr(t, body); code != http.StatusBadRequest || e.Field != tt.field {
				t.Errorf("%s: %d %+v, want 400 naming %q", tt.name, code, e, tt.field)
			}
		}
		// Malformed JSON inside an array once sent the checker round in a loop (found by
		// FuzzCheckJSON): it is an ordinary 400 now, for runs and reports alike.
		for _, path := range []string{"/api/v1/runs", "/api/v1/reports"} {
			if code, _, body := ts.do(t, http.MethodPost, path, ts.token, []byte("{\"decode\":[{\"\x05\":1}]}")); code != http.StatusBadRequest {
				t.Errorf("POST %s with a control character in a key: %d %s", path, code, body)
			}
		}
		if code, _, body := ts.do(t, http.MethodPost, "/api/v1/reports", ts.token, []byte(`{"slug":"s","title":"a\u0000","body_md":"b"}`)); code != http.StatusBadRequest || apiErr(t, body).Field != "title" {
			t.Errorf("a report title with NUL: %d %s", code, body)
		}
		if n, err := st.CountRuns(context.Background(), store.Query{}); err != nil || n != 1 {
			t.Errorf("after the attacks the store holds %d runs (%v), want 1", n, err)
		}
	})
}

func TestDuplicateAndCaseVariantKeysAreRefused(t *testing.T) {
	seed := string(seedDoc(t))
	tests := []struct{ name, doc, field string }{
		{"id twice", strings.Replace(seed, `"id": "seed-rtx3090-qwen3.8-27b-int4",`, `"id": "a", "id": "b",`, 1), "id"},
		{"id and ID", strings.Replace(seed, `"id": "seed-rtx3090-qwen3.8-27b-int4",`, `"id": "a", "ID": "b",`, 1), "ID"},
		{"ID alone", strings.Replace(seed, `"id": "seed-rtx3090-qwen3.8-27b-int4",`, `"ID": "b",`, 1), "ID"},
		{"a nested case variant", strings.Replace(seed, `"total_tok_s": 48.2`, `"Total_Tok_S": 4820`, 1), "decode[0].Total_Tok_S"},
		{"an extension twice", strings.Replace(seed, `"revision": "main"`, `"revision": "main", "x-ext": 1, "X-Ext": 2`, 1), "model.X-Ext"},
	}
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{RateBurst: 100})
		for _, tt := range tests {
			code, body := ts.submit(t, []byte(tt.doc))
			if e := apiErr(t, body); code != http.StatusBadRequest || e.Field != tt.field {
				t.Errorf("%s: %d %+v, want 400 naming %q", tt.name, code, e, tt.field)
			}
		}
		// Extensions of any case that match no known field stay allowed.
		ok := strings.Replace(seed, `"revision": "main"`, `"revision": "main", "Vendor-Note": "kept"`, 1)
		if code, body := ts.submit(t, []byte(ok)); code != http.StatusCreated {
			t.Errorf("an extension key: %d %s", code, body)
		}
	})
}

func TestImplausibleFiguresAreRefused(t *testing.T) {
	seed := string(seedDoc(t))
	tests := []struct {
		name  string
		doc   []byte
		field string
	}{
		{"1.7e308 tok/s", []byte(strings.Replace(seed, `"total_tok_s": 48.2`, `"total_tok_s": 1.7e308`, 1)), "decode[0].total_tok_s"},
		{"VRAM that overflows × count", edited(t, func(r *rundoc.Run) {
			r.Hardware.GPUs[0].VRAMBytes, r.Hardware.GPUs[0].Count = 1<<62, 4
		}), "hardware.gpus[0].vram_bytes"},
		{"a million GPUs", edited(t, func(r *rundoc.Run) { r.Hardware.GPUs[0].Count = 1 << 20 }), "hardware.gpus[0].count"},
		{"a 2 MB title", edited(t, func(r *rundoc.Run) { r.Title = strings.Repeat("t", 2<<20) }), "title"},
		{"a 300-character model", edited(t, func(r *rundoc.Run) { r.Model.ID = strings.Repeat("m", 300) }), "model.id"},
		{"a 40 KB launch command", edited(t, func(r *rundoc.Run) { r.LaunchCommand = strings.Repeat("x", 40<<10) }), "launch_command"},
		{"a long reason", edited(t, func(r *rundoc.Run) { r.Decode[4].Reason = strings.Repeat("r", 2000) }), "decode[4].reason"},
		{"a cache hit ratio over 1", edited(t, func(r *rundoc.Run) {
			v := 1.5
			r.Decode[0].CellDetail = &rundoc.CellDetail{CacheHitRatio: &v}
		}), "decode[0].cache_hit_ratio"},
		{"the year 1970", edited(t, func(r *rundoc.Run) { r.CreatedAt = time.Unix(0, 0) }), "created_at"},
	}
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{RateBurst: 100, MaxBodyBytes: 8 << 20})
		for _, tt := range tests {
			code, body := ts.submit(t, tt.doc)
			if e := apiErr(t, body); code != http.StatusBadRequest || e.Field != tt.field {
				t.Errorf("%s: %d %+v, want 400 naming %q", tt.name, code, e, tt.field)
			}
		}
		if n, _ := st.CountRuns(context.Background(), store.Query{}); n != 0 {
			t.Errorf("the store holds %d runs after the refusals", n)
		}
	})
}

// countingBody is a request body that counts what the server read of it.
type countingBody struct {
	r    io.Reader
	read atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.read.Add(int64(n))
	return n, err
}
func (b *countingBody) Close() error { return nil }

func TestReportFormChecksBeforeReading(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	h := ts.srv.Handler()
	post := func(body io.Reader, length int64, addr string) (*httptest.ResponseRecorder, *countingBody) {
		cb := &countingBody{r: body}
		req := httptest.NewRequest(http.MethodPost, "/reports/new", nil)
		req.Body, req.ContentLength, req.RemoteAddr = cb, length, addr
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec, cb
	}
	// A body larger than a report can be is refused by its length, unread.
	big := strings.NewReader("body_md=" + strings.Repeat("x", 4<<20))
	rec, cb := post(big, int64(big.Len()), "192.0.2.1:1")
	if rec.Code != http.StatusRequestEntityTooLarge || cb.read.Load() > 0 {
		t.Errorf("a 4 MiB form: %d after reading %d bytes, want 413 unread", rec.Code, cb.read.Load())
	}
	// One that lies about its length is cut at the form's limit.
	big = strings.NewReader("body_md=" + strings.Repeat("x", 4<<20))
	rec, cb = post(big, -1, "192.0.2.1:1")
	if rec.Code != http.StatusBadRequest || cb.read.Load() > ui.MaxFormBytes+64<<10 {
		t.Errorf("a 4 MiB form of unknown length: %d after reading %d bytes, want 400 within %d", rec.Code, cb.read.Load(), ui.MaxFormBytes)
	}
	// An address that failed to log in too often is turned away before its body is read.
	for i := range guard.AuthFailureBurst {
		rec, _ := post(strings.NewReader("token=wrong&slug=s&title=t&body_md=b"), -1, "192.0.2.9:1")
		if rec.Code != http.StatusUnauthorized {
			t.Fatalf("failed login %d: %d", i+1, rec.Code)
		}
	}
	rec, cb = post(strings.NewReader("token=wrong&slug=s&title=t&body_md="+strings.Repeat("x", 1<<20)), -1, "192.0.2.9:1")
	if rec.Code != http.StatusTooManyRequests || cb.read.Load() > 0 || rec.Header().Get("Retry-After") == "" {
		t.Errorf("after %d failed logins: %d (Retry-After %q) after reading %d bytes, want 429 unread", guard.AuthFailureBurst, rec.Code, rec.Header().Get("Retry-After"), cb.read.Load())
	}
}

func TestStaticFilesStayInTheirTree(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	for _, p := range []string{"/static/..%2ftemplates%2flayout.html", "/static/%2e%2e%2ftemplates%2flayout.html", "/static/..%5ctemplates%5clayout.html",
		"/static/%2e%2e", "/static/templates%2flayout.html", "/static/../site.go"} {
		code, body := ts.get(t, p)
		if code != http.StatusNotFound || strings.Contains(body, "{{define") || strings.Contains(body, "{{template") {
			t.Errorf("GET %s: %d, template source shown: %v", p, code, strings.Contains(body, "{{"))
		}
	}
	code, hdr, body := ts.do(t, http.MethodGet, "/static/site.css", "", nil)
	if code != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "text/css") || !strings.Contains(body, "table.matrix") {
		t.Errorf("GET /static/site.css: %d %q", code, hdr.Get("Content-Type"))
	}
}

func TestWrongMethodIs405WithAllow(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	for _, tt := range []struct{ method, path, allow string }{
		{http.MethodPut, "/api/v1/runs", "GET, HEAD, POST"},
		{http.MethodDelete, "/api/v1/runs", "GET, HEAD, POST"},
		{http.MethodDelete, "/api/v1/runs/some-run", "GET, HEAD"},
		{http.MethodPatch, "/api/v1/reports", "GET, HEAD, POST"},
		{http.MethodPost, "/api/v1/leaderboard", "GET, HEAD"},
		{http.MethodPut, "/reports/new", "GET, HEAD, POST"},
		{http.MethodPost, "/", "GET, HEAD"},
	} {
		code, hdr, _ := ts.do(t, tt.method, tt.path, "", nil)
		if code != http.StatusMethodNotAllowed || hdr.Get("Allow") != tt.allow {
			t.Errorf("%s %s: %d Allow %q, want 405 Allow %q", tt.method, tt.path, code, hdr.Get("Allow"), tt.allow)
		}
	}
	if code, _, _ := ts.do(t, http.MethodPut, "/no/such/page", "", nil); code != http.StatusNotFound {
		t.Errorf("PUT on no route: %d, want 404", code)
	}
}

func TestFullDiskIs503(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{})
		if err := st.SimulateFullDiskForTesting(context.Background()); err != nil {
			t.Fatal(err)
		}
		code, hdr, body := ts.do(t, http.MethodPost, "/api/v1/runs", ts.token, seedDoc(t))
		if e := apiErr(t, body); code != http.StatusServiceUnavailable || hdr.Get("Retry-After") == "" || !strings.Contains(e.Reason, "disk is full") {
			t.Errorf("a run on a full disk: %d (Retry-After %q) %+v, want 503 with the reason", code, hdr.Get("Retry-After"), e)
		}
		code, _, body = ts.do(t, http.MethodPost, "/api/v1/reports", ts.token, []byte(`{"slug":"r","title":"t","body_md":"`+strings.Repeat("x", 64<<10)+`"}`))
		if code != http.StatusServiceUnavailable || !strings.Contains(apiErr(t, body).Reason, "disk is full") {
			t.Errorf("a report on a full disk: %d %s", code, body)
		}
		form := url.Values{"token": {ts.token}, "slug": {"r2"}, "title": {"t"}, "body_md": {strings.Repeat("y", 64<<10)}}
		code, _, body = ts.do(t, http.MethodPost, "/reports/new", "", []byte(form.Encode()), "Content-Type", "application/x-www-form-urlencoded")
		if code != http.StatusServiceUnavailable || !strings.Contains(body, "disk is full") {
			t.Errorf("the report form on a full disk: %d", code)
		}
	})
}

func TestCompareLimitsTheCombinedAxes(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{RateBurst: 10})
	plan := func(id string, from int) []byte {
		return edited(t, func(r *rundoc.Run) {
			r.ID, r.Config.Contexts, r.Decode, r.Prefill, r.Config.PrefillContexts = id, nil, nil, nil, nil
			for i := range rundoc.MaxAxis {
				r.Config.Contexts = append(r.Config.Contexts, (from+i)*rundoc.K)
			}
		})
	}
	ts.mustSubmit(t, plan("wide-a", 0))
	ts.mustSubmit(t, plan("wide-b", rundoc.MaxAxis))
	code, body := ts.get(t, "/compare?id=wide-a&id=wide-b")
	if code != http.StatusBadRequest || !strings.Contains(body, locale.T("en", "compare_too_wide", 2*rundoc.MaxAxis, 8, rundoc.MaxAxis)) {
		t.Errorf("comparing runs of 64 + 64 contexts: %d, want 400 saying the axes are too wide", code)
	}
	ts.mustSubmit(t, seedDoc(t))
	// The seed's contexts (0, 16K, 32K, 56K) are all among wide-a's: 64 together.
	if code, _ := ts.get(t, "/compare?id=wide-a&id="+seedID); code != http.StatusOK {
		t.Errorf("a comparison of 64 contexts together: %d, want 200", code)
	}
}

// TestRateLimitsHoldAcrossInstances runs two site instances on one PostgreSQL database:
// a token's burst and an address's failed logins are counted once for both.
func TestRateLimitsHoldAcrossInstances(t *testing.T) {
	dsn := storetest.PostgresURL(t)
	open := func() *store.Store {
		st, err := store.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	a := newTestSite(t, open(), Options{RatePerToken: 0.01, RateBurst: 3})
	b := newTestSite(t, open(), Options{RatePerToken: 0.01, RateBurst: 3})
	b.token = a.token // one user's token, sent to both instances
	for i, ts := range []*testSite{a, b, a} {
		doc := edited(t, func(r *rundoc.Run) { r.ID = fmt.Sprintf("shared-%d", i) })
		if code, body := ts.submit(t, doc); code != http.StatusCreated {
			t.Fatalf("submission %d of a burst of 3: %d %s", i+1, code, body)
		}
	}
	code, hdr, _ := b.do(t, http.MethodPost, "/api/v1/runs", b.token, edited(t, func(r *rundoc.Run) { r.ID = "shared-3" }))
	if code != http.StatusTooManyRequests || hdr.Get("Retry-After") == "" {
		t.Errorf("the 4th submission, on the other instance: %d (Retry-After %q), want 429", code, hdr.Get("Retry-After"))
	}
	// Failed logins: half on each instance exhaust the address's allowance on both.
	for i := range guard.AuthFailureBurst {
		ts := []*testSite{a, b}[i%2]
		if code, _, _ := ts.do(t, http.MethodPost, "/api/v1/runs", "llmb_wrong", seedDoc(t)); code != http.StatusUnauthorized {
			t.Fatalf("failed login %d: %d", i+1, code)
		}
	}
	for _, ts := range []*testSite{a, b} {
		if code, _, _ := ts.do(t, http.MethodPost, "/api/v1/runs", "llmb_wrong", seedDoc(t)); code != http.StatusTooManyRequests {
			t.Errorf("after %d failed logins over two instances: %d, want 429", guard.AuthFailureBurst, code)
		}
	}
}
