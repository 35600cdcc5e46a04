package site

import (
	"context"
	"html"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
	"github.com/llmbench/llmbench/internal/site/ui"
)

// TestCellsWithoutFiguresRenderEverywhere submits a run whose cells and rows carry
// only some of their optional parts (rundoc.DecodeCell's *DecodeFigures, *WindowStats
// and *CellDetail, a prefill row's *PrefillFigures), as the schema allows, and checks
// that every page that shows runs renders it.
func TestCellsWithoutFiguresRenderEverywhere(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{Report: ui.HTMLReport{}})
	ts.mustSubmit(t, seedDoc(t))
	sparse := rawEdit(t, func(m map[string]any) {
		m["id"], m["title"] = "sparse", "Sparse run"
		decode := m["decode"].([]any)
		bare := func(i int, status string, keep ...string) {
			cell := decode[i].(map[string]any)
			out := map[string]any{"context": cell["context"], "concurrency": cell["concurrency"], "status": status}
			for _, k := range keep {
				out[k] = cell[k]
			}
			decode[i] = out
		}
		bare(0, "valid", "total_tok_s", "per_request_tok_s", "ttft_ms", "tbt_ms") // no window stats, no detail
		bare(1, "failed")                                                         // nothing at all
		bare(2, "interrupted", "completed_requests")                              // window stats only
		bare(3, "invalid", "ttft_p90_ms")                                         // detail only
		bare(len(decode)-1, "over_capacity")
		prefill := m["prefill"].([]any)
		p := prefill[0].(map[string]any)
		prefill[0] = map[string]any{"context": p["context"], "status": "failed", "reason": "timed out"}
	})
	ts.mustSubmit(t, sparse)
	run, err := rundoc.Decode(sparse)
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{locale.EN, locale.JA} {
		if err := (ui.HTMLReport{}).Body(io.Discard, run, lang); err != nil {
			t.Errorf("the report body of the sparse run (%s): %v; the run page would fall back to the site's view", lang, err)
		}
	}
	for _, path := range []string{"/runs/sparse", "/runs/sparse?lang=ja", "/compare?id=sparse&id=" + seedID,
		"/compare?id=" + seedID + "&id=sparse", "/?kind=all", "/runs", "/api/v1/runs/sparse"} {
		if code, body := ts.get(t, path); code != http.StatusOK {
			t.Errorf("GET %s: %d\n%.300s", path, code, body)
		}
	}
	md := "[[run:sparse]]\n"
	if code, _, body := ts.do(t, http.MethodPost, "/api/v1/reports", ts.token, []byte(`{"slug":"sparse","title":"t","body_md":`+jsonString(md)+`}`)); code != http.StatusCreated {
		t.Fatalf("posting a report: %d %s", code, body)
	}
	if code, body := ts.get(t, "/reports/sparse"); code != http.StatusOK || !strings.Contains(body, `class="runcard"`) {
		t.Errorf("the report embedding the sparse run: %d, card shown %v", code, strings.Contains(body, `class="runcard"`))
	}
}

// TestSelfLinksStayOnTheSite: the language switch and the pager repeat the requested
// path; a path that decodes to //host must not become a link to that host.
func TestSelfLinksStayOnTheSite(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	langSwitch := regexp.MustCompile(`id="lang-switch" href="([^"]*)"`)
	for _, p := range []string{"/%2F%2Fevil.example/x", "/%2Fevil.example", "/%5Cevil.example", "/%5C%5Cevil.example/x"} {
		_, body := ts.get(t, p)
		m := langSwitch.FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("GET %s: no language switch on the page", p)
		}
		if href := html.UnescapeString(m[1]); strings.HasPrefix(href, "//") || strings.HasPrefix(href, `/\`) || !strings.HasPrefix(href, "/") {
			t.Errorf("GET %s: the language switch links to %q, off the site", p, href)
		}
	}
}

// TestLanguageCookieIsSetOnce: a page asked for with ?lang= sets the cookie once.
func TestLanguageCookieIsSetOnce(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	ts.mustSubmit(t, seedDoc(t))
	for _, p := range []string{"/?lang=ja", "/runs/" + seedID + "?lang=ja", "/compare?lang=ja", "/nowhere?lang=ja"} {
		_, hdr, _ := ts.do(t, http.MethodGet, p, "", nil)
		if n := len(hdr.Values("Set-Cookie")); n != 1 {
			t.Errorf("GET %s: %d Set-Cookie headers, want 1", p, n)
		}
	}
}

// TestReportPostsAreLimitedLikeRuns: POST /api/v1/reports takes the same token, body
// limit and rate limit as POST /api/v1/runs, and a refused post stores nothing.
func TestReportPostsAreLimitedLikeRuns(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{MaxBodyBytes: 1 << 10, RatePerToken: 1, RateBurst: 2})
	post := func(token, body string) int {
		code, _, _ := ts.do(t, http.MethodPost, "/api/v1/reports", token, []byte(body))
		return code
	}
	if code := post("", `{"slug":"a","title":"t","body_md":"b"}`); code != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", code)
	}
	if code := post(ts.token, `{"slug":"big","title":"t","body_md":"`+strings.Repeat("x", 2<<10)+`"}`); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over the limit: %d, want 413", code)
	}
	if code := post(ts.token, `{"slug":"ok","title":"t","body_md":"b"}`); code != http.StatusCreated {
		t.Errorf("a report within the limits: %d, want 201", code)
	}
	if code := post(ts.token, `{"slug":"late","title":"t","body_md":"b"}`); code != http.StatusTooManyRequests {
		t.Errorf("over the rate: %d, want 429", code)
	}
	list, err := ts.store.Reports(context.Background())
	if err != nil || len(list) != 1 || list[0].Slug != "ok" {
		t.Errorf("stored reports = %+v, %v; want only \"ok\"", list, err)
	}
}
