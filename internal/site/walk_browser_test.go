package site_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/llmbench/llmbench/internal/browsertest"
	"github.com/llmbench/llmbench/internal/rundoc"
	seedcopy "github.com/llmbench/llmbench/internal/seed"
	"github.com/llmbench/llmbench/internal/site"
	"github.com/llmbench/llmbench/internal/site/client"
	"github.com/llmbench/llmbench/internal/stats"
)

// walkSite is the site as "llmbench serve" wires it, holding what each kind of page
// can show: the seed (over-capacity cells, intervals), a twin of it on another RTX
// 3090 whose figures tie with it, a faster copy on an RTX 5090, an emulated run, a run
// of three repeats (its note; it and the twin carry accuracy evaluations for an A/B),
// an H200 run of a model with a long name, a 4,096-GPU run the calculator's form
// cannot take, the report package's fixtures (a predicted run, an energy-metered run,
// open-loop runs at set rates and a max-rate search), and a report embedding a run.
func walkSite(t *testing.T) *httptest.Server {
	t.Helper()
	hs, tok := serveWired(t, site.Options{RateBurst: 1000})
	seed, err := os.ReadFile(seedcopy.RunPath())
	if err != nil {
		t.Fatal(err)
	}
	variant := func(b []byte, edit func(r *rundoc.Run)) []byte { return docVariant(t, b, edit) }
	fixture := func(name string) []byte {
		b, err := os.ReadFile("../report/testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	interval := func(r *rundoc.Run) {
		for i := range r.Decode {
			if c := &r.Decode[i]; c.DecodeFigures != nil {
				c.CellIntervals = &rundoc.CellIntervals{TotalTokSCI: &stats.Interval{Low: c.TotalTokS * 0.98, High: c.TotalTokS * 1.02}, CIMethod: rundoc.CIMethodWindow}
			}
		}
	}
	docs := [][]byte{
		variant(seed, interval),
		variant(seed, func(r *rundoc.Run) {
			r.ID, r.Title = "seed-twin", "Qwen3.8-27B-INT4 on a second RTX 3090"
			interval(r)
			r.Accuracy = []rundoc.Accuracy{site.EvalEntry(func(i int) bool { return i < 12 || i >= 15 && i < 75 })}
		}),
		variant(seed, faster5090),
		variant(seed, emulatedDemo),
		variant(seed, func(r *rundoc.Run) {
			r.ID, r.Title, r.Hardware.GPUs[0].Name = "h200-long-model", "DeepSeek distill on H200", "H200"
			r.Hardware.GPUs[0].VRAMBytes = 141 << 30
			r.Model.ID = "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B-Instruct-Long-Name"
		}),
		variant(seed, func(r *rundoc.Run) {
			r.ID, r.Title, r.Hardware.GPUs[0].Name, r.Hardware.GPUs[0].Count = "cluster-4096", "A cluster of 4,096 H100", "H100", 4096
			r.Hardware.GPUs[0].VRAMBytes = 80 << 30
		}),
		variant(seed, func(r *rundoc.Run) {
			// As a run with --repeat 3 writes it: each cell the median of three, with
			// intervals over them, and the note saying so (one cell unstable).
			r.ID, r.Title, r.Config.Repeat = "repeat-run", "Qwen3.8-27B-INT4 measured three times", 3
			c := r.Cell(0, 1)
			c.CellIntervals = &rundoc.CellIntervals{TotalTokSCI: &stats.Interval{Low: c.TotalTokS - 0.6, High: c.TotalTokS + 0.4}, CIMethod: rundoc.CIMethodRepeats, Unstable: true,
				Repeats: []rundoc.CellRepeat{{Status: rundoc.StatusValid, DecodeFigures: c.DecodeFigures}, {Status: rundoc.StatusValid, DecodeFigures: c.DecodeFigures}, {Status: rundoc.StatusValid, DecodeFigures: c.DecodeFigures}}}
			r.Notes = append(r.Notes, rundoc.RepeatNote{Repeats: 3, Unstable: []string{"0 × 1"}}.String())
			r.Accuracy = []rundoc.Accuracy{site.EvalEntry(func(i int) bool { return i >= 12 && i < 75 })}
		}),
		fixture("predicted-run.json"),
		fixture("energy-run.json"),
		fixture("rate-run.json"),
		fixture("rate-search-run.json"),
	}
	// A GPU × model measured under many engine versions, some long, for the history
	// page's chart and table on a phone.
	for i, v := range []string{"0.6.3.post1", "0.10.0", "0.10.1", "0.10.1.1", "0.10.2rc1", "0.10.2", "0.10.2+cu128", "0.11.0rc2", "0.11.0",
		"0.11.1.dev12+g1234abc", "0.11.1", "main"} {
		docs = append(docs, variant(seed, func(r *rundoc.Run) {
			r.ID, r.Title, r.Hardware.GPUs[0].Name, r.Engine.Version = fmt.Sprintf("l40s-%02d", i), "", "L40S", v
			r.Hardware.GPUs[0].VRAMBytes = 48 << 30
			r.Cell(0, 1).TotalTokS = 40 + float64(i%5)
			interval(r)
		}))
	}
	for _, d := range docs {
		if _, err := client.Submit(context.Background(), hs.Client(), hs.URL, tok, d); err != nil {
			t.Fatalf("submitting: %v", err)
		}
	}
	report := fmt.Sprintf(`{"slug":"notes","title":"RTX 3090 notes","body_md":"Decode holds **48 tok/s**.\n\n[[run:%s]]\n"}`, browserSeedID)
	req, _ := http.NewRequest(http.MethodPost, hs.URL+"/api/v1/reports", bytes.NewReader([]byte(report)))
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := hs.Client().Do(req)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("posting a report: %v %v", resp, err)
	}
	resp.Body.Close()
	return hs
}

// walkPaths are the pages to visit for each GET route of the router; a route that is
// not a page (the API, files) maps to nothing. A route missing here fails the test,
// so a new page is walked from the day it is added.
var walkPaths = map[string][]string{
	"GET /{$}": {"/", "/?metric=ttft_ms&context=16K&concurrency=2", "/?metric=bogus",
		"/?family=qwen3.8-27b&metric=total_tok_s&context=16K&concurrency=2", "/?metric=total_tok_s&context=32K&concurrency=1",
		"/?kind=all&metric=goodput_rps", "/?kind=all&metric=goodput_rps&context=512&rate=4&output=64&max_concurrency=8&requests=20&slo=ttft:1000ms,tpot:60ms",
		"/?kind=all&metric=max_rate_rps&context=512&output=64&slo=ttft:1000ms,tpot:60ms",
		"/?metric=users&context=16K&speed=20", "/?metric=users_per_gpu&context=0&speed=40",
		"/?kind=all&metric=goodput_rps&context=512&rate=4&output=64&max_concurrency=8&requests=20&slo=ttft:soon,tpot:60ms"},
	"GET /leaderboard":        {"/leaderboard?group=setup", "/leaderboard?accuracy_within=5"},
	"GET /getting-started":    {"/getting-started"},
	"GET /docs":               {"/docs"},
	"GET /api":                {"/api"},
	"GET /runs":               {"/runs", "/runs?mode=rate", "/runs?kind=all"},
	"GET /runs/{id}":          {"/runs/" + browserSeedID, "/runs/faster-5090", "/runs/emulated-run", "/runs/repeat-run", "/runs/h200-long-model", "/runs/cluster-4096", "/runs/calc-rtx3090-qwen2.5-32b-w4a16", "/runs/fixture-energy", "/runs/20261201-091735-20649d", "/runs/20261201-091558-b401d5", "/runs/nope"},
	"GET /compare":            {"/compare?id=" + browserSeedID + "&id=seed-twin&id=faster-5090&id=h200-long-model", "/compare", "/compare?id=" + browserSeedID + "&id=faster-5090", "/compare?id=" + browserSeedID + "&id=seed-twin&id=faster-5090&id=h200-long-model&id=emulated-run", "/compare?id=20261201-091735-20649d&id=20261201-091558-b401d5", "/compare?id=20261201-091735-20649d&id=" + browserSeedID, "/compare?id=seed-twin&id=repeat-run"},
	"GET /hardware":           {"/hardware"},
	"GET /hardware/{name...}": {"/hardware/RTX%203090", "/hardware/H200", "/hardware/H100", "/hardware/B200"},
	"GET /models":             {"/models"},
	"GET /models/{name...}":   {"/models/RedHatAI%2FQwen3.8-27B-INT4", "/models/llmbench-sim%2Fqwen3.8-27b-int4"},
	"GET /calculator": {"/calculator?gpu=RTX+3090&model=RedHatAI%2FQwen3.8-27B-INT4&quant=INT4+W4A16+g128&kv_dtype=fp8", "/calculator", "/calculator?gpu=RTX+4090&model=Qwen%2FQwen3-32B&quant=awq",
		"/calculator?gpu=RTX+4090&model=Qwen%2FQwen3-32B&gpus=99", "/calculator?gpu=B200&model=Qwen%2FQwen3-32B",
		"/calculator?gpu=RTX+3090&model=RedHatAI%2FQwen3.8-27B-INT4&quant=INT4+W4A16+g128&kv_dtype=fp8&speed=20&users_context=16K"},
	"GET /history": {"/history?gpu=L40S&model=RedHatAI%2FQwen3.8-27B-INT4", "/history?gpu=RTX+3090&model=RedHatAI%2FQwen3.8-27B-INT4", "/history?gpu=H200&model=deepseek-ai%2FDeepSeek-R1-Distill-Qwen-32B-Instruct-Long-Name&quant=INT4+W4A16+g128",
		"/history?gpu=H200&model=nobody%2Fnothing", "/history?gpu=H200"},
	"GET /benchmarks":                {"/benchmarks"},
	"GET /orgs":                      {"/orgs"},
	"GET /orgs/{name}":               {"/orgs/Acme%20Labs"},
	"GET /reports":                   {"/reports"},
	"GET /reports/new":               {"/reports/new"},
	"GET /reports/{slug}":            {"/reports/notes"},
	"GET /families":                  {"/families"},
	"GET /families/{name...}":        {"/families/qwen3.8-27b"},
	"GET /submitters/{name}":         {"/submitters/@alice"},
	"GET /authors/{name}":            {"/authors/@Sandberg"},
	"/":                              {"/nowhere"},
	"POST /reports/new":              nil,
	"GET /against":                   {"/against"},
	"POST /against":                  nil,
	"GET /static/{file}":             nil,
	"GET /favicon.ico":               nil,
	"GET /robots.txt":                nil,
	"GET /healthz":                   nil,
	"GET /api/openapi.json":          nil,
	"POST /api/v1/runs":              nil,
	"GET /api/v1/runs":               nil,
	"GET /api/v1/runs/{id}":          nil,
	"GET /api/v1/runs/{id}/capacity": nil,
	"GET /api/v1/hardware":           nil,
	"GET /api/v1/models":             nil,
	"POST /api/v1/reports":           nil,
	"GET /api/v1/reports":            nil,
	"GET /api/v1/leaderboard":        nil,
	"GET /api/v1/predict":            nil,
	"GET /api/v1/families":           nil,
	"GET /api/v1/history":            nil,
}

// pageCheck is what the page's own script finds wrong with it as laid out.
type pageCheck struct {
	// Overflow is how many pixels the document is wider than the window; Wide names
	// the outermost elements that stick out.
	Overflow int      `json:"overflow"`
	Wide     []string `json:"wide"`
	// Cut are, on a wide screen, elements that scroll because their content does not
	// fit: a table whose last columns are out of sight.
	Cut []string `json:"cut"`
	// Board says what is wrong with the leaderboard's first row: its rank and its
	// ranked figure must be in sight side by side.
	Board string `json:"board"`
	// Clipped are SVG texts that reach past their drawing's box.
	Clipped []string `json:"clipped"`
	// Text is what the page shows (and on hover), less code, the menu and what is
	// marked English.
	Text string `json:"text"`
	// Own are the page's own lines of text: outside the run's report, whose document
	// holds words of its own.
	Own []string `json:"own"`
}

// checkScript measures the page in the browser.
const checkScript = `(() => {
  const out = {overflow: 0, wide: [], cut: [], clipped: [], board: "", text: "", own: []};
  const wide = window.innerWidth >= 1000;
  const de = document.documentElement, vw = de.clientWidth;
  out.overflow = Math.max(0, de.scrollWidth - vw);
  const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\s+/).join(".") : "");
  // What sticks out of the page's column (main's content box), outside anything that
  // scrolls on its own; and, on a wide screen, what is cut off in something that does.
  const main = document.querySelector("main");
  let edge = vw;
  if (main) { const r = main.getBoundingClientRect(); edge = Math.min(vw, r.right - parseFloat(getComputedStyle(main).paddingRight)); }
  const scrolls = (e) => { const s = getComputedStyle(e).overflowX; return s === "auto" || s === "scroll" || s === "hidden"; };
  const inScroller = (e) => { for (let p = e.parentElement; p; p = p.parentElement) if (scrolls(p)) return true; return false; };
  for (const e of document.body.querySelectorAll("main *")) {
    const r = e.getBoundingClientRect();
    if (r.width > 0 && r.right > edge + 1 && !inScroller(e) && !(e.parentElement && e.parentElement.getBoundingClientRect().right > edge + 1)) {
      if (out.wide.length < 6) out.wide.push(name(e) + " (" + Math.round(r.right) + " px of " + Math.round(edge) + ")");
    }
    if (wide && scrolls(e) && e.scrollWidth > e.clientWidth + 1 && out.cut.length < 6) out.cut.push(name(e) + " shows " + e.clientWidth + " of " + e.scrollWidth + " px");
  }
  // Text that runs past the column though its element does not (a long URL).
  if (main) {
    const texts = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    for (let n = texts.nextNode(); n && out.wide.length < 6; n = texts.nextNode()) {
      if (!n.parentElement || n.parentElement.closest("svg") || scrolls(n.parentElement) || inScroller(n.parentElement) || !n.textContent.trim()) continue;
      range.selectNodeContents(n);
      const r = range.getBoundingClientRect();
      if (r.width > 0 && r.right > edge + 1) out.wide.push("text " + JSON.stringify(n.textContent.trim().slice(0, 40)) + " (" + Math.round(r.right) + " px of " + Math.round(edge) + ")");
    }
  }
  for (const svg of document.querySelectorAll("svg")) {
    const b = svg.getBoundingClientRect();
    if (b.width === 0) continue;
    for (const t of svg.querySelectorAll("text")) {
      const r = t.getBoundingClientRect();
      if (r.width === 0) continue;
      if (r.left < b.left - 1 || r.right > b.right + 1 || r.top < b.top - 1 || r.bottom > b.bottom + 1) {
        out.clipped.push((svg.getAttribute("aria-labelledby") || name(svg)) + ": " + JSON.stringify(t.textContent) + " at " + Math.round(r.left - b.left) + ".." + Math.round(r.right - b.left) + " of " + Math.round(b.width));
      }
    }
  }
  // The leaderboard: each row's rank and ranked figure both in sight, side by side.
  const row = document.querySelector("#board tbody tr[data-id]");
  if (row) {
    const rank = row.querySelector("td.rank"), fig = row.querySelector("td.metric");
    const a = rank && rank.getBoundingClientRect(), b = fig && fig.getBoundingClientRect();
    if (!a || !b || a.left < 0 || b.right > vw + 1 || b.left > a.right + 24) out.board = "the rank and the ranked figure are not side by side in sight: rank " + (a ? Math.round(a.left) + ".." + Math.round(a.right) : "none") + ", figure " + (b ? Math.round(b.left) + ".." + Math.round(b.right) : "none") + " of " + vw;
  }
  const skip = "script, style, pre, code, nav.menu, [lang=en]";
  const parts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.parentElement || n.parentElement.closest(skip)) continue;
    parts.push(n.textContent);
    if (!n.parentElement.closest(".report-body")) out.own.push(n.textContent);
  }
  for (const e of document.body.querySelectorAll("[title], [aria-label], [placeholder]")) {
    if (e.closest(skip)) continue;
    for (const a of ["title", "aria-label"]) if (e.hasAttribute(a)) parts.push(e.getAttribute(a));
  }
  out.text = parts.join("\n");
  return out;
})()`

// TestBrowserWalkEveryPage visits every page of the router at a desktop width (1366
// px) and a phone's (390 px), in English and Japanese, and fails where the document
// scrolls sideways, an SVG text is cut off by its drawing's edge, the page logs an
// error, or a Japanese page shows a sentence of the English catalogue.
func TestBrowserWalkEveryPage(t *testing.T) {
	var paths []string
	shot := map[string]bool{} // the first page of each route (the fullest) is saved as a screenshot on a phone
	for _, p := range site.RoutePatterns() {
		want, ok := walkPaths[p]
		if !ok {
			t.Errorf("the router serves %s, which the walk does not visit: add its pages to walkPaths (or nil if it is not a page)", p)
		}
		if len(want) > 0 {
			shot[want[0]] = true
		}
		paths = append(paths, want...)
	}
	// About 220 page loads: 20–40 s on an idle 2-core machine, more under load.
	ctx := browsertest.StartFor(t, 5*time.Minute)
	hs := walkSite(t)
	errs := listenForErrors(t, ctx)
	needles := append(englishNeedles(t), generatedNeedles()...)
	start := time.Now()
	overflowing := map[int]int{}
	for _, width := range []int64{1366, 390} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900, mobileIf(width < 800))); err != nil {
			t.Fatal(err)
		}
		for _, lang := range []string{"en", "ja"} {
			for _, p := range paths {
				sep := "?"
				if strings.Contains(p, "?") {
					sep = "&"
				}
				u := hs.URL + p + sep + "lang=" + lang
				errs.expect(u)
				if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
					t.Fatalf("loading %s: %v", u, err)
				}
				c, err := chromedp.Run(ctx, chromedp.Evaluate[pageCheck](checkScript))
				if err != nil {
					t.Fatalf("checking %s: %v", u, err)
				}
				where := fmt.Sprintf("%s at %d px (%s)", p, width, lang)
				if c.Overflow > 0 {
					overflowing[int(width)]++
					t.Errorf("%s: the document is %d px wider than the window", where, c.Overflow)
				}
				if len(c.Wide) > 0 {
					t.Errorf("%s: sticking out of the page: %s", where, strings.Join(c.Wide, ", "))
				}
				if len(c.Cut) > 0 {
					t.Errorf("%s: cut off: %s", where, strings.Join(c.Cut, ", "))
				}
				if c.Board != "" {
					t.Errorf("%s: %s", where, c.Board)
				}
				for _, s := range c.Clipped {
					t.Errorf("%s: clipped SVG text %s", where, s)
				}
				for _, e := range errs.take() {
					t.Errorf("%s: console: %s", where, e)
				}
				if width < 800 && shot[p] {
					browsertest.Screenshot(t, ctx, fmt.Sprintf("walk-%d-%s-%s", width, lang, p))
				}
				if lang == "ja" {
					for _, n := range needles.in(c.Text, c.Own) {
						t.Errorf("%s: English %q (%s)", where, n.text, n.key)
					}
				}
			}
		}
	}
	t.Logf("walked %d pages × 2 widths × 2 languages in %s; pages overflowing: %v", len(paths), time.Since(start).Round(time.Millisecond), overflowing)
}

// generatedNeedles are the English of what llmbench writes into documents from a few
// numbers (rundoc's texts.go: over-capacity reasons, the --repeat note; rundoc's
// sentences.go: energy and open-loop reasons, price notes, why an SLO cannot be read),
// which pages write again in their own language: the parts between the numbers.
func generatedNeedles() needleSet {
	var out needleSet
	for _, s := range rundoc.Sentences() {
		for _, part := range strings.Split(s.English, "%s") {
			if part = strings.TrimSpace(part); len(part) >= 12 {
				out = append(out, needle{s.Key, part})
			}
		}
	}
	for key, text := range map[string]string{
		"over capacity, by length": rundoc.FitReason{ByLength: true, PerRequest: 1, MaxModelLen: 2}.String(),
		"over capacity, by KV":     rundoc.FitReason{Concurrency: 1, PerRequest: 2, Need: 3, KVCache: 4}.String(),
		"--repeat note":            rundoc.RepeatNote{Repeats: 3, Unstable: []string{"0 × 1"}}.String(),
	} {
		for _, part := range digits.Split(text, -1) {
			if part = strings.TrimSpace(part); len(part) >= 12 {
				out = append(out, needle{key, part})
			}
		}
	}
	return out
}

var digits = regexp.MustCompile(`[0-9]+`)

func mobileIf(mobile bool) chromedp.EmulateViewportOption {
	if mobile {
		return chromedp.EmulateMobile
	}
	return chromedp.EmulateScale(1)
}

// consoleErrors collects what the tab logs as an error: console.error, uncaught
// exceptions, and the browser's own error entries (a blocked script, a failed load)
// except the failed load of the page itself, which is an error page on purpose.
type consoleErrors struct {
	mu    chan struct{}
	pages map[string]bool
	list  []string
}

func listenForErrors(t *testing.T, ctx context.Context) *consoleErrors {
	c := &consoleErrors{mu: make(chan struct{}, 1), pages: map[string]bool{}}
	err := chromedp.Listen(ctx, func(ev any) {
		var msg string
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				msg = "console.error " + strings.Join(args, " ")
			}
		case *runtime.EventExceptionThrown:
			msg = "exception " + e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				msg = fmt.Sprintf("%s %s (%s)", e.Entry.Source, e.Entry.Text, e.Entry.URL)
				c.mu <- struct{}{}
				if e.Entry.Source == log.EntrySourceNetwork && c.pages[e.Entry.URL] {
					msg = ""
				}
				<-c.mu
			}
		}
		if msg != "" {
			c.mu <- struct{}{}
			c.list = append(c.list, msg)
			<-c.mu
		}
	})
	if err != nil {
		t.Fatalf("listening to the tab: %v", err)
	}
	return c
}

// expect names a page about to load, whose own status may be an error.
func (c *consoleErrors) expect(page string) {
	c.mu <- struct{}{}
	c.pages[page] = true
	<-c.mu
}

func (c *consoleErrors) take() []string {
	c.mu <- struct{}{}
	defer func() { <-c.mu }()
	out := c.list
	c.list = nil
	return out
}
