// Package pagetest_test loads the html report in headless Chromium and checks what a
// reader sees. It lives apart from package report so that report's fuzz and unit test
// binary does not link the browser driver.
package pagetest_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/rundoc/rundoctest"
	seedcopy "github.com/llmbench/llmbench/internal/seed"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/browsertest"
	"github.com/llmbench/llmbench/internal/report"
)

const oc = "Over capacity"

func readRun(t testing.TB, path string) *rundoc.Run {
	t.Helper()
	run, err := rundoc.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func readSeed(t testing.TB) *rundoc.Run { return readRun(t, seedcopy.RunPath()) }

func readFixture(t testing.TB, name string) *rundoc.Run {
	return readRun(t, rundoctest.Path(name))
}

// page is a rendered report loaded in headless Chromium from a loopback server that
// serves the page at / and records any other request (there must be none).
type page struct {
	t      *testing.T
	ctx    context.Context
	url    string
	reqs   *browsertest.Requests
	mu     sync.Mutex
	strays []string
}

func openPage(t *testing.T, run *rundoc.Run, lang string) (*page, func(string) string) {
	return openPageWith(t, run, lang, false)
}

// openPageWith loads the page, with the page's own scripts switched off when noScript.
func openPageWith(t *testing.T, run *rundoc.Run, lang string, noScript bool) (*page, func(string) string) {
	t.Helper()
	return openPageUntil(t, run, lang, noScript, ".lb-matrix")
}

// openPageUntil loads the page and waits until the element matching visible shows.
func openPageUntil(t *testing.T, run *rundoc.Run, lang string, noScript bool, visible string) (*page, func(string) string) {
	t.Helper()
	var buf bytes.Buffer
	if err := report.Write(&buf, run, report.Options{Format: "html", Lang: lang}); err != nil {
		t.Fatal(err)
	}
	html := buf.Bytes()
	p := &page{t: t}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			p.mu.Lock()
			p.strays = append(p.strays, r.URL.String())
			p.mu.Unlock()
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(html)
	}))
	t.Cleanup(srv.Close)
	ctx := browsertest.Start(t)
	p.reqs = browsertest.RecordRequests(t, ctx)
	p.url = srv.URL + "/"
	if noScript {
		if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatalf("switching scripts off: %v", err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(p.url), chromedp.WaitVisible(chromedp.CSS(visible))); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	eval := func(js string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("evaluating %s: %v", js, err)
		}
		return s
	}
	t.Cleanup(func() {
		if t.Failed() {
			return
		}
		if other := p.reqs.Except(p.url); len(other) > 0 {
			t.Errorf("the page made network requests besides itself: %v", other)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.strays) > 0 {
			t.Errorf("the server saw requests besides the page: %v", p.strays)
		}
	})
	p.ctx = ctx
	return p, eval
}

// jsTable returns the visible text of every body cell of the table matching sel, one
// "\t"-joined line per row; cells hidden from view (display:none, zero size) read "".
const jsTableFn = `(sel) => Array.from(document.querySelectorAll(sel + " tbody tr")).map(r =>
	Array.from(r.cells).map(c => {
		const b = c.getBoundingClientRect();
		const visible = c.checkVisibility() && b.width > 0 && b.height > 0;
		return visible ? c.innerText.replace(/\s+/g, " ").trim() : "";
	}).join("\t")).join("\n")`

func tableRows(eval func(string) string, sel string) [][]string {
	var rows [][]string
	out := eval("(" + jsTableFn + ")(" + strconv.Quote(sel) + ")")
	for _, l := range strings.Split(out, "\n") {
		if l != "" {
			rows = append(rows, strings.Split(l, "\t"))
		}
	}
	return rows
}

// matrixAsPage turns the text matrix ("48.2 (85 ms)") into what the page shows in a
// cell ("48.2 85 ms TTFT").
func matrixAsPage(m [][]string, ttft func(string) string) [][]string {
	var out [][]string
	for _, row := range m {
		var r []string
		for _, c := range row {
			if v, t, ok := strings.Cut(c, " ("); ok {
				c = v + " " + ttft(strings.TrimSuffix(t, ")"))
			}
			r = append(r, c)
		}
		out = append(out, r)
	}
	return out
}

// checkCells compares the cells of the table at sel as the page shows them, its
// header column left out, with want.
func checkCells(t *testing.T, eval func(string) string, sel string, want [][]string) {
	t.Helper()
	var got [][]string
	for _, r := range tableRows(eval, sel) {
		got = append(got, r[1:])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s as shown (-want +page):\n%s", sel, diff)
	}
}

func column(rows [][]string, i int) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r[i])
	}
	return out
}

func parseShown(s string) float64 {
	f, err := strconv.ParseFloat(strings.NewReplacer(",", "", " ms", "", " s", "").Replace(s), 64)
	if err != nil {
		return -1
	}
	return f
}

// checkSorted clicks a column header and checks the table came out sorted by it, the
// rows without a value ("—") last.
func checkSorted(t *testing.T, p *page, eval func(string) string, col int, numeric bool) {
	t.Helper()
	for _, asc := range []bool{true, false} {
		if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.CSS(`.lb-sortable th[data-col="`+strconv.Itoa(col)+`"]`))); err != nil {
			t.Fatalf("clicking column %d: %v", col, err)
		}
		vals := column(tableRows(eval, ".lb-sortable"), col)
		var got []string
		for _, v := range vals {
			if v != "—" {
				got = append(got, v)
			}
		}
		if !slices.Equal(vals[:len(got)], got) {
			t.Errorf("column %d (asc=%v): rows without a value are not last: %v", col, asc, vals)
		}
		sorted := slices.IsSortedFunc(got, func(a, b string) int {
			if numeric {
				x, y := parseShown(a), parseShown(b)
				if !asc {
					x, y = y, x
				}
				switch {
				case x < y:
					return -1
				case x > y:
					return 1
				}
				return 0
			}
			if !asc {
				a, b = b, a
			}
			return strings.Compare(a, b)
		})
		if !sorted {
			t.Errorf("column %d is not sorted (ascending=%v) after a click: %v", col, asc, got)
		}
	}
}

func TestBrowserSeedPage(t *testing.T) {
	for _, lang := range []string{"en", "ja"} {
		t.Run(lang, func(t *testing.T) {
			seed := seedcopy.PageTables()
			run := readSeed(t)
			p, eval := openPage(t, run, lang)
			ttft := func(s string) string { return locale.T(lang, "x_ttft", s) }

			// Every number of the seed's matrix is visible in its cell.
			want := matrixAsPage(seed.Matrix, ttft)
			if lang == "ja" {
				want = matrixAsPage(seed.Matrix, ttft)
				for i := range want {
					for j := range want[i] {
						want[i][j] = strings.ReplaceAll(want[i][j], oc, "容量超過")
					}
				}
			}
			checkCells(t, eval, ".lb-matrix", want)
			// The prefill table and the page's own words.
			var prefill [][]string
			for _, r := range seed.Prefill {
				prefill = append(prefill, []string{r[1], ttft(r[2])})
			}
			checkCells(t, eval, ".lb-prefill-table", prefill)
			body := eval(`document.body.innerText`)
			words := []string{"Qwen3.8-27B-INT4 on RTX 3090 24GB", "vllm · 0.32.0 · INT4 W4A16 g128", "@Sandberg", "llm-inference-bench v0.8.0",
				"RTX 3090", "24 GB", "Intel Core i7-9700K (8C)", "Ubuntu 24.04.5", "vllm/vllm-openai:v0.32.0-x86_64", "cuda", "INT4 W4A16 g128",
				"--max-cudagraph-capture-size 16"}
			if lang == "en" {
				words = append(words, "Measured", "Discrete GPU", "32 GB", "30 s", "Fixed duration", "Measured during decode warm-up", "8,192 tokens",
					"4 contexts (0–56K) × 8 concurrency levels (1–128) · prefill at 8K, 16K, 32K, 56K")
				words = append(words, seed.Notes...)
			} else {
				words = append(words, "実測", "ディスクリート GPU", "ハードウェア", "プリフィル", "持続デコード", "全測定値", "8,192 トークン", "30 秒")
			}
			for _, w := range words {
				if !strings.Contains(body, w) {
					t.Errorf("page does not show %q", w)
				}
			}
			// The All measurements table, every row of the seed (English labels).
			rows := tableRows(eval, ".lb-sortable")
			if lang == "en" {
				if diff := cmp.Diff(seed.All, rows); diff != "" {
					t.Errorf("All measurements as shown (-seed +page):\n%s", diff)
				}
			} else if len(rows) != len(seed.All) {
				t.Errorf("All measurements has %d rows, want %d", len(rows), len(seed.All))
			}
			// Charts: one point per valid cell, drawn without script.
			if got := eval(`String(document.querySelectorAll("#lb-chart-total-t").length + "/" + document.querySelector("svg[aria-labelledby=lb-chart-total-t]").querySelectorAll("circle").length + "/" + document.querySelector("svg[aria-labelledby=lb-chart-prefill-t]").querySelectorAll("circle").length)`); got != "1/8/4" {
				t.Errorf("charts: title/total points/prefill points = %s, want 1/8/4", got)
			}
			if got := eval(`String(document.querySelector(".lb-copy").hidden)`); got != "false" {
				t.Errorf("the launch command's Copy button is hidden: the page's script did not run")
			}
			checkSorted(t, p, eval, 4, true)  // Total tok/s
			checkSorted(t, p, eval, 6, true)  // TTFT
			checkSorted(t, p, eval, 10, true) // Output tokens
			if lang == "en" {
				checkSorted(t, p, eval, 3, false) // Status
			}
			if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.CSS(`.lb-sortable th[data-col="1"]`))); err != nil {
				t.Fatal(err)
			}
			browsertest.Screenshot(t, p.ctx, "report-seed-"+lang)
		})
	}
}

func TestBrowserFailuresPage(t *testing.T) {
	p, eval := openPage(t, readFixture(t, "failures-run.json"), "en")
	want := [][]string{
		{"61.3 41 ms TTFT", "233.8 57 ms TTFT", "801.2 212 ms TTFT ⚠1", "Failed ⚠2"},
		{"58.9 95 ms TTFT", "201.7 130 ms TTFT ⚠3", "Interrupted ⚠4", "Pending"},
		{"49.1 402 ms TTFT ⚠5", "171.0 1,501 ms TTFT", "Over capacity", "Over capacity"},
	}
	checkCells(t, eval, ".lb-matrix", want)
	// Reasons and notes are on hover (an over-capacity reason written again from its
	// numbers, grouped: report.CapacityReason).
	titles := eval(`Array.from(document.querySelectorAll(".lb-matrix td")).map(c => c.title).join("\n---\n")`)
	for _, w := range []string{"every request failed: connection refused", "requests waited in the server's queue", "3 preemptions",
		"run stopped by Ctrl-C during the cell", "16 requests × 36,864 tokens = 589,824 exceeds the KV cache (200,000 tokens)", "output cut short by EOS"} {
		if !strings.Contains(titles, w) {
			t.Errorf("no matrix cell has %q on hover", w)
		}
	}
	body := eval(`document.body.innerText`)
	for _, w := range []string{"HTTP 500: CUDA out of memory", "Second GPU ran at a 350 W power limit.", "2× RTX 4090", "Separate cold requests", "200,000 tokens"} {
		if !strings.Contains(body, w) {
			t.Errorf("page does not show %q", w)
		}
	}
	// The launch command keeps its markup characters as text.
	if got := eval(`document.querySelector(".lb-launch code").textContent`); !strings.Contains(got, `<with> "quotes" & ampersands`) {
		t.Errorf("launch command = %q", got)
	}
	checkSorted(t, p, eval, 4, true)
	checkSorted(t, p, eval, 8, true)
	browsertest.Screenshot(t, p.ctx, "report-failures-en")
}

func TestBrowserPredictedPage(t *testing.T) {
	p, eval := openPage(t, readFixture(t, "predicted-run.json"), "en")
	badge := eval(`document.querySelector(".lb-badge").innerText + " | " + document.querySelector(".lb-warning").innerText`)
	if !strings.Contains(badge, "PREDICTED") || !strings.Contains(badge, "nothing was measured") {
		t.Errorf("badge and warning = %q, want a loud Predicted", badge)
	}
	want := [][]string{
		{"47.9 80 ms TTFT", "91.2 120 ms TTFT", "170.4 260 ms TTFT", "318.6 470 ms TTFT"},
		{"45.8 360 ms TTFT", "85.1 540 ms TTFT", "Over capacity", "Over capacity"},
		{"42.7 1,280 ms TTFT", "Over capacity", "Over capacity", "Over capacity"},
	}
	checkCells(t, eval, ".lb-matrix", want)
	if got := column(tableRows(eval, ".lb-sortable"), 3); !slices.Contains(got, "Predicted") {
		t.Errorf("statuses %v: want Predicted", got)
	}
	checkSorted(t, p, eval, 5, true)
	browsertest.Screenshot(t, p.ctx, "report-predicted-en")
}

// Without JavaScript the page still shows the matrix, the charts and every row, and the
// buttons that need a script stay hidden.
func TestBrowserPageReadsWithoutScript(t *testing.T) {
	seed := seedcopy.PageTables()
	p, eval := openPageWith(t, readSeed(t), "en", true)
	if got := eval(`String(document.querySelector(".lb-copy").hidden)`); got != "true" {
		t.Errorf("Copy button shown without script (hidden=%s)", got)
	}
	ttft := func(s string) string { return locale.T("en", "x_ttft", s) }
	checkCells(t, eval, ".lb-matrix", matrixAsPage(seed.Matrix, ttft))
	if diff := cmp.Diff(seed.All, tableRows(eval, ".lb-sortable")); diff != "" {
		t.Errorf("All measurements without script (-seed +page):\n%s", diff)
	}
	if got := eval(`String(document.querySelectorAll("svg.lb-chart circle").length)`); got != "36" {
		t.Errorf("chart points without script = %s, want 36 (8 + 8 + 4, 8 on the throughput / interactivity chart, and 8 on the capacity chart)", got)
	}
	browsertest.Screenshot(t, p.ctx, "report-seed-en-noscript")
}

// An open-loop run's page: the rate table as the document has it (a null percentile
// shows as —), the saturated cell marked, and its four charts drawn without script.
func TestBrowserRatePage(t *testing.T) {
	run := readRun(t, rundoctest.Path("rate-run.json"))
	p, eval := openPageUntil(t, run, "en", true, ".lb-rate-table")
	rows := tableRows(eval, ".lb-rate-table")
	if len(rows) != len(run.Rate) {
		t.Fatalf("%d rate rows on the page, %d cells in the run", len(rows), len(run.Rate))
	}
	for i, c := range run.Rate {
		if got, want := rows[i][3], strconv.Itoa(c.CompletedRequests)+" / "+strconv.Itoa(c.Requests); got != want {
			t.Errorf("row %d completed/sent %q, want %q", i, got, want)
		}
		if c.TTFTMs.P90 == nil && !strings.Contains(rows[i][4], "—") {
			t.Errorf("row %d TTFT %q: a null p90 must show as —", i, rows[i][4])
		}
		if c.Saturated() != strings.Contains(rows[i][1], "saturated") {
			t.Errorf("row %d status %q, saturated %v", i, rows[i][1], c.Saturated())
		}
	}
	if got := eval(`String(document.querySelectorAll(".lb-rate-charts svg.lb-chart").length)`); got != "4" {
		t.Errorf("%s rate charts, want 4", got)
	}
	if got := eval(`String(document.querySelectorAll(".lb-rate-charts svg.lb-chart circle").length > 0)`); got != "true" {
		t.Error("the rate charts have no points")
	}
	browsertest.Screenshot(t, p.ctx, "report-rate-en")
}
