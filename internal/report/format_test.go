package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

func TestFormatNumber(t *testing.T) {
	cases := []struct {
		v        float64
		decimals int
		want     string
	}{
		{2163, 1, "2,163.0"},
		{2163, 0, "2,163"},
		{48.2, 1, "48.2"},
		{1, 2, "1.00"},
		{1445, 0, "1,445"},
		{33908, 0, "33,908"},
		{1234567.891, 2, "1,234,567.89"},
		{999.96, 1, "1,000.0"},
		{0, 0, "0"},
		{-1500, 0, "-1,500"},
		{-0.01, 1, "0.0"},
		{100, 0, "100"},
	}
	for _, lang := range []string{"en", "ja"} {
		for _, c := range cases {
			if got := FormatNumber(lang, c.v, c.decimals); got != c.want {
				t.Errorf("FormatNumber(%s, %v, %d) = %q, want %q", lang, c.v, c.decimals, got, c.want)
			}
		}
	}
	for _, c := range []struct{ got, want string }{
		{FormatMs("en", 3808, 0), "3,808 ms"},
		{FormatMs("en", 20.7, 1), "20.7 ms"},
		{FormatSeconds("en", 30), "30.0 s"},
		{FormatSeconds("ja", 30), "30.0 秒"},
		{FormatGB("en", 25769803776), "24 GB"},
		{FormatGB("en", 34359738368), "32 GB"},
		{FormatGB("en", 12884901888/2*3), "18 GB"},
		{FormatGB("en", 1610612736), "1.5 GB"},
		{FormatPercent("en", 0.97), "97%"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestKindIsLoud(t *testing.T) {
	emulated := readSeed(t)
	emulated.Engine.Name = "llmbench-sim"
	predicted := readFixture(t, "predicted-run.json")
	for _, c := range []struct {
		run  *rundoc.Run
		want []string
	}{
		{emulated, []string{"EMULATED", "built-in emulator"}},
		{predicted, []string{"PREDICTED", "nothing was measured"}},
	} {
		for _, f := range []string{"text", "md", "html"} {
			out := render(t, c.run, Options{Format: f})
			for _, w := range c.want {
				if !strings.Contains(out, w) && !strings.Contains(out, strings.ToLower(w[:1])+strings.ToLower(w[1:])) {
					t.Errorf("%s report of a %s run lacks %q", f, c.run.Kind(), w)
				}
			}
		}
	}
	if out := render(t, readSeed(t), Options{Format: "text"}); strings.Contains(out, "!!") {
		t.Errorf("a measured run got a warning banner")
	}
}

// TestPredictedPrefillModeIsAPrediction: a predicted run's prefill mode says it was
// predicted for a cold request and nothing was measured, in the formats that show the
// run's card (md, html) and both languages — not "Measured during decode warm-up",
// its plan's mode (issue 37 item 11); a measured run keeps its mode.
func TestPredictedPrefillModeIsAPrediction(t *testing.T) {
	predicted := readFixture(t, "predicted-run.json")
	if predicted.Config.PrefillMode != "decode-warmup" {
		t.Fatalf("the fixture's plan says prefill mode %q; the test needs decode-warmup", predicted.Config.PrefillMode)
	}
	for _, lang := range []string{"en", "ja"} {
		for _, f := range []string{"md", "html"} {
			out := render(t, predicted, Options{Format: f, Lang: lang})
			if !strings.Contains(out, locale.T(lang, "pm_predicted")) || strings.Contains(out, locale.T(lang, "pm_decode-warmup")) {
				t.Errorf("%s %s report of a prediction: prefill mode is not %q", lang, f, locale.T(lang, "pm_predicted"))
			}
			if seed := render(t, readSeed(t), Options{Format: f, Lang: lang}); !strings.Contains(seed, locale.T(lang, "pm_decode-warmup")) {
				t.Errorf("%s %s report of the seed lacks its prefill mode %q", lang, f, locale.T(lang, "pm_decode-warmup"))
			}
		}
	}
}

// A cell that saw queueing or preemption is marked in every format.
func TestExtensionsMarkedInEveryFormat(t *testing.T) {
	run := readFixture(t, "failures-run.json")
	text := render(t, run, Options{Format: "text"})
	if !strings.Contains(text, "801.2 (212 ms) [1]") || !strings.Contains(text, "[1] 0 × 16: requests waited in the server's queue; 3 preemptions") {
		t.Errorf("text does not mark the queueing cell:\n%s", text)
	}
	md := render(t, run, Options{Format: "md"})
	if !strings.Contains(md, "801.2 (212 ms) [1]") || !strings.Contains(md, `- \[1\] 0 × 16: requests waited in the server's queue; 3 preemptions`) {
		t.Errorf("md does not mark the queueing cell:\n%s", md)
	}
	html := render(t, run, Options{Format: "html"})
	if !strings.Contains(html, `lb-warn`) || !strings.Contains(html, `⚠1</sup>`) || !strings.Contains(html, "requests waited in the server&#39;s queue") {
		t.Errorf("html does not mark the queueing cell")
	}
	rows := readCSV(t, render(t, run, Options{Format: "csv"}))
	r := rows["decode/0/16"]
	if r["queueing"] != "true" || r["preemptions"] != "3" || r["server_waiting_max"] != "4" || r["cache_hit_ratio"] != "0.96" {
		t.Errorf("csv row of the queueing cell = %v", r)
	}
	if r := rows["decode/8192/4"]; r["ended_early"] != "3" || r["flags"] != "eos_before_max_output" || r["status"] != "invalid" {
		t.Errorf("csv row of the invalid cell = %v", r)
	}
}

func readCSV(t *testing.T, s string) map[string]map[string]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = rec[i]
		}
		out[m["phase"]+"/"+m["context"]+"/"+m["concurrency"]] = m
	}
	return out
}

// The csv holds every measurement with the document's raw numbers.
func TestCSVHasEveryMeasurementRaw(t *testing.T) {
	run := readSeed(t)
	rows := readCSV(t, render(t, run, Options{Format: "csv"}))
	measured := 0
	for k := range rows {
		if !strings.HasPrefix(k, "capacity/") { // the capacity table's rows follow (csvcapacity.go)
			measured++
		}
	}
	if measured != len(run.Prefill)+len(run.Decode) {
		t.Fatalf("csv has %d measurement rows, want %d", measured, len(run.Prefill)+len(run.Decode))
	}
	for _, p := range run.Prefill {
		r := rows["prefill/"+strconv.Itoa(p.Context)+"/1"]
		if r["prompt_tok_s"] != num(p.PromptTokS) || r["ttft_ms"] != num(p.TTFTMs) || r["status"] != "valid" {
			t.Errorf("prefill %d: %v", p.Context, r)
		}
	}
	for _, c := range run.Decode {
		r := rows["decode/"+strconv.Itoa(c.Context)+"/"+strconv.Itoa(c.Concurrency)]
		if r["status"] != string(c.Status) {
			t.Errorf("cell %d×%d status %q, want %q", c.Context, c.Concurrency, r["status"], c.Status)
		}
		if c.DecodeFigures == nil {
			if r["total_tok_s"] != "" {
				t.Errorf("cell %d×%d has no figures but csv says %q", c.Context, c.Concurrency, r["total_tok_s"])
			}
			continue
		}
		for k, v := range map[string]float64{"total_tok_s": c.TotalTokS, "per_request_tok_s": c.PerRequestTokS, "ttft_ms": c.TTFTMs, "tbt_ms": c.TBTMs, "measured_s": c.MeasuredS} {
			if got, _ := strconv.ParseFloat(r[k], 64); got != v {
				t.Errorf("cell %d×%d %s = %q, want %v", c.Context, c.Concurrency, k, r[k], v)
			}
		}
		if r["output_tokens"] != strconv.Itoa(c.OutputTokens) {
			t.Errorf("cell %d×%d output_tokens = %q", c.Context, c.Concurrency, r["output_tokens"])
		}
	}
}

// The json format is the document itself: it reads back equal.
func TestJSONRoundTrips(t *testing.T) {
	for _, run := range []*rundoc.Run{readSeed(t), readFixture(t, "failures-run.json"), readFixture(t, "predicted-run.json")} {
		back, err := rundoc.Decode([]byte(render(t, run, Options{Format: "json"})))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(run, back); diff != "" {
			t.Errorf("json round trip of %s (-in +out):\n%s", run.ID, diff)
		}
	}
}

func TestWriteRejectsUnknownFormatAndLanguage(t *testing.T) {
	run := readSeed(t)
	var buf bytes.Buffer
	if err := Write(&buf, run, Options{Format: "pdf"}); err == nil || !strings.Contains(err.Error(), "unknown report format") {
		t.Errorf("format pdf: err = %v", err)
	}
	if err := Write(&buf, run, Options{Lang: "fr"}); err == nil || !strings.Contains(err.Error(), "unknown language") {
		t.Errorf("lang fr: err = %v", err)
	}
	if err := Write(&buf, nil, Options{}); err == nil {
		t.Errorf("nil run: no error")
	}
	if !cmp.Equal(Formats(), []string{"text", "md", "csv", "json", "html"}) {
		t.Errorf("Formats() = %v", Formats())
	}
}

// HTMLBody is the page without its document shell, for the site's layout.
func TestHTMLBodyIsAFragment(t *testing.T) {
	var buf bytes.Buffer
	if err := HTMLBody(&buf, readSeed(t), "ja"); err != nil {
		t.Fatal(err)
	}
	body := buf.String()
	for _, bad := range []string{"<html", "<head>", "<body", "<style"} {
		if strings.Contains(body, bad) {
			t.Errorf("HTMLBody writes %s", bad)
		}
	}
	if !strings.HasPrefix(strings.TrimSpace(body), `<article class="lb-run`) || !strings.Contains(body, "持続デコード") {
		t.Errorf("HTMLBody = %.200s…", body)
	}
	if css := string(HTMLStyles()); !strings.Contains(css, ".lb-run .lb-matrix") {
		t.Errorf("HTMLStyles lacks the matrix rules")
	}
}

// The page stays offline: no external URL anywhere, and the CSP forbids fetching.
func TestHTMLIsSelfContained(t *testing.T) {
	for _, lang := range locale.Languages() {
		page := render(t, readSeed(t), Options{Format: "html", Lang: lang})
		for _, bad := range []string{"http://", "https://", "@import", "url(", "<link rel=\"stylesheet\"", "<script src", "@font-face"} {
			if i := strings.Index(page, bad); i >= 0 {
				t.Errorf("%s page contains %q: …%s…", lang, bad, page[max(0, i-60):min(len(page), i+60)])
			}
		}
		if !strings.Contains(page, "default-src 'none'") {
			t.Errorf("%s page has no offline Content-Security-Policy", lang)
		}
	}
}

// FuzzWrite: any run document that decodes renders in every format without a panic.
func FuzzWrite(f *testing.F) {
	for _, p := range []string{seedPath, "testdata/failures-run.json", "testdata/predicted-run.json"} {
		run, err := rundoc.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		b, err := json.Marshal(run)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"schema_version":1,"decode":[{"context":5,"concurrency":0,"status":"valid","total_tok_s":-1}],"config":{"contexts":[],"concurrency":[3]}}`))
	f.Add([]byte(`{"schema_version":1,"prefill":[{"context":0,"status":"valid","prompt_tok_s":1e308,"ttft_ms":-0}],"decode":[{"status":"failed","preemptions":0,"server_metrics":{"samples":0}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		run, err := rundoc.Decode(b)
		if err != nil {
			return
		}
		for _, format := range Formats() {
			for _, lang := range locale.Languages() {
				var buf bytes.Buffer
				if err := Write(&buf, run, Options{Format: format, Lang: lang, Color: true}); err != nil && format != "json" {
					t.Errorf("%s/%s: %v", format, lang, err)
				}
			}
		}
	})
}
