package site

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// TestCellsWithoutFiguresRenderEverywhere submits a run whose cells and rows carry
// only some of their optional parts (rundoc.DecodeCell's *DecodeFigures, *WindowStats
// and *CellDetail, a prefill row's *PrefillFigures), as the schema allows, and checks
// that every page that shows runs renders it.
func TestCellsWithoutFiguresRenderEverywhere(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{Report: htmlReport{}})
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
		if err := (htmlReport{}).Body(io.Discard, run, lang); err != nil {
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

// TestEmbedsAreFoundOnlyInText: goldmark and the UGC policy keep [[run:ID]] out of
// attributes today (titles are dropped, URLs percent-encoded), but should a policy
// ever keep one, the card's markup must not land inside the attribute value.
func TestEmbedsAreFoundOnlyInText(t *testing.T) {
	const html = `<p>[[run:a]] <img src="x.png" alt="[[run:b]]"> [[run:c]]</p><a title="[[run:d]]" href="/">[[run:e]]</a>`
	want := map[string]bool{"a": false, "b": true, "c": false, "d": true, "e": false}
	var tag tagTracker
	for _, m := range runEmbed.FindAllStringSubmatchIndex(html, -1) {
		id := html[m[2]:m[3]]
		if got := tag.inside([]byte(html), m[0]); got != want[id] {
			t.Errorf("[[run:%s]] inside a tag = %v, want %v", id, got, want[id])
		}
	}
}

// fakeEmbed renders a card as <div class="card">ID</div> padded to size bytes, and a
// link as <a>again ID</a> or <a>link ID</a>, counting the cards asked for per id.
func fakeEmbed(calls map[string]int, size int) func(context.Context, string, embedKind) string {
	return func(_ context.Context, id string, kind embedKind) string {
		switch kind {
		case embedAgain:
			return "<a>again " + id + "</a>"
		case embedLink:
			return "<a>link " + id + "</a>"
		}
		calls[id]++
		card := `<div class="card">` + id + `</div>`
		return card + strings.Repeat(" ", max(0, size-len(card)))
	}
}

// TestRenderMarkdownLooksUpEachRunOnce: a report repeating one run shows its card once
// and links to it after; every embed counts towards maxEmbeds, repeats too (issue 37:
// one run written 104 times was 104 cards, 183.6 MB), and the embeds past it stay as
// written.
func TestRenderMarkdownLooksUpEachRunOnce(t *testing.T) {
	var b strings.Builder
	for range 3 {
		b.WriteString("[[run:same]]\n\n")
	}
	for i := range maxEmbeds + 10 {
		fmt.Fprintf(&b, "[[run:r%d]]\n\n", i)
	}
	calls := map[string]int{}
	out, err := renderMarkdown(context.Background(), b.String(), fakeEmbed(calls, 0))
	if err != nil {
		t.Fatal(err)
	}
	if calls["same"] != 1 || len(calls) != maxEmbeds-2 {
		t.Errorf("cards asked for %d ids (same: %d times); want %d ids (%d embeds, 2 of them repeats), each once", len(calls), calls["same"], maxEmbeds-2, maxEmbeds)
	}
	if got := strings.Count(string(out), `<div class="card">same</div>`); got != 1 {
		t.Errorf("the repeated run's card is shown %d times, want once", got)
	}
	if got := strings.Count(string(out), `<a>again same</a>`); got != 2 {
		t.Errorf("the repeats of the run link to its card %d times, want 2", got)
	}
	if !strings.Contains(string(out), fmt.Sprintf("[[run:r%d]]", maxEmbeds-3)) || strings.Contains(string(out), fmt.Sprintf("[[run:r%d]]", maxEmbeds-4)) {
		t.Errorf("the embeds past the %dth are not the ones left as written", maxEmbeds)
	}
}

// TestRenderMarkdownBoundsTheCards: cards past maxEmbedBytes are links, and the
// repeats of a run shown as a link are links to its page.
func TestRenderMarkdownBoundsTheCards(t *testing.T) {
	var b strings.Builder
	for i := range 10 {
		fmt.Fprintf(&b, "[[run:r%d]]\n\n[[run:r%d]]\n\n", i, i)
	}
	calls := map[string]int{}
	out, err := renderMarkdown(context.Background(), b.String(), fakeEmbed(calls, maxEmbedBytes/3+1))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > maxEmbedBytes+64<<10 {
		t.Errorf("10 runs of %d-byte cards render %d bytes, want at most about %d", maxEmbedBytes/3+1, len(out), maxEmbedBytes)
	}
	if n := strings.Count(string(out), `<div class="card">`); n != 2 {
		t.Errorf("%d cards shown, want the 2 that fit in %d bytes", n, maxEmbedBytes)
	}
	if !strings.Contains(string(out), "<a>again r1</a>") || strings.Count(string(out), "<a>link r9</a>") != 2 {
		t.Errorf("a repeat of a card is not a link to it, or a run past the budget and its repeat are not links to its page")
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

// TestEveryLabelExists: each label the templates and handlers name resolves, in both
// languages, from the site's table or the report package's — none shows as its key.
func TestEveryLabelExists(t *testing.T) {
	use := regexp.MustCompile(`\bT[ (](?:"|[a-zA-Z.]+, ")([a-z0-9_-]+)"`)
	files, err := filepath.Glob("templates/*.html")
	if err != nil {
		t.Fatal(err)
	}
	gos, _ := filepath.Glob("*.go")
	keys := map[string]bool{}
	for _, f := range append(files, gos...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range use.FindAllStringSubmatch(string(b), -1) {
			if !strings.HasSuffix(m[1], "_") { // a prefix the code completes ("kind_"+kind)
				keys[m[1]] = true
			}
		}
	}
	if len(keys) < 50 {
		t.Fatalf("found only %d label keys in use; the pattern no longer matches how labels are named", len(keys))
	}
	for k := range keys {
		for _, lang := range []string{locale.EN, locale.JA} {
			if locale.T(lang, k) == k {
				t.Errorf("label %q has no %s text", k, lang)
			}
		}
	}
}
