package site_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/llmbench/llmbench/internal/browsertest"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/client"
)

// browserRateSite is browserSite with open-loop runs beside the matrix runs: the
// report package's rate fixture (llmbench run --quick --rate 1,4,inf
// --max-concurrency 8 --requests 20 --slo ttft=1s,tpot=60ms) as if measured on an RTX
// 4090, a copy on an RTX 5090 with 1.2 × its goodput and two thirds of its TTFT, and
// one judged against a stricter TTFT target.
func browserRateSite(t *testing.T) *httptest.Server {
	t.Helper()
	hs, tok := browserSiteWithToken(t)
	b, err := os.ReadFile("../report/testdata/rate-run.json")
	if err != nil {
		t.Fatal(err)
	}
	doc := func(id, title, gpu string, edit func(r *rundoc.Run)) []byte {
		r, err := rundoc.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		r.ID, r.Title, r.Status = id, title, rundoc.RunMeasured
		r.Engine = rundoc.Engine{Name: "vllm", Version: "0.11.0", Quantization: "INT4 W4A16 g128"}
		r.Model.ID = "RedHatAI/Qwen3.8-27B-INT4"
		r.Hardware = rundoc.Hardware{GPUs: []rundoc.GPU{{Name: gpu, VRAMBytes: 32 << 30, Count: 1}}}
		if edit != nil {
			edit(r)
		}
		out, _ := json.Marshal(r)
		return out
	}
	faster := func(r *rundoc.Run) {
		for i := range r.Rate {
			f := r.Rate[i].RateFigures
			if f == nil {
				continue
			}
			g := *f
			if f.GoodputRPS != nil {
				v := *f.GoodputRPS * 1.2
				g.GoodputRPS = &v
			}
			if f.TTFTMs.P50 != nil {
				v := *f.TTFTMs.P50 * 2 / 3
				g.TTFTMs.P50 = &v
			}
			if f.AchievedRPS != nil {
				v := *f.AchievedRPS * 1.1
				g.AchievedRPS = &v
			}
			r.Rate[i].RateFigures = &g
		}
	}
	for _, d := range [][]byte{
		doc("rate-4090", "Open loop on RTX 4090", "RTX 4090", nil),
		doc("rate-5090", "Open loop on RTX 5090", "RTX 5090", faster),
		doc("rate-strict", "Open loop, strict SLO", "RTX 4090", func(r *rundoc.Run) {
			v := 500.0
			r.Config.Rate.SLO.TTFTMs = &v
		}),
	} {
		if _, err := client.Submit(context.Background(), hs.Client(), hs.URL, tok, d); err != nil {
			t.Fatalf("submitting: %v", err)
		}
	}
	return hs
}

// TestBrowserGoodputPicker: a reader picks goodput in the leaderboard's menu, is told
// that goodput needs an SLO and offered the ones runs were measured under, picks the
// one most runs share, moves to the 4 requests/s cell in the picker, then types a
// stricter SLO into the form and sees only the run judged against it.
func TestBrowserGoodputPicker(t *testing.T) {
	ctx := browsertest.Start(t)
	hs := browserRateSite(t)
	err := chromedp.Do(ctx,
		chromedp.Navigate(hs.URL+"/?lang=en"),
		chromedp.WaitVisible(chromedp.CSS("#board")),
		chromedp.SetValue(chromedp.CSS("#f-metric"), "goodput_rps"),
		chromedp.Click(chromedp.CSS("#f-apply")),
		chromedp.WaitVisible(chromedp.CSS("#conds")),
	)
	if err != nil {
		t.Fatal(err)
	}
	if e := text(ctx, t, "#board-error"); !strings.Contains(e, "is judged against an SLO") {
		t.Errorf("goodput without an SLO says %q", e)
	}
	conds := text(ctx, t, "#conds")
	if !strings.Contains(conds, "SLO: TTFT ≤ 1,000 ms, TPOT ≤ 60 ms") || !strings.Contains(conds, "SLO: TTFT ≤ 500 ms, TPOT ≤ 60 ms") {
		t.Fatalf("the conditions offered:\n%s", conds)
	}
	// The first set of conditions is the one most runs share (two runs, 1 s TTFT).
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#conds li:first-child a")),
		chromedp.WaitVisible(chromedp.CSS("#cell-picker")),
	)
	if err != nil {
		t.Fatalf("picking the SLO: %v", err)
	}
	if h := text(ctx, t, "#board-cond"); !strings.Contains(h, "SLO: TTFT ≤ 1,000 ms, TPOT ≤ 60 ms") || !strings.Contains(h, "at most 8 in flight") {
		t.Errorf("the board's conditions read %q", h)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#cell-picker a[href*="rate=4&"], #cell-picker a[href$="rate=4"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#cell-picker td.sel a[href*="rate=4"]`)),
	)
	if err != nil {
		t.Fatalf("picking 4 requests/s: %v", err)
	}
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	for _, want := range []string{"metric=goodput_rps", "context=512", "rate=4", "output=64", "max_concurrency=8", "requests=20", "slo=ttft%3A1000ms%2Ctpot%3A60ms"} {
		if !strings.Contains(loc, want) {
			t.Errorf("the URL %s lacks %s", loc, want)
		}
	}
	if h := text(ctx, t, "#board-cell"); !strings.Contains(h, "512 input tokens, 4 req/s") {
		t.Errorf("the board's heading is %q", h)
	}
	// The fixture's 4/s cell met the SLO at 1.538 req/s; the 5090 copy at 1.2 × that.
	board := text(ctx, t, "#board tbody")
	first, second := text(ctx, t, "#board tbody tr:first-child"), text(ctx, t, "#board tbody tr:nth-child(2)")
	if !strings.Contains(first, "RTX 5090") || !strings.Contains(first, "1.85") || !strings.Contains(second, "RTX 4090") || !strings.Contains(second, "1.54") {
		t.Errorf("the goodput board at 4/s:\n%s", board)
	}
	if strings.Contains(board, "strict SLO") || strings.Contains(board, "RTX 3090") {
		t.Errorf("the board at the 1 s SLO ranks a run judged otherwise, or a matrix run:\n%s", board)
	}
	if !strings.Contains(first, "Request rates") {
		t.Errorf("a rate run's row is not marked as one: %q", first)
	}
	browsertest.Screenshot(t, ctx, "site-leaderboard-goodput")
	// A stricter SLO typed into the form: only the run judged against it.
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#f-slo"), "ttft:500ms,tpot:60ms"),
		chromedp.Click(chromedp.CSS("#f-apply")),
		chromedp.WaitVisible(chromedp.CSS(`#f-slo[value="ttft:500ms,tpot:60ms"]`)),
	)
	if err != nil {
		t.Fatalf("typing a stricter SLO: %v", err)
	}
	if board := text(ctx, t, "#board tbody"); !strings.Contains(board, "strict SLO") || strings.Contains(board, "RTX 5090") {
		t.Errorf("the board at the 500 ms SLO:\n%s", board)
	}
}

// TestBrowserRateCompare: a reader lists the open-loop runs, ticks two and compares
// them: the rate cells side by side, the latency–throughput chart with a line each.
func TestBrowserRateCompare(t *testing.T) {
	ctx := browsertest.Start(t)
	hs := browserRateSite(t)
	err := chromedp.Do(ctx,
		chromedp.Navigate(hs.URL+"/runs?lang=en&mode=rate"),
		chromedp.WaitVisible(chromedp.CSS("#compare-form")),
	)
	if err != nil {
		t.Fatal(err)
	}
	if list := text(ctx, t, "table.runs tbody"); strings.Contains(list, "RTX 3090") || strings.Count(list, "Request rates") != 3 {
		t.Errorf("the open-loop runs listed:\n%s", list)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`input[value="rate-4090"]`)),
		chromedp.Click(chromedp.CSS(`input[value="rate-5090"]`)),
		chromedp.Click(chromedp.CSS("#compare-button")),
		chromedp.WaitVisible(chromedp.CSS("#rate-compare")),
	)
	if err != nil {
		t.Fatal(err)
	}
	table := text(ctx, t, "#rate-compare")
	// At 4/s: the 4090 run achieved 2.20/s at TTFT p50 740 ms and saturated; the 5090
	// copy 2.42/s at 494 ms.
	for _, want := range []string{"2.20", "740", "2.42", "494", "saturated", "inf (all at once)"} {
		if !strings.Contains(table, want) {
			t.Errorf("the rate table lacks %q:\n%s", want, table)
		}
	}
	lines, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("svg[aria-labelledby='cmp-rate-ttft-t'] polyline").length`))
	if lines != 2 {
		t.Errorf("the latency–throughput chart has %d lines, want 2", lines)
	}
	browsertest.Screenshot(t, ctx, "site-compare-rate")
}
