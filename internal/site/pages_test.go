package site

import (
	"bytes"
	"context"
	"errors"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/calc"
	"github.com/llmbench/llmbench/internal/site/client"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
	"github.com/llmbench/llmbench/internal/site/wire"
)

const seedID = "seed-rtx3090-qwen3.8-27b-int4"

func TestUntrustedTextIsEscapedEverywhere(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	const evil = `<script>alert("x")</script><img src=x onerror=alert(1)>`
	ts.mustSubmit(t, edited(t, func(r *rundoc.Run) {
		r.ID = "evil"
		r.Title = "T" + evil
		r.Model.ID = "M" + evil
		r.Hardware.GPUs[0].Name = "G" + evil
		r.Engine.Name = "E" + evil
		r.Engine.Quantization = "Q" + evil
		r.LaunchCommand = evil
		r.Decode[4].Reason = evil
		r.Tool.Name = evil
	}))
	for _, p := range []string{"/", "/?kind=all&lang=ja", "/runs", "/runs/evil", "/hardware", "/models", "/compare?id=evil&id=evil2",
		"/calculator?gpu=" + evilQ + "&model=" + evilQ, "/runs?model=" + evilQ} {
		_, body := ts.get(t, p)
		for _, bad := range []string{"<script>alert", "<img src=x", "onerror=alert(1)>"} {
			if strings.Contains(body, bad) {
				t.Errorf("GET %s: the page contains the submitted markup %q unescaped", p, bad)
			}
		}
	}
	_, body := ts.get(t, "/runs/evil")
	if !strings.Contains(body, "&lt;script&gt;") {
		t.Errorf("the run page does not show the submitted title escaped")
	}
}

const evilQ = "%3Cscript%3Ealert(1)%3C%2Fscript%3E"

func TestLeaderboardRanksFiltersAndLabels(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	ts.mustSubmit(t, seedDoc(t))
	ts.mustSubmit(t, edited(t, func(r *rundoc.Run) {
		r.ID, r.Title, r.Status, r.Engine.Name = "emu", "Emulated thing", rundoc.RunEmulated, "llmbench-sim"
	}))
	ts.mustSubmit(t, edited(t, func(r *rundoc.Run) {
		r.ID, r.Title, r.Hardware.GPUs[0].Name = "fast", "Faster card", "RTX 5090"
		f := *r.Decode[0].DecodeFigures
		f.TotalTokS = 99.5
		r.Decode[0].DecodeFigures = &f
	}))
	_, body := ts.get(t, "/")
	if strings.Contains(body, "Emulated thing") {
		t.Errorf("an emulated run is on the main leaderboard")
	}
	if i, j := strings.Index(body, "Faster card"), strings.Index(body, "Qwen3.8-27B-INT4 on RTX 3090"); i < 0 || j < 0 || i > j {
		t.Errorf("the leaderboard does not rank the faster run first (at %d vs %d)", i, j)
	}
	if !strings.Contains(body, "99.5") || !strings.Contains(body, "48.2") {
		t.Errorf("the leaderboard lacks the decode figures 99.5 and 48.2")
	}
	_, body = ts.get(t, "/?kind=all")
	if !strings.Contains(body, "Emulated thing") || !strings.Contains(body, `kind-emulated`) {
		t.Errorf("with kind=all the emulated run is missing or unlabelled")
	}
	_, body = ts.get(t, "/?gpu=RTX+3090")
	if strings.Contains(body, "Faster card") || !strings.Contains(body, "Qwen3.8-27B-INT4 on RTX 3090") {
		t.Errorf("the GPU filter does not filter")
	}
	_, body = ts.get(t, "/?sort=prefill_32k")
	if !strings.Contains(body, "1,871") {
		t.Errorf("ranked by prefill at 32K, the seed's 1,871 tok/s is not shown")
	}
	_, body = ts.get(t, "/?sort=per_gb")
	if !strings.Contains(body, "13.72") {
		t.Errorf("ranked by tok/s per GB, the seed's 329.4 / 24 = 13.72 is not shown")
	}
	_, body = ts.get(t, "/runs/emu")
	if !strings.Contains(body, `class="note kind-emulated"`) {
		t.Errorf("the emulated run's page does not say it is emulated")
	}
}

func TestRunPageShowsTheSeedMatrix(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	ts.mustSubmit(t, seedDoc(t))
	for _, lang := range []string{"en", "ja"} {
		code, body := ts.get(t, "/runs/"+seedID+"?lang="+lang)
		if code != http.StatusOK {
			t.Fatalf("run page: %d", code)
		}
		// Every valid decode figure of the seed, and its prefill rates.
		for _, v := range []string{"48.2", "89.4", "172.1", "329.4", "46.6", "86.2", "45.3", "43.5", "2,163", "2,039", "1,871", "1,664", "1,310 ms"} {
			if !strings.Contains(body, v) {
				t.Errorf("(%s) the run page lacks %s", lang, v)
			}
		}
		if !strings.Contains(body, locale.T(lang, "over_capacity")) {
			t.Errorf("(%s) no over-capacity cells shown", lang)
		}
	}
	if code, _ := ts.get(t, "/runs/nope"); code != http.StatusNotFound {
		t.Errorf("an unknown run: %d, want 404", code)
	}
}

type fakeReport struct{}

func (fakeReport) Body(w io.Writer, run *rundoc.Run, lang string) error {
	_, err := io.WriteString(w, `<section class="lb-run">REPORT BODY `+lang+`</section><script>sortTables()</script>`)
	return err
}
func (fakeReport) Styles() string { return ".lb-run{color:red}" }

func TestRunPageEmbedsTheReportBody(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{Report: fakeReport{}})
	ts.mustSubmit(t, seedDoc(t))
	_, hdr, body := ts.do(t, http.MethodGet, "/runs/"+seedID+"?lang=ja", "", nil)
	if !strings.Contains(body, "REPORT BODY ja") || !strings.Contains(body, ".lb-run{color:red}") {
		t.Errorf("the run page does not embed the report body and styles")
	}
	csp := hdr.Get("Content-Security-Policy")
	if !strings.Contains(csp, "'sha256-") || strings.Contains(csp, "unsafe-inline' ; script") {
		t.Errorf("CSP %q does not allow the report's script by hash", csp)
	}
}

func TestComparePage(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	ts.mustSubmit(t, seedDoc(t))
	ts.mustSubmit(t, edited(t, func(r *rundoc.Run) {
		r.ID, r.Title = "faster", "Faster run"
		f := *r.Decode[0].DecodeFigures
		f.TotalTokS = 96.4 // twice the seed's 48.2
		r.Decode[0].DecodeFigures = &f
	}))
	code, body := ts.get(t, "/compare?id="+seedID+"&id=faster")
	if code != http.StatusOK {
		t.Fatalf("compare: %d", code)
	}
	for _, want := range []string{"Faster run", "100.0%", "<svg", "96.4", "48.2"} {
		if !strings.Contains(body, want) {
			t.Errorf("the compare page lacks %q", want)
		}
	}
	_, body = ts.get(t, "/compare?id="+seedID)
	if !strings.Contains(body, locale.T("en", "compare_need")) {
		t.Errorf("compare with one run does not ask for more")
	}
	if code, _ := ts.get(t, "/compare?id="+seedID+"&id=missing"); code != http.StatusNotFound {
		t.Errorf("compare with an unknown run: %d, want 404", code)
	}
}

type fakeCalc struct{ seed []byte }

func (fakeCalc) GPUs() []string   { return []string{"RTX 3090"} }
func (fakeCalc) Models() []string { return []string{"RedHatAI/Qwen3.8-27B-INT4"} }
func (fakeCalc) Choices() calc.Choices {
	return calc.Choices{Quants: []string{"bf16"}, KVDtypes: []string{"fp16", "fp8"}, Engines: []string{"vllm"}}
}
func (f fakeCalc) Capacity(ctx context.Context, in calc.Input) (calc.Memory, error) {
	p, err := f.Predict(ctx, in)
	if err != nil {
		return calc.Memory{}, err
	}
	return p.Memory, nil
}
func (f fakeCalc) Predict(ctx context.Context, in calc.Input) (*calc.Prediction, error) {
	r, err := f.predictRun(in)
	if err != nil {
		return nil, err
	}
	return &calc.Prediction{Run: r, Memory: calc.Memory{KVTokens: 100000, MaxModelLen: 65536}}, nil
}
func (f fakeCalc) predictRun(in calc.Input) (*rundoc.Run, error) {
	if in.GPU != "RTX 3090" {
		return nil, &calc.Error{Field: "gpu", Value: in.GPU, Unknown: true}
	}
	r, err := rundoc.Decode(f.seed)
	if err != nil {
		return nil, err
	}
	r.Status = rundoc.RunPredicted
	for i := range r.Decode {
		if r.Decode[i].Status == rundoc.StatusValid {
			r.Decode[i].Status = rundoc.StatusPredicted
			fig := *r.Decode[i].DecodeFigures
			fig.TotalTokS = 77.7
			r.Decode[i].DecodeFigures = &fig
		}
	}
	return r, nil
}

func TestCalculatorPage(t *testing.T) {
	t.Run("without a calculator", func(t *testing.T) {
		ts := newTestSite(t, storetest.SQLite(t), Options{})
		ts.mustSubmit(t, seedDoc(t))
		_, body := ts.get(t, "/calculator?gpu=RTX+3090&model=RedHatAI%2FQwen3.8-27B-INT4")
		if !strings.Contains(body, `id="calc-unavailable"`) || !strings.Contains(body, "/runs/"+seedID) {
			t.Errorf("without a calculator the page must say so and still list measured runs")
		}
	})
	t.Run("with a calculator", func(t *testing.T) {
		ts := newTestSite(t, storetest.SQLite(t), Options{Calculator: fakeCalc{seed: seedDoc(t)}})
		ts.mustSubmit(t, seedDoc(t))
		_, body := ts.get(t, "/calculator?gpu=RTX+3090&model=RedHatAI%2FQwen3.8-27B-INT4&lang=ja")
		for _, want := range []string{`id="calc-predicted"`, "77.7", "/runs/" + seedID, `class="note kind-predicted"`} {
			if !strings.Contains(body, want) {
				t.Errorf("calculator page lacks %q", want)
			}
		}
		_, body = ts.get(t, "/calculator?gpu=nope&model=x")
		if !strings.Contains(body, html.EscapeString(locale.T("en", "calc_err_unknown", "GPU", "nope"))) {
			t.Errorf("a calculator error is not shown")
		}
	})
}

func TestReportsAreSanitisedAndEmbedRuns(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	ts.mustSubmit(t, seedDoc(t))
	md := "# 3090 notes\n\n<script>alert(1)</script>\n\n[click](javascript:alert(1)) <img src=x onerror=alert(2)>\n\n" +
		"| a | b |\n|---|---|\n| 1 | 2 |\n\n[[run:" + seedID + "]]\n\n[[run:missing-run]]\n"
	code, _, body := ts.do(t, http.MethodPost, "/api/v1/reports", ts.token, []byte(`{"slug":"notes","title":"3090 <b>notes</b>","body_md":`+jsonString(md)+`}`))
	if code != http.StatusCreated {
		t.Fatalf("posting a report: %d %s", code, body)
	}
	_, body = ts.get(t, "/reports/notes")
	for _, bad := range []string{"<script>alert", "javascript:alert", "onerror", "<b>notes</b>"} {
		if strings.Contains(body, bad) {
			t.Errorf("the report page contains %q", bad)
		}
	}
	for _, want := range []string{"<table>", "<h1>3090 notes</h1>", `class="runcard"`, "329.4", locale.T("en", "reports_embed_missing", "missing-run")} {
		if !strings.Contains(body, want) {
			t.Errorf("the report page lacks %q", want)
		}
	}
	_, body = ts.get(t, "/reports")
	if !strings.Contains(body, "/reports/notes") {
		t.Errorf("the report list lacks the report")
	}
	if code, _, _ := ts.do(t, http.MethodPost, "/api/v1/reports", ts.token, []byte(`{"slug":"../x","title":"t","body_md":"b"}`)); code != http.StatusBadRequest {
		t.Errorf("a bad slug: %d, want 400", code)
	}
}

func jsonString(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func TestLanguageChoiceIsRemembered(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	_, hdr, body := ts.do(t, http.MethodGet, "/?lang=ja", "", nil)
	if !strings.Contains(body, `<html lang="ja">`) || !strings.Contains(body, "リーダーボード") {
		t.Fatalf("?lang=ja does not give the Japanese page")
	}
	cookie := hdr.Get("Set-Cookie")
	if !strings.Contains(cookie, locale.Cookie+"=ja") {
		t.Fatalf("no language cookie set: %q", cookie)
	}
	_, body = ts.get(t, "/runs", "Cookie", locale.Cookie+"=ja")
	if !strings.Contains(body, `<html lang="ja">`) {
		t.Errorf("the cookie does not keep the page in Japanese")
	}
	_, body = ts.get(t, "/runs", "Accept-Language", "ja-JP,ja;q=0.9")
	if !strings.Contains(body, `<html lang="ja">`) {
		t.Errorf("Accept-Language ja does not give Japanese")
	}
	_, body = ts.get(t, "/runs?model=x", "Cookie", locale.Cookie+"=ja")
	if !strings.Contains(body, `href="/runs?lang=en&amp;model=x"`) {
		t.Errorf("the language switch does not link to the same page in English")
	}
}

func TestGroupPages(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{Catalog: fakeCatalog{}})
	ts.mustSubmit(t, seedDoc(t))
	_, body := ts.get(t, "/hardware/RTX%203090")
	for _, want := range []string{"936 GB/s", "/runs/" + seedID, "48.2", `href="/runs?gpu=RTX%203090"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the GPU page lacks %q", want)
		}
	}
	_, body = ts.get(t, "/models/RedHatAI%2FQwen3.8-27B-INT4")
	if !strings.Contains(body, locale.T("en", "no_catalog")) || !strings.Contains(body, "/runs/"+seedID) {
		t.Errorf("the model page should say it is not in the catalog and list the run")
	}
	if code, _ := ts.get(t, "/hardware/Nothing"); code != http.StatusNotFound {
		t.Errorf("an unknown GPU: %d, want 404", code)
	}
	_, body = ts.get(t, "/orgs")
	if !strings.Contains(body, "Acme Labs") || !strings.Contains(body, "@alice") {
		t.Errorf("the organisations page lacks Acme Labs and @alice")
	}
	if _, err := ts.store.CreateToken(context.Background(), "@solo", ""); err != nil {
		t.Fatal(err)
	}
	_, body = ts.get(t, "/orgs")
	if !strings.Contains(body, `href="/submitters/@solo"`) {
		t.Errorf("the organisations page does not list @solo, a submitter without an organisation")
	}
	_, body = ts.get(t, "/runs?submitter=%40alice")
	if !strings.Contains(body, "/runs/"+seedID) {
		t.Errorf("the run list filtered by submitter lacks the run")
	}
	_, body = ts.get(t, "/orgs/Acme%20Labs")
	if !strings.Contains(body, "/runs/"+seedID) {
		t.Errorf("the organisation page lacks its run")
	}
	_, body = ts.get(t, "/benchmarks")
	if !strings.Contains(body, "speed-test") || !strings.Contains(body, "56K") || !strings.Contains(body, "8,192") {
		t.Errorf("the benchmarks page lacks the speed-test profile")
	}
}

type fakeCatalog struct{}

func (fakeCatalog) GPUSpecs(name string) ([]wire.Spec, bool) {
	if name == "RTX 3090" {
		return []wire.Spec{{Key: "bandwidth", Label: "Memory bandwidth", Value: "936 GB/s"}}, true
	}
	return nil, false
}
func (fakeCatalog) ModelSpecs(string) ([]wire.Spec, bool) { return nil, false }

func TestSubmitListPageRoundTrip(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{})
		ctx := context.Background()
		res, err := client.Submit(ctx, ts.Client(), ts.URL+"/", ts.token, seedDoc(t))
		if err != nil || !res.Created || res.URL != ts.URL+"/runs/"+seedID {
			t.Fatalf("Submit = %+v, %v", res, err)
		}
		if res, err = client.Submit(ctx, ts.Client(), ts.URL, ts.token, seedDoc(t)); err != nil || res.Created {
			t.Errorf("submitting again = %+v, %v; want not created, no error", res, err)
		}
		_, err = client.Submit(ctx, ts.Client(), ts.URL, ts.token, rawEdit(t, func(m map[string]any) { m["id"] = "x y" }))
		var se *client.SubmitError
		if !errors.As(err, &se) || se.Status != 400 || se.Field != "id" || !strings.Contains(err.Error(), "id: must be") {
			t.Errorf("a bad document: err = %v; want a client.SubmitError naming field id", err)
		}
		if _, err := client.Submit(ctx, ts.Client(), ts.URL, "llmb_wrong", seedDoc(t)); err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("a wrong token: err = %v, want a 401", err)
		}
		if _, err := client.Submit(ctx, ts.Client(), "localhost:8080", ts.token, seedDoc(t)); err == nil || !strings.Contains(err.Error(), "--server") {
			t.Errorf("a server without scheme: err = %v", err)
		}
		_, body := ts.get(t, "/runs")
		if !strings.Contains(body, "/runs/"+seedID) {
			t.Errorf("the run list lacks the submitted run")
		}
		_, body = ts.get(t, "/")
		if !strings.Contains(body, "/runs/"+seedID) {
			t.Errorf("the leaderboard lacks the submitted run")
		}
		code, body := ts.get(t, "/runs/"+seedID)
		if code != http.StatusOK || !strings.Contains(body, "329.4") {
			t.Errorf("the run page: %d", code)
		}
	})
}

// TestReportForm is what a person does in a browser: open the form from the report list,
// publish with their token, land on the report (a 303 to it), and get the form back,
// with what they typed and the reason, when the token, a field or the slug is refused.
func TestReportForm(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	if _, body := ts.get(t, "/reports"); !strings.Contains(body, `href="/reports/new"`) {
		t.Errorf("the report list does not link the form")
	}
	for _, lang := range []string{"en", "ja"} {
		code, body := ts.get(t, "/reports/new?lang="+lang)
		if code != http.StatusOK || !strings.Contains(body, `id="report-form"`) || !strings.Contains(body, locale.T(lang, "report_publish")) {
			t.Errorf("GET /reports/new?lang=%s: %d, want the form with its %s labels", lang, code, lang)
		}
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(form url.Values) (int, http.Header, string) {
		t.Helper()
		resp, err := noRedirect.PostForm(ts.URL+"/reports/new", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	good := url.Values{"token": {ts.token}, "slug": {"first-notes"}, "title": {"First <notes>"}, "body_md": {"Hello **3090**."}}

	bad := url.Values{"token": {"llmb_wrong"}, "slug": {"x"}, "title": {"T"}, "body_md": {"typed text"}}
	code, _, body := post(bad)
	if code != http.StatusUnauthorized || !strings.Contains(body, "unknown API token") || !strings.Contains(body, "typed text") || strings.Contains(body, "llmb_wrong") {
		t.Errorf("a wrong token: %d; want 401 with the reason and the typed text back, never the token\n%s", code, body)
	}
	missing := url.Values{"token": {ts.token}, "slug": {"no-title"}, "body_md": {"b"}}
	if code, _, body := post(missing); code != http.StatusBadRequest || !strings.Contains(body, html.EscapeString(locale.T("en", "report_title")+": "+locale.T("en", "form_title_400"))) {
		t.Errorf("no title: %d, want 400 naming the title field\n%s", code, body)
	}
	code, hdr, _ := post(good)
	if code != http.StatusSeeOther || hdr.Get("Location") != "/reports/first-notes?lang=en" {
		t.Fatalf("publishing: %d to %q, want 303 to /reports/first-notes?lang=en", code, hdr.Get("Location"))
	}
	if code, body := ts.get(t, "/reports/first-notes"); code != http.StatusOK || !strings.Contains(body, "First &lt;notes&gt;") || !strings.Contains(body, "<strong>3090</strong>") || !strings.Contains(body, "@alice") {
		t.Errorf("the published report: %d; want its escaped title, rendered Markdown and author\n%s", code, body)
	}
	if code, _, body := post(good); code != http.StatusConflict || !strings.Contains(body, html.EscapeString(locale.T("en", "form_slug_409"))) {
		t.Errorf("the same slug again: %d, want 409", code)
	}
	// A refusal in Japanese is in Japanese, field and reason.
	resp, err := noRedirect.PostForm(ts.URL+"/reports/new?lang=ja", good)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := locale.T("ja", "report_slug") + ": " + locale.T("ja", "form_slug_409"); resp.StatusCode != http.StatusConflict || !strings.Contains(string(b), html.EscapeString(want)) {
		t.Errorf("the same slug again in Japanese: %d, want %q", resp.StatusCode, want)
	}
	if list, _ := ts.store.Reports(context.Background()); len(list) != 1 {
		t.Errorf("%d reports stored, want only the published one", len(list))
	}
}

// TestGroupLinksForNamesWithColons: Ollama tags and the emulator's GPU names hold a
// colon, which html/template takes for a URL scheme when a link's path starts with
// the name's action; every group list links each of its names to a page that shows it.
func TestGroupLinksForNamesWithColons(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	ts.mustSubmit(t, edited(t, func(r *rundoc.Run) {
		r.ID = "ollama-tag"
		r.Model.ID = "qwen3.8:27b-q4_K_M"
		r.Hardware.GPUs[0].Name = "Emulated (perf:h200/qwen3.8-27b)"
	}))
	href := regexp.MustCompile(`href="(/(?:models|hardware|families)/[^"]+)"`)
	for _, list := range []string{"/models", "/hardware", "/families"} {
		code, body := ts.get(t, list)
		if code != http.StatusOK {
			t.Fatalf("GET %s = %d", list, code)
		}
		if strings.Contains(body, "ZgotmplZ") {
			t.Errorf("GET %s: a link was replaced by html/template's unsafe-URL marker", list)
		}
		links := href.FindAllStringSubmatch(body, -1)
		if len(links) == 0 {
			t.Errorf("GET %s: no group links", list)
		}
		for _, m := range links {
			link := html.UnescapeString(m[1])
			code, page := ts.get(t, link)
			if code != http.StatusOK || !strings.Contains(page, "ollama-tag") {
				t.Errorf("GET %s (linked from %s) = %d, want 200 listing the run", link, list, code)
			}
		}
	}
}

// TestNamesInAnySpelling: a GPU as nvidia-smi names it and names in another case find
// the runs, on pages (a permanent redirect to the page of the name the site holds)
// and in filters (issue 24 items 2 and 4).
func TestNamesInAnySpelling(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	ts.mustSubmit(t, seedDoc(t)) // RTX 3090, RedHatAI/Qwen3.8-27B-INT4
	ts.mustSubmit(t, edited(t, func(r *rundoc.Run) {
		r.ID, r.Model.ID, r.Hardware.GPUs[0].Name = "smi-4090", "qwen3.8:27b-q4_K_M", "NVIDIA GeForce RTX 4090"
	}))
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tt := range []struct{ path, to string }{
		{"/hardware/rtx%203090", "/hardware/RTX%203090"},
		{"/hardware/NVIDIA%20GeForce%20RTX%204090?lang=ja", "/hardware/RTX%204090?lang=ja"},
		{"/families/Qwen3.8-27B", "/families/qwen3.8-27b"},
		{"/models/QWEN3.8:27B-Q4_K_M", "/models/qwen3.8:27b-q4_K_M"},
	} {
		resp, err := noFollow.Get(ts.URL + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != tt.to {
			t.Errorf("GET %s: %d to %q, want 301 to %s", tt.path, resp.StatusCode, resp.Header.Get("Location"), tt.to)
		}
		if code, body := ts.get(t, tt.path); code != http.StatusOK || strings.Contains(body, "No runs yet") {
			t.Errorf("GET %s, followed: %d (no runs: %v)", tt.path, code, strings.Contains(body, "No runs yet"))
		}
	}
	if code, _ := ts.get(t, "/hardware/RTX%204090"); code != http.StatusOK {
		t.Errorf("the GPU nvidia-smi named NVIDIA GeForce RTX 4090 has no page at its catalog name: %d", code)
	}
	for _, tt := range []struct{ query, want, not string }{
		{"/api/v1/runs?gpu=rtx+3090", seedID, "smi-4090"},
		{"/api/v1/runs?gpu=RTX+4090", "smi-4090", seedID},
		{"/api/v1/runs?gpu=NVIDIA+GeForce+RTX+4090", "smi-4090", seedID},
		{"/api/v1/runs?family=Qwen3.8-27B&gpu=rtx+4090", "smi-4090", seedID},
		{"/api/v1/runs?model=QWEN3.8:27B-Q4_K_M", "smi-4090", seedID},
		{"/runs?gpu=rtx+3090", seedID, "smi-4090"},
	} {
		if code, body := ts.get(t, tt.query); code != http.StatusOK || !strings.Contains(body, tt.want) || strings.Contains(body, tt.not) {
			t.Errorf("GET %s: %d, want the run %s and not %s", tt.query, code, tt.want, tt.not)
		}
	}
}
