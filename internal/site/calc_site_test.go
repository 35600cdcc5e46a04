package site_test

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	seedcopy "github.com/llmbench/llmbench/internal/seed"
	"github.com/llmbench/llmbench/internal/site"
	"github.com/llmbench/llmbench/internal/site/calc"
	"github.com/llmbench/llmbench/internal/site/client"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// wiredSite is the site as "llmbench serve" runs it (the real calculator and catalog),
// with the seed run submitted.
func wiredSite(t *testing.T, more ...[]byte) *httptest.Server {
	t.Helper()
	return wiredSiteOn(t, storetest.SQLite(t), more...)
}

// wiredSiteOn is wiredSite on the store st.
func wiredSiteOn(t *testing.T, st *store.Store, more ...[]byte) *httptest.Server {
	t.Helper()
	srv, err := site.New(site.Wired(site.Options{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	tok, err := st.CreateToken(context.Background(), "@newcomer", "Acme Labs")
	if err != nil {
		t.Fatal(err)
	}
	seed, err := readSeed()
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range append([][]byte{seed}, more...) {
		if _, err := client.Submit(context.Background(), hs.Client(), hs.URL, tok, doc); err != nil {
			t.Fatal(err)
		}
	}
	return hs
}

func readSeed() ([]byte, error) { return osReadFile(seedcopy.RunPath()) }

func fetch(t *testing.T, hs *httptest.Server, path string) (int, string) {
	t.Helper()
	resp, err := hs.Client().Get(hs.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func predictDoc(t *testing.T, hs *httptest.Server, query string) *rundoc.Run {
	t.Helper()
	code, body := fetch(t, hs, "/api/v1/predict?"+query)
	if code != http.StatusOK {
		t.Fatalf("GET /api/v1/predict?%s: %d %s", query, code, body)
	}
	if _, ferr := guard.ValidateRun([]byte(body)); ferr != nil {
		t.Errorf("the predicted document is not a valid submission: %v", ferr)
	}
	r, err := rundoc.Decode([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var adviceLink = regexp.MustCompile(`(\d+K?) × 1 needs [^<]*?; it fits.*?<a href="(/calculator\?[^"]+)">predict with these settings</a>`)

// TestCalculatorSaysWhyAndWhatFits: RTX 4090 + Qwen3-32B AWQ as the calculator's
// defaults leave every cell over capacity; the page says why with the calculator's
// own numbers, and each suggestion it makes, followed, predicts that context's cell.
func TestCalculatorSaysWhyAndWhatFits(t *testing.T) {
	hs := wiredSite(t)
	p, err := calc.NewPerf()
	if err != nil {
		t.Fatal(err)
	}
	in := calc.Input{GPU: "RTX 4090", Model: "Qwen/Qwen3-32B", Quant: "awq"}
	mem, err := p.Capacity(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	code, body := fetch(t, hs, "/calculator?gpu=RTX+4090&model=Qwen%2FQwen3-32B&quant=awq&lang=en")
	if code != http.StatusOK {
		t.Fatalf("the calculator: %d", code)
	}
	kv := report.FormatNumber("en", float64(mem.KVTokens), 0)
	for _, want := range []string{`id="calc-kv-tokens">` + kv, `id="calc-why"`,
		html.EscapeString(locale.T("en", "why_max_model_len", kv, report.FormatNumber("en", float64(mem.MaxModelLen), 0))), `id="calc-prefill"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the calculator page lacks %q", want)
		}
	}
	doc := predictDoc(t, hs, "gpu=RTX+4090&model=Qwen%2FQwen3-32B&quant=awq")
	if doc.Engine.KVCacheTokens == nil || *doc.Engine.KVCacheTokens != mem.KVTokens {
		t.Errorf("the API's document says %v KV tokens, the page %d", doc.Engine.KVCacheTokens, mem.KVTokens)
	}
	advice := adviceLink.FindAllStringSubmatch(body, -1)
	if len(advice) == 0 {
		t.Fatalf("no suggestion of what would fit")
	}
	saw16K := false
	for _, a := range advice {
		ctx, err := rundoc.ParseTokens(a[1])
		if err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(html.UnescapeString(a[2]))
		if err != nil {
			t.Fatal(err)
		}
		r := predictDoc(t, hs, u.RawQuery)
		if c := r.Cell(ctx, 1); c == nil || c.Status != rundoc.StatusPredicted || c.TotalTokS <= 0 {
			t.Errorf("the suggestion for %s × 1 (%s) still leaves that cell %v", a[1], u.RawQuery, c)
		}
		if ctx == 16*rundoc.K {
			saw16K = true
			_, page := fetch(t, hs, u.String()+"&lang=ja")
			want := report.FormatNumber("ja", r.Cell(ctx, 1).TotalTokS, 1)
			if !strings.Contains(page, `id="calc-predicted"`) || !strings.Contains(page, want) {
				t.Errorf("following the 16K suggestion, the page does not show the predicted %s tok/s", want)
			}
		}
	}
	if !saw16K {
		t.Errorf("no suggestion for 16K × 1")
	}
}

func TestPredictAPIRefusesWhatItCannotUse(t *testing.T) {
	hs := wiredSite(t)
	for _, tt := range []struct{ query, field string }{
		{"gpu=RTX+4099&model=Qwen%2FQwen3-32B", "gpu"},
		{"gpu=RTX+4090&model=NoSuchModel-900B", "model"},
		{"gpu=RTX+4090&model=Qwen%2FQwen3-32B&quant=int3", "quant"},
		{"gpu=RTX+4090&model=Qwen%2FQwen3-32B&kv_dtype=fp5", "kv_dtype"},
		{"gpu=RTX+4090&model=Qwen%2FQwen3-32B&gpu_memory_utilization=1.5", "gpu_memory_utilization"},
		{"gpu=RTX+4090&model=Qwen%2FQwen3-32B&gpus=0", "gpus"},
		{"gpu=RTX+4090&model=Qwen%2FQwen3-32B&max_model_len=lots", "max_model_len"},
		{"gpu=RTX+4090", "model"},
		{"model=Qwen%2FQwen3-32B", "gpu"},
	} {
		code, body := fetch(t, hs, "/api/v1/predict?"+tt.query)
		var e struct{ Field, Reason string }
		if json.Unmarshal([]byte(body), &e); code != http.StatusBadRequest || e.Field != tt.field || e.Reason == "" {
			t.Errorf("?%s: %d %s, want 400 naming %s", tt.query, code, body, tt.field)
		}
	}
	// A 70B model in bf16 does not fit one 24 GB GPU at all: the reason says so.
	code, body := fetch(t, hs, "/api/v1/predict?gpu=RTX+4090&model=llama-3.1-70b")
	if code != http.StatusBadRequest || !strings.Contains(body, "no room for a KV cache") {
		t.Errorf("a model that does not fit: %d %s", code, body)
	}
}

// TestRunPageComparesWithPrediction: the seed's page sets each measured cell beside
// what the calculator predicts for the seed's own setup, read from its document.
func TestRunPageComparesWithPrediction(t *testing.T) {
	hs := wiredSite(t)
	_, body := fetch(t, hs, "/runs/"+browserSeedID+"?lang=en")
	if !strings.Contains(body, `id="vs-predicted"`) {
		t.Fatal("the run page has no measured-against-predicted section")
	}
	m := regexp.MustCompile(`<a href="/calculator\?([^"]+)">Open in the calculator`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no link to the calculator with the run's setup")
	}
	q := html.UnescapeString(m[1])
	// The seed's launch: 1 × RTX 3090, INT4 W4A16 g128, fp8 KV, --max-model-len 65536,
	// --max-num-seqs 53, --gpu-memory-utilization 0.94.
	for _, want := range []string{"gpu=RTX+3090", "kv_dtype=fp8", "max_model_len=65536", "max_num_seqs=53", "gpu_memory_utilization=0.94", "quant=INT4+W4A16+g128"} {
		if !strings.Contains(q, want) {
			t.Errorf("the calculator link %q lacks %s", q, want)
		}
	}
	doc := predictDoc(t, hs, q)
	for _, cell := range []struct{ ctx, conc int }{{0, 1}, {0, 8}, {16 * rundoc.K, 2}} {
		p := doc.Cell(cell.ctx, cell.conc)
		if p == nil || p.DecodeFigures == nil {
			t.Fatalf("the prediction has no %d × %d cell", cell.ctx, cell.conc)
		}
		want := "predicted " + report.FormatNumber("en", p.TotalTokS, 1)
		if !strings.Contains(body, want) {
			t.Errorf("the run page does not show %q for %s × %d", want, rundoc.FormatTokens(cell.ctx), cell.conc)
		}
	}
}

// TestJapanesePagesHaveNoEnglishLabels looks for every English text of the catalogue
// the pages draw on — the site's own table and the report package's labels the site
// uses, where their Japanese differs — and every English spec label on the Japanese
// pages, in their text and in what they show on hover. A text with arguments ("The
// %s cannot be used: %s") is looked for by its sentence parts. The menu entries the
// seed site keeps in English are the exception (issue 24 item 9: API descriptions,
// saturation notes, the calculator's energy notes and its refusals, "Organizations:"
// were left in English).
func TestJapanesePagesHaveNoEnglishLabels(t *testing.T) {
	var docs [][]byte
	for _, f := range []string{"rate-run.json", "rate-search-run.json", "energy-run.json", "predicted-run.json"} {
		b, err := os.ReadFile("../report/testdata/" + f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, b)
	}
	// A prediction as the calculator makes it: its energy estimated, nothing measured.
	perfCalc, err := calc.NewPerf()
	if err != nil {
		t.Fatal(err)
	}
	pred, err := perfCalc.Predict(context.Background(), calc.Input{GPU: "RTX 3090", Model: "RedHatAI/Qwen3.8-27B-INT4", Quant: "INT4 W4A16 g128", KVDtype: "fp8"})
	if err != nil {
		t.Fatal(err)
	}
	pred.Run.ID = "calc-energy-estimate"
	b, err := json.Marshal(pred.Run)
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, b)
	hs := wiredSite(t, docs...)
	// A document's own notes are shown as written (the calculator's account of its
	// memory split and efficiency, a price's source): not the catalogue's.
	var docNotes []string
	for _, d := range docs {
		r, err := rundoc.Decode(d)
		if err != nil {
			t.Fatal(err)
		}
		docNotes = append(docNotes, r.Notes...)
	}
	needles := englishNeedles(t)
	// The menu is the seed site's, whose Japanese keeps four entries in English; code,
	// and what is marked lang="en" (the calculator's own notes, a document's own
	// notes), are not labels.
	// (Each element marked English is closed by its own end tag: the language switch
	// is an <a lang="en">, and a pattern closing at any </ul> or </td> dropped all
	// the page between it and the first table.)
	strip := regexp.MustCompile(`(?s)<nav class="menu".*?</nav>|<(?:script|style|pre|code)[^>]*>.*?</(?:script|style|pre|code)>|` +
		`<ul\b[^>]*\blang="en"[^>]*>.*?</ul>|<td\b[^>]*\blang="en"[^>]*>.*?</td>|<a\b[^>]*\blang="en"[^>]*>.*?</a>|<[^>]+>`)
	hover := regexp.MustCompile(`\b(?:title|aria-label)="([^"]*)"`)
	for _, path := range []string{"/", "/?metric=ttft_ms&context=16K&concurrency=2", "/calculator", "/calculator?gpu=RTX+4090&model=Qwen%2FQwen3-32B&quant=awq",
		"/calculator?gpu=RTX+4090", "/calculator?gpu=RTX+4090&model=Qwen%2FQwen3-32B&gpus=99", "/calculator?gpu=RTX+4090&model=Qwen%2FQwen3-32B&gpu_memory_utilization=2",
		"/calculator?gpu=RTX+4090&model=Qwen%2FQwen3-32B&max_model_len=0", "/calculator?gpu=RTX+4090&model=Qwen%2FQwen3-32B&prefix_caching=maybe",
		"/calculator?gpu=B200&model=Qwen%2FQwen3-32B",
		"/models", "/models/RedHatAI%2FQwen3.8-27B-INT4", "/families", "/families/qwen3.8-27b", "/hardware", "/hardware/RTX%203090",
		"/runs", "/runs/" + browserSeedID, "/runs/fixture-energy", "/runs/calc-rtx3090-qwen2.5-32b-w4a16", "/runs/calc-energy-estimate", "/runs/20261201-091735-20649d", "/runs/20261201-091558-b401d5",
		"/orgs", "/orgs/Acme%20Labs", "/submitters/@newcomer", "/authors/@Sandberg", "/reports", "/reports/new",
		"/api", "/docs", "/benchmarks", "/getting-started", "/compare", "/nowhere", "/?gpu=%00",
		// Open-loop runs: the goodput board, the same asked without an SLO, the list of rate runs, their comparison.
		"/?kind=all&metric=goodput_rps&context=512&rate=4&output=64&max_concurrency=8&requests=20&slo=ttft:1000ms,tpot:60ms", "/?kind=all&metric=goodput_rps",
		"/?kind=all&metric=max_rate_rps&context=512&output=64&slo=ttft:1000ms,tpot:60ms",
		"/runs?mode=rate", "/compare?id=20261201-091735-20649d&id=20261201-091558-b401d5", "/compare?id=20261201-091735-20649d&id=" + browserSeedID,
		"/compare?id=fixture-energy&id=" + browserSeedID} {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		_, body := fetch(t, hs, path+sep+"lang=ja")
		// A single word is a label where it is all of a text of the site's own (a
		// heading, a cell, "Organizations:"); the report body and what shows on hover
		// also hold a document's own words (a price's source, a cell's reason), where
		// only a sentence of the catalogue is a mistake.
		own := body
		if i := strings.Index(own, `<div class="report-body">`); i >= 0 {
			j := strings.Index(own[i:], `<section class="versus"`)
			if j < 0 {
				j = strings.Index(own[i:], "</article>")
			}
			own = own[:i] + own[i+j:]
		}
		words := map[string]bool{}
		for _, line := range strings.Split(html.UnescapeString(strip.ReplaceAllString(own, "\n")), "\n") {
			words[strings.TrimRight(strings.TrimSpace(line), ":：·")] = true
		}
		text := html.UnescapeString(strip.ReplaceAllString(body, "\n"))
		for _, n := range docNotes {
			text = strings.ReplaceAll(text, n, "")
		}
		for _, m := range hover.FindAllStringSubmatch(strip.ReplaceAllStringFunc(body, keepTags), -1) {
			text += "\n" + html.UnescapeString(m[1])
		}
		for _, n := range needles {
			if strings.Contains(n.text, " ") && strings.Contains(text, n.text) || words[n.text] {
				t.Errorf("GET %s (ja) shows the English %q (%s)", path, n.text, n.key)
			}
		}
	}
}

// formatVerb is a verb of a fmt format: %s, %d, %[2]s, %.1f, %g.
var formatVerb = regexp.MustCompile(`%(\[[0-9]+\])?[-+# 0]*[0-9]*(\.[0-9]+)?[a-zA-Z%]`)

// keepTags keeps the tags the strip pattern would drop (their attributes hold what a
// page shows on hover) and drops what it drops for another reason (code, the menu,
// what is marked English).
func keepTags(m string) string {
	if strings.HasPrefix(m, "<") && strings.HasSuffix(m, ">") && !strings.Contains(m[1:], "<") {
		return m
	}
	return ""
}

var osReadFile = os.ReadFile

// TestCalculatorEstimatesEnergy: the calculator prices each predicted cell as "llmbench
// calc" does (board power × predicted utilization, the catalog's reference price),
// says it is an estimate in both languages, and shows each cell's J/token as the API
// gives it; a GPU the power catalog lacks gets the reason, no invented figure.
func TestCalculatorEstimatesEnergy(t *testing.T) {
	hs := wiredSite(t)
	const q = "gpu=RTX+3090&model=RedHatAI%2FQwen3.8-27B-INT4&quant=INT4+W4A16+g128&kv_dtype=fp8"
	run := predictDoc(t, hs, q)
	if run.Energy == nil || run.Energy.Telemetry != "none" || !strings.Contains(strings.Join(run.Energy.Notes, " "), "estimate, not a measurement") {
		t.Fatalf("the predicted run's energy block does not say it is an estimate: %+v", run.Energy)
	}
	if run.Energy.Price == nil || run.Energy.Price.USDPerHour <= 0 {
		t.Errorf("no reference price for an RTX 3090: %+v", run.Energy.Price)
	}
	c := run.Cell(0, 1)
	if c == nil || c.CellEnergy == nil || c.PowerWMean == nil || c.JoulesPerToken == nil || c.USDPerMTok == nil {
		t.Fatalf("cell 0×1 has no energy estimate: %+v", c)
	}
	if w := *c.PowerWMean; w <= 0 || w > 350 {
		t.Errorf("0×1 estimated at %.1f W on a 350 W card", w)
	}
	// The figures are one another's arithmetic: J/token = W ÷ tok/s, $/Mtok = $/s ÷ tok/s × 10⁶.
	if want := *c.PowerWMean / c.TotalTokS; math.Abs(*c.JoulesPerToken-want) > 1e-3*want {
		t.Errorf("J/token %.4f, want W/tok/s = %.4f", *c.JoulesPerToken, want)
	}
	if want := run.Energy.Price.USDPerHour / 3600 / c.TotalTokS * 1e6; math.Abs(*c.USDPerMTok-want) > 1e-2*want {
		t.Errorf("$/Mtok %.4f, want %.4f", *c.USDPerMTok, want)
	}
	_, page := fetch(t, hs, "/calculator?"+q+"&lang=en")
	energy := section(t, page, `<div id="calc-energy">`, `</div>`)
	_, j, _ := report.CellEnergyText("en", c)
	if !strings.Contains(energy, ">"+j+"<") || !strings.Contains(page, "Energy per token") || !strings.Contains(page, ">estimate<") {
		t.Errorf("the page's energy matrix does not show 0×1's %s J/token as an estimate:\n%s", j, energy)
	}
	if over := run.Cell(32768, 8); over != nil && over.Status == rundoc.StatusOverCapacity && over.CellEnergy != nil {
		t.Errorf("an over-capacity cell has an energy estimate: %+v", over.CellEnergy)
	}
	_, ja := fetch(t, hs, "/calculator?"+q+"&lang=ja")
	if !strings.Contains(ja, "トークンあたりのエネルギー") || !strings.Contains(ja, ">推定<") {
		t.Error("the Japanese calculator does not label its energy estimate")
	}

	// A GPU the power catalog does not list: the reason, and no figure.
	const b200 = "gpu=B200&model=Qwen%2FQwen3-32B"
	other := predictDoc(t, hs, b200)
	for _, cell := range other.Decode {
		if cell.CellEnergy != nil && cell.PowerWMean != nil {
			t.Fatalf("a B200 cell has an estimated power with no board power to estimate it from: %+v", cell)
		}
	}
	_, page = fetch(t, hs, "/calculator?"+b200+"&lang=en")
	if strings.Contains(page, `id="calc-energy"`) || !strings.Contains(page, "the catalog has no board power for") {
		t.Error("the B200 page shows an energy matrix, or not why it has none")
	}
}

// section is the part of page from the first start to the next end after it.
func section(t *testing.T, page, start, end string) string {
	t.Helper()
	i := strings.Index(page, start)
	if i < 0 {
		t.Fatalf("no %s in the page", start)
	}
	j := strings.Index(page[i:], end)
	if j < 0 {
		t.Fatalf("%s is not closed", start)
	}
	return page[i : i+j]
}
