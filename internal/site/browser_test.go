package site_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	seedcopy "github.com/llmbench/llmbench/internal/seed"

	"github.com/chromedp/chromedp"

	"github.com/llmbench/llmbench/internal/browsertest"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/site"
	"github.com/llmbench/llmbench/internal/site/client"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

const browserSeedID = "seed-rtx3090-qwen3.8-27b-int4"

// browserSite starts the site as "llmbench serve" wires it, with the seed run, a
// faster run on another GPU and an emulated run, all submitted through the API.
func browserSite(t *testing.T) *httptest.Server {
	t.Helper()
	hs, _ := browserSiteWithToken(t)
	return hs
}

// serveWired starts the site as "llmbench serve" wires it over a fresh SQLite store,
// with opt's limits, and returns it with the API token of its user @alice.
func serveWired(t *testing.T, opt site.Options) (*httptest.Server, string) {
	t.Helper()
	st := storetest.SQLite(t)
	opt.Store, opt.Logger = st, slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := site.New(site.Wired(opt))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	tok, err := st.CreateToken(context.Background(), "@alice", "Acme Labs")
	if err != nil {
		t.Fatal(err)
	}
	return hs, tok
}

// docVariant is the run document b with edit applied, re-encoded.
func docVariant(t *testing.T, b []byte, edit func(r *rundoc.Run)) []byte {
	t.Helper()
	r, err := rundoc.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	edit(r)
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// faster5090 makes the seed "faster-5090": on an RTX 5090, twice its total tok/s.
func faster5090(r *rundoc.Run) {
	r.ID, r.Title, r.Hardware.GPUs[0].Name = "faster-5090", "Qwen3.8-27B-INT4 on RTX 5090 32GB", "RTX 5090"
	r.Hardware.GPUs[0].VRAMBytes = 32 << 30
	for i := range r.Decode {
		if f := r.Decode[i].DecodeFigures; f != nil {
			g := *f
			g.TotalTokS *= 2
			r.Decode[i].DecodeFigures = &g
		}
	}
}

// emulatedDemo makes the seed "emulated-run", as the built-in emulator measured it.
func emulatedDemo(r *rundoc.Run) {
	r.ID, r.Title, r.Status, r.Engine.Name = "emulated-run", "Emulated demo run", rundoc.RunEmulated, "llmbench-sim"
}

// browserSiteWithToken is browserSite, and the API token of its user @alice.
func browserSiteWithToken(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	hs, tok := serveWired(t, site.Options{})
	seed, err := os.ReadFile(seedcopy.RunPath())
	if err != nil {
		t.Fatal(err)
	}
	variant := func(edit func(r *rundoc.Run)) []byte { return docVariant(t, seed, edit) }
	docs := [][]byte{seed,
		variant(faster5090),
		variant(emulatedDemo),
	}
	for _, d := range docs {
		if _, err := client.Submit(context.Background(), hs.Client(), hs.URL, tok, d); err != nil {
			t.Fatalf("submitting: %v", err)
		}
	}
	return hs, tok
}

func text(ctx context.Context, t *testing.T, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("reading %s: %v", sel, err)
	}
	return s
}

// TestBrowserRankingPicker: a reader ranks the runs by another cell of the matrix with
// the picker, then by TTFT with the form, and narrows the board to one model family,
// which brings in the chart of the best GPU at that cell.
func TestBrowserRankingPicker(t *testing.T) {
	ctx := browsertest.Start(t)
	hs := browserSite(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/?lang=en"), chromedp.WaitVisible(chromedp.CSS("#board"))); err != nil {
		t.Fatal(err)
	}
	board := text(ctx, t, "#board tbody")
	if !strings.Contains(board, "RTX 5090") || !strings.Contains(board, "RTX 3090") || strings.Contains(board, "Emulated demo run") {
		t.Fatalf("leaderboard shows:\n%s\nwant both measured runs and not the emulated one", board)
	}
	if i, j := strings.Index(board, "RTX 5090"), strings.Index(board, "RTX 3090"); i > j {
		t.Errorf("the faster run is not ranked first:\n%s", board)
	}
	// The picker's cell for context 32K × 1 request.
	err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#cell-picker a[href*="context=32768"][href*="concurrency=1&"], #cell-picker a[href*="context=32768"][href$="concurrency=1"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#cell-picker td.sel a[href*="context=32768"]`)),
	)
	if err != nil {
		t.Fatalf("picking 32K × 1: %v", err)
	}
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	if !strings.Contains(loc, "metric=total_tok_s") || !strings.Contains(loc, "context=32768") || !strings.Contains(loc, "concurrency=1") {
		t.Errorf("after picking 32K × 1 the URL is %s", loc)
	}
	if h := text(ctx, t, "#board-cell"); !strings.Contains(h, "32K × 1") {
		t.Errorf("the board's heading is %q, want the 32K × 1 cell", h)
	}
	first := text(ctx, t, "#board tbody tr:first-child")
	// The seed measured 45.3 tok/s at 32K × 1; the 5090 variant doubles every figure.
	if !strings.Contains(first, "RTX 5090") || !strings.Contains(first, "90.6") {
		t.Errorf("at 32K × 1 the first row is %q, want the 5090 run at 90.6", first)
	}
	browsertest.Screenshot(t, ctx, "site-leaderboard-32k-x1")
	// Rank by TTFT at 0 × 8 with the form: lowest first.
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#f-metric"), "ttft_ms"),
		chromedp.SetValue(chromedp.CSS("#f-context"), "0"),
		chromedp.SetValue(chromedp.CSS("#f-level"), "8"),
		chromedp.Click(chromedp.CSS("#f-apply")),
		chromedp.WaitReady(chromedp.CSS(`#f-metric option[selected][value="ttft_ms"]`)),
	)
	if err != nil {
		t.Fatalf("ranking by TTFT: %v", err)
	}
	if h := text(ctx, t, "#board-cell"); !strings.Contains(h, "lower is better") {
		t.Errorf("ranking by TTFT, the heading %q does not say lower is better", h)
	}
	// Both runs have the seed's TTFT (496 ms at 0 × 8): a tie, broken by id.
	if rows := text(ctx, t, "#board tbody"); strings.Count(rows, "496") < 2 {
		t.Errorf("ranked by TTFT at 0 × 8 the board shows:\n%s\nwant both runs at 496 ms", rows)
	}
	// One family, and the chart of its best GPU at the cell.
	err = chromedp.Do(ctx,
		chromedp.Navigate(hs.URL+"/?lang=en&metric=total_tok_s&context=16K&concurrency=2"),
		chromedp.WaitVisible(chromedp.CSS("#f-family")),
		chromedp.SetValue(chromedp.CSS("#f-family"), "qwen3.8-27b"),
		chromedp.Click(chromedp.CSS("#f-apply")),
		chromedp.WaitVisible(chromedp.CSS("svg.lb-bars")),
	)
	if err != nil {
		t.Fatalf("filtering by family: %v", err)
	}
	bars, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("svg.lb-bars rect").length`))
	if bars != 2 {
		t.Errorf("the best-GPU chart has %d bars, want 2 (RTX 5090, RTX 3090)", bars)
	}
	browsertest.Screenshot(t, ctx, "site-leaderboard-family-chart")
	// Including emulated runs brings the labelled emulated run in.
	err = chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/?lang=en"), chromedp.WaitVisible(chromedp.CSS("#f-all")),
		chromedp.Click(chromedp.CSS("#f-all")), chromedp.Click(chromedp.CSS("#f-apply")),
		chromedp.WaitVisible(chromedp.CSS(`.badge.kind-emulated`)))
	if err != nil {
		t.Fatalf("including emulated runs: %v", err)
	}
}

func TestBrowserRunPage(t *testing.T) {
	ctx := browsertest.Start(t)
	hs := browserSite(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/runs/"+browserSeedID+"?lang=en"), chromedp.WaitVisible(chromedp.CSS("main"))); err != nil {
		t.Fatal(err)
	}
	page := text(ctx, t, "main")
	for _, v := range []string{"48.2", "89.4", "172.1", "329.4", "46.6", "86.2", "45.3", "43.5", "2,163", "1,871", "1,664", "Over capacity", "Qwen3.8-27B-INT4 on RTX 3090"} {
		if !strings.Contains(page, v) {
			t.Errorf("the run page does not show %q", v)
		}
	}
	// The report's own script (table sorting) runs: the site's CSP allows it by hash.
	sortable, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("table.lb-sortable th.lb-sort").length`))
	if sortable == 0 {
		t.Errorf("the report's sorting script did not run on the site's run page (blocked by the CSP?)")
	}
	browsertest.Screenshot(t, ctx, "site-run-page")
}

func TestBrowserCompare(t *testing.T) {
	ctx := browsertest.Start(t)
	hs := browserSite(t)
	err := chromedp.Do(ctx,
		chromedp.Navigate(hs.URL+"/runs?lang=en"),
		chromedp.WaitVisible(chromedp.CSS("#compare-form")),
		chromedp.Click(chromedp.CSS(`input[value="`+browserSeedID+`"]`)),
		chromedp.Click(chromedp.CSS(`input[value="faster-5090"]`)),
		chromedp.Click(chromedp.CSS("#compare-button")),
		chromedp.WaitVisible(chromedp.CSS(".compare-matrices")),
	)
	if err != nil {
		t.Fatal(err)
	}
	page := text(ctx, t, "main")
	// The first run ticked is the baseline: the 5090 run lists first (newest), so the
	// seed's cells read half of it.
	for _, want := range []string{"-50.0%", "658.8", "329.4", "RTX 5090", "RTX 3090"} {
		if !strings.Contains(page, want) {
			t.Errorf("the compare page does not show %q", want)
		}
	}
	charts, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#compare-charts svg.lb-chart polyline").length`))
	if charts < 6 {
		t.Errorf("the compare charts have %d lines, want 2 runs × 3 charts", charts)
	}
	browsertest.Screenshot(t, ctx, "site-compare")
}

// TestBrowserCalculatorForm: a reader asks what an RTX 4090 does with Qwen3-32B AWQ,
// reads why every cell is over capacity, sets the knobs the page suggests for 16K and
// gets a predicted 16K × 1 cell, the number GET /api/v1/predict gives for the same knobs.
func TestBrowserCalculatorForm(t *testing.T) {
	ctx := browsertest.Start(t)
	hs := browserSite(t)
	err := chromedp.Do(ctx,
		chromedp.Navigate(hs.URL+"/calculator?lang=en"),
		chromedp.WaitVisible(chromedp.CSS("#calc-form")),
		chromedp.SetValue(chromedp.CSS("#calc-gpu"), "RTX 4090"),
		chromedp.SetValue(chromedp.CSS("#calc-model"), "Qwen/Qwen3-32B"),
		chromedp.SetValue(chromedp.CSS("#calc-quant"), "awq"),
		chromedp.Click(chromedp.CSS("#calc-submit")),
		chromedp.WaitVisible(chromedp.CSS("#calc-why")),
	)
	if err != nil {
		t.Fatal(err)
	}
	why := text(ctx, t, "#calc-why")
	if !strings.Contains(why, "32 of 32 cells are over capacity") || !strings.Contains(why, "vLLM refuses to start") || !strings.Contains(why, "16K × 1 needs") {
		t.Errorf("the reasons and suggestions:\n%s", why)
	}
	browsertest.Screenshot(t, ctx, "site-calculator-over-capacity")
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#calc-kv"), "fp8"),
		chromedp.SetValue(chromedp.CSS("#calc-util"), "0.95"),
		chromedp.SetValue(chromedp.CSS("#calc-max-model-len"), "20K"),
		chromedp.SetValue(chromedp.CSS("#calc-max-num-seqs"), "16"),
		chromedp.SetValue(chromedp.CSS("#calc-max-output"), "4096"),
		chromedp.Click(chromedp.CSS("#calc-submit")),
	)
	if err != nil {
		t.Fatal(err)
	}
	// The over-capacity page shows #calc-predicted too, so waiting for it could end on
	// the old page: wait for the new page's address first (a loaded machine loads it
	// late).
	var loc string
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(loc, "max_num_seqs=16"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the form's submission did not load: the page is at %s", loc)
		}
		loc, _ = chromedp.Run(ctx, chromedp.Location())
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#calc-predicted"))); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(loc)
	resp, err := hs.Client().Get(hs.URL + "/api/v1/predict?" + u.RawQuery)
	if err != nil {
		t.Fatal(err)
	}
	var doc rundoc.Run
	json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	cell := doc.Cell(16*rundoc.K, 1)
	if cell == nil || cell.DecodeFigures == nil {
		t.Fatalf("the API predicts no 16K × 1 cell for %s", u.RawQuery)
	}
	row := text(ctx, t, "#calc-predicted table.matrix tbody tr:nth-child(2)")
	if want := report.FormatNumber("en", cell.TotalTokS, 1); !strings.Contains(row, want) {
		t.Errorf("the 16K row reads %q; the API predicts %s tok/s at 16K × 1", row, want)
	}
	if p := text(ctx, t, "#calc-prefill"); !strings.Contains(p, "16K") {
		t.Errorf("no prefill prediction: %s", p)
	}
	measured := text(ctx, t, "#calc-measured")
	if !strings.Contains(measured, T0("calc_no_measured")) {
		t.Errorf("no measured run of an RTX 4090 with Qwen3-32B exists, the page says:\n%s", measured)
	}
	browsertest.Screenshot(t, ctx, "site-calculator-16k")
}

// T0 is the site's English text.
func T0(key string) string { return locale.T("en", key) }

// TestBrowserCharts: a model page draws the trade-off of its runs (one line each) and
// the best GPU at a chosen cell.
func TestBrowserCharts(t *testing.T) {
	ctx := browsertest.Start(t)
	hs := browserSite(t)
	err := chromedp.Do(ctx,
		chromedp.Navigate(hs.URL+"/models/RedHatAI%2FQwen3.8-27B-INT4?lang=en"),
		chromedp.WaitVisible(chromedp.CSS("#group-charts svg")),
		chromedp.SetValue(chromedp.CSS("#cf-context"), "16K"),
		chromedp.SetValue(chromedp.CSS("#cf-level"), "2"),
		chromedp.Click(chromedp.CSS("#cf-apply")),
		chromedp.WaitVisible(chromedp.CSS(`#cf-context[value="16K"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	lines, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#group-charts svg polyline").length`))
	bars, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#group-bars rect").length`))
	if lines != 2 || bars != 2 {
		t.Errorf("the model's charts have %d lines and %d bars, want 2 measured runs and 2 GPUs", lines, bars)
	}
	legend := text(ctx, t, "#group-charts figcaption")
	if !strings.Contains(legend, "RTX 5090") || !strings.Contains(legend, "RTX 3090") {
		t.Errorf("the trade-off's legend: %s", legend)
	}
	// The bars are as long as their values: the 5090's (twice the seed's) twice the 3090's.
	widths, _ := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`[...document.querySelectorAll("#group-bars rect")].map(r => r.getBBox().width)`))
	if len(widths) != 2 || widths[0] < 1.9*widths[1] || widths[0] > 2.1*widths[1] {
		t.Errorf("bar widths %v, want the first twice the second", widths)
	}
	browsertest.Screenshot(t, ctx, "site-model-charts")
}

func TestBrowserLanguageSwitch(t *testing.T) {
	ctx := browsertest.Start(t)
	hs := browserSite(t)
	err := chromedp.Do(ctx,
		chromedp.Navigate(hs.URL+"/runs/"+browserSeedID),
		chromedp.WaitVisible(chromedp.CSS("#lang-switch")),
		chromedp.Click(chromedp.CSS("#lang-switch")),
		chromedp.WaitReady(chromedp.CSS(`html[lang="ja"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	nav := text(ctx, t, "nav.menu")
	for _, want := range []string{"はじめに", "リーダーボード", "モデル", "ハードウェア", "ベンチマーク", "ドキュメント"} {
		if !strings.Contains(nav, want) {
			t.Errorf("the Japanese menu lacks %q: %s", want, nav)
		}
	}
	page := text(ctx, t, "main")
	if !strings.Contains(page, "329.4") {
		t.Errorf("the Japanese run page lacks the seed's 329.4")
	}
	browsertest.Screenshot(t, ctx, "site-run-page-ja")
	// The choice sticks: a plain link to another page stays Japanese.
	err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`nav.menu a[href="/hardware"]`)),
		chromedp.WaitVisible(chromedp.CSS(`body:has(main h1) a[href="/hardware"][aria-current="page"]`)))
	if err != nil {
		t.Fatal(err)
	}
	lang, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.lang`))
	if lang != "ja" || !strings.Contains(text(ctx, t, "main h1"), "ハードウェア") {
		t.Errorf("after following a menu link the page is in %q", lang)
	}
	// And a GPU's page: catalog specs and its runs.
	err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`main a[href="/hardware/RTX%203090"]`)),
		chromedp.WaitVisible(chromedp.CSS("dl.specs")))
	if err != nil {
		t.Fatal(err)
	}
	gpuPage := text(ctx, t, "main")
	for _, want := range []string{"RTX 3090", "Qwen3.8-27B-INT4 on RTX 3090 24GB", "48.2"} {
		if !strings.Contains(gpuPage, want) {
			t.Errorf("the GPU page lacks %q", want)
		}
	}
	browsertest.Screenshot(t, ctx, "site-hardware-ja")
	// The calculator, in Japanese to the last label.
	err = chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/calculator?gpu=RTX+4090&model=Qwen%2FQwen3-32B&quant=awq"),
		chromedp.WaitVisible(chromedp.CSS("#calc-why")))
	if err != nil {
		t.Fatal(err)
	}
	form, why := text(ctx, t, "#calc-form"), text(ctx, t, "#calc-why")
	for _, want := range []string{"最大モデル長", "GPU メモリ使用率", "最大シーケンス数", "最大出力トークン数"} {
		if !strings.Contains(form, want) {
			t.Errorf("the Japanese calculator form lacks %q", want)
		}
	}
	if !strings.Contains(why, "容量超過です") || !strings.Contains(why, "vLLM はこの設定では起動しません") {
		t.Errorf("the reasons are not in Japanese:\n%s", why)
	}
	browsertest.Screenshot(t, ctx, "site-calculator-ja")
}

// TestBrowserReportForm: from the report list, a person opens the form, types a report
// that embeds the seed run, publishes it with their token, and reads it on its page.
func TestBrowserReportForm(t *testing.T) {
	ctx := browsertest.Start(t)
	hs, tok := browserSiteWithToken(t)
	err := chromedp.Do(ctx,
		chromedp.Navigate(hs.URL+"/reports?lang=en"),
		chromedp.Click(chromedp.CSS("#report-new-link")),
		chromedp.WaitVisible(chromedp.CSS("#report-form")),
	)
	if err != nil {
		t.Fatal(err)
	}
	// The form is styled: each label above its field, a textarea tall enough to write in.
	height, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.querySelector("#report-body").getBoundingClientRect().height`))
	stacked, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const l = document.querySelector("#report-title").closest("label"); return getComputedStyle(l).flexDirection === "column"; })()`))
	if height < 300 || !stacked {
		t.Errorf("the report form's textarea is %.0f px high (want ≥ 300) and its labels stacked: %v", height, stacked)
	}
	browsertest.Screenshot(t, ctx, "site-report-form")
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS("#report-token"), tok),
		chromedp.SendKeys(chromedp.CSS("#report-slug"), "rtx3090-notes"),
		chromedp.SendKeys(chromedp.CSS("#report-title"), "RTX 3090 notes"),
		chromedp.SetValue(chromedp.CSS("#report-body"), "Decode holds **48 tok/s**.\n\n[["+"run:"+browserSeedID+"]]\n"),
		chromedp.Click(chromedp.CSS("#report-submit")),
		chromedp.WaitVisible(chromedp.CSS(".markdown .runcard")),
	)
	if err != nil {
		t.Fatal(err)
	}
	url, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(url, "/reports/rtx3090-notes") {
		t.Errorf("after publishing the browser is at %s, want the report's page", url)
	}
	if h1 := text(ctx, t, "h1"); h1 != "RTX 3090 notes" {
		t.Errorf("the report page's heading is %q", h1)
	}
	if body := text(ctx, t, ".markdown"); !strings.Contains(body, "48 tok/s") || !strings.Contains(body, "329.4") {
		t.Errorf("the report body lacks its text or the embedded seed run (329.4 tok/s):\n%s", body)
	}
}
