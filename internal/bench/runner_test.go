package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/rundoc"
)

func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if want == 0 || math.Abs(got-want)/want > tol {
		t.Errorf("%s = %.3f, want %.3f ± %.1f%%", what, got, want, tol*100)
	}
}

// TestExactTiming: against a server that emits a token every 20 ms per stream, every
// valid cell's total tok/s and TBT are within 1% of what the server really sent, at
// concurrency 1 to 128, and within a few % of the nominal rate.
func TestExactTiming(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 8 cells of 3-5 s each")
	}
	// A window's edges can split one token's flight (sent before the close, seen after
	// it): ±1 token. Low concurrencies get longer windows so that stays under 1%.
	for _, plan := range []struct {
		conc     []int
		duration time.Duration
	}{
		{[]int{1, 2}, 5 * time.Second},
		{[]int{4, 8, 16, 32, 64, 128}, 3 * time.Second},
	} {
		conc := plan.conc
		if raceEnabled {
			conc = slices.DeleteFunc(slices.Clone(conc), func(n int) bool { return n > 8 })
		}
		fs := newFakeServer()
		srv := fs.start(t)
		doc := newTestRun([]int{2048}, conc, nil, plan.duration, 4096)
		Plan(doc, rundoc.Limits{})
		r := &Runner{Server: newTestServer(srv, prompt.Chat, 128), Opts: measure.Options{Nonce: "t"}}
		windows, err := runWithWindows(t, context.Background(), r, doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range doc.Decode {
			if c.Status != rundoc.StatusValid {
				t.Errorf("cell %d×%d: %s (%s)", c.Context, c.Concurrency, c.Status, c.Reason)
				continue
			}
			w := windows[[2]int{c.Context, c.Concurrency}]
			truthTokS, truthGap := fs.truth(w, c.PromptTokens)
			within(t, fmt.Sprintf("%d streams: total tok/s vs server", c.Concurrency), c.TotalTokS, truthTokS, 0.01)
			within(t, fmt.Sprintf("%d streams: TBT vs server", c.Concurrency), c.TBTMs, truthGap, 0.01)
			// The nominal rate is the fake server's, not the client's: on a loaded machine
			// its timers run late and it streams slower (it never bursts to catch up).
			if nominal := 50 * float64(c.Concurrency); math.Abs(truthTokS-nominal) > 0.1*nominal {
				t.Logf("%d streams: the server streamed %.0f tok/s of a nominal %.0f (a loaded machine)", c.Concurrency, truthTokS, nominal)
			}
			within(t, fmt.Sprintf("%d streams: avg active", c.Concurrency), c.AvgActiveRequests, float64(c.Concurrency), 0.01)
			// Per-request tok/s is 1000 / the median stream's time per output token.
			within(t, fmt.Sprintf("%d streams: per request", c.Concurrency), c.PerRequestTokS, 1000/c.TBTMs, 0.001)
			// The window is at least as long as asked (a loaded machine may close it late;
			// the figures use its real length).
			if c.MeasuredS < plan.duration.Seconds()*0.999 {
				t.Errorf("%d streams: measured %.3f s, %v asked", c.Concurrency, c.MeasuredS, plan.duration)
			}
			// TTFT is at least the server's 30 ms; how much more depends on the machine's load.
			if c.TTFTMs < 29 {
				t.Errorf("%d streams: TTFT %.1f ms, below the server's 30 ms", c.Concurrency, c.TTFTMs)
			}
			t.Logf("%3d streams: %.2f tok/s (server %.2f, err %+.3f%%), TBT %.3f ms (server %.3f, err %+.3f%%), TTFT %.1f ms",
				c.Concurrency, c.TotalTokS, truthTokS, 100*(c.TotalTokS-truthTokS)/truthTokS, c.TBTMs, truthGap, 100*(c.TBTMs-truthGap)/truthGap, c.TTFTMs)
		}
	}
}

// TestQueueingInferredWithoutGauges: a server with two slots and no metrics never
// streams more than two requests at once; the cell says so, and a cell it can hold
// all at once does not.
func TestQueueingInferredWithoutGauges(t *testing.T) {
	fs := newFakeServer()
	fs.slots = make(chan struct{}, 2)
	srv := fs.start(t)
	doc := newTestRun([]int{0}, []int{2, 4}, nil, 2*time.Second, 20)
	Plan(doc, rundoc.Limits{})
	r := &Runner{Server: newTestServer(srv, prompt.Chat, 128), Opts: measure.Options{Nonce: "t"}}
	if err := r.Run(context.Background(), doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range doc.Decode {
		if c.Status != rundoc.StatusValid || c.CellDetail == nil {
			t.Fatalf("cell %d×%d: %s (%s)", c.Context, c.Concurrency, c.Status, c.Reason)
		}
		wantQueue := c.Concurrency > 2
		if c.Queueing != wantQueue || slices.Contains(c.Flags, "queueing_inferred") != wantQueue {
			t.Errorf("%d streams on 2 slots: queueing %v, flags %v; want queueing %v", c.Concurrency, c.Queueing, c.Flags, wantQueue)
		}
		if c.PeakStreaming != 2 {
			t.Errorf("%d streams on 2 slots: peak streaming %d, want 2", c.Concurrency, c.PeakStreaming)
		}
	}
}

// TestPrefillAndWarmup: the cold warm-up measures prefill at the server's rate, the row's
// cells see a warm cache, and warm-up traffic stays out of every window.
func TestPrefillAndWarmup(t *testing.T) {
	fs := newFakeServer()
	fs.prefillRate = 4000
	srv := fs.start(t)
	// Requests of 20 tokens finish inside the window, so their usage (with cached
	// tokens) arrives and the closed loop replaces them.
	doc := newTestRun([]int{0, 4096}, []int{1, 2}, []int{2048, 4096}, time.Second, 20)
	Plan(doc, rundoc.Limits{})
	logged := &lineLog{}
	r := &Runner{Server: newTestServer(srv, prompt.Chat, 4), Opts: measure.Options{Nonce: "p", Progress: logged}}
	windows, err := runWithWindows(t, context.Background(), r, doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range doc.Prefill {
		if p.Status != rundoc.StatusValid {
			t.Fatalf("prefill %d: %s %s", p.Context, p.Status, p.Reason)
		}
		// The progress display prints the row's result as it prints a cell's.
		want := fmt.Sprintf("prefill %5s", rundoc.FormatTokens(p.Context))
		if line := logged.find(want); !strings.Contains(line, fmt.Sprintf("%.1f tok/s", p.PromptTokS)) || !strings.Contains(line, "valid") {
			t.Errorf("progress line for prefill %d: %q, want its tok/s and status (lines: %q)", p.Context, line, logged.lines)
		}
		if p.PromptTokens != p.Context {
			t.Errorf("prefill %d: prompt has %d tokens, want exactly %d", p.Context, p.PromptTokens, p.Context)
		}
		// Against what the server did: its own time from receiving the request to
		// sending the first token. The client's TTFT adds one loopback round trip.
		serverTTFT := fs.coldTTFT(p.Context)
		within(t, fmt.Sprintf("prefill %d tok/s vs server", p.Context), p.PromptTokS, float64(p.Context)/serverTTFT.Seconds(), 0.05)
		// And the nominal rate, looser: a loaded machine delays the server's timers.
		within(t, fmt.Sprintf("prefill %d tok/s vs nominal", p.Context), p.PromptTokS, 4000, 0.25)
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var warmups []*fakeRequest
	for _, req := range fs.requests {
		if req.maxTokens == 1 && req.promptTokens > 100 {
			warmups = append(warmups, req)
		}
	}
	if len(warmups) != 2 {
		t.Fatalf("%d cold requests, want 2 (one per prefill context)", len(warmups))
	}
	for _, c := range doc.Decode {
		if c.Status != rundoc.StatusValid {
			t.Errorf("cell %d×%d: %s %s", c.Context, c.Concurrency, c.Status, c.Reason)
			continue
		}
		w := windows[[2]int{c.Context, c.Concurrency}]
		for _, wu := range warmups {
			if wu.promptTokens == c.Context && !wu.end.Before(w.Open) {
				t.Errorf("warm-up request ended at %v, inside the %d×%d window opened at %v", wu.end, c.Context, c.Concurrency, w.Open)
			}
		}
		if c.Context > 0 && (c.CacheHitRatio == nil || *c.CacheHitRatio < 0.9) {
			t.Errorf("cell %d×%d: cache hit ratio %v, want the warm shared context", c.Context, c.Concurrency, c.CacheHitRatio)
		}
	}
	// Decode requests of the 4K row must all have found the context cached.
	for _, req := range fs.requests {
		if req.maxTokens > 1 && req.promptTokens > 4000 && req.cold {
			t.Errorf("a decode request of %d tokens was cold: the warm-up did not warm", req.promptTokens)
		}
	}
}

// TestOverCapacityNeverSent: cells past the KV cache are marked and never requested.
func TestOverCapacityNeverSent(t *testing.T) {
	fs := newFakeServer()
	srv := fs.start(t)
	kv := int64(3 * (1024 + 256)) // 3 streams of 1K context + 256 output fit
	doc := newTestRun([]int{1024}, []int{1, 2, 4, 8}, nil, time.Second, 256)
	Plan(doc, rundoc.Limits{KVCacheTokens: &kv})
	var events bytes.Buffer
	r := &Runner{Server: newTestServer(srv, prompt.Chat, 8), Opts: measure.Options{Nonce: "o", Events: measure.NewEventLog(&events)}}
	if err := r.Run(context.Background(), doc); err != nil {
		t.Fatal(err)
	}
	r.Opts.Events.Flush()
	want := map[int]rundoc.Status{1: rundoc.StatusValid, 2: rundoc.StatusValid, 4: rundoc.StatusOverCapacity, 8: rundoc.StatusOverCapacity}
	for _, c := range doc.Decode {
		if c.Status != want[c.Concurrency] {
			t.Errorf("%d streams: %s, want %s", c.Concurrency, c.Status, want[c.Concurrency])
		}
	}
	dec := json.NewDecoder(&events)
	sent := map[int]int{}
	for {
		var ev Event
		if dec.Decode(&ev) != nil {
			break
		}
		if ev.Type == "request" && ev.Phase == "decode" {
			sent[ev.Concurrency]++
		}
	}
	if sent[1] == 0 || sent[2] == 0 {
		t.Errorf("requests sent per cell = %v, want the fitting cells measured", sent)
	}
	if sent[4]+sent[8] > 0 {
		t.Errorf("requests sent per cell = %v: an over-capacity cell was sent", sent)
	}
	// The server never saw more than 2 of these at once, plus one being cancelled while
	// the next cell starts.
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if got := fs.maxIn[1024]; got > 3 {
		t.Errorf("the server saw %d requests of the 1K context at once", got)
	}
}

// messyCell measures a 1024 × 4 cell against a messy server — comments, CRLF, split
// events, 3-token chunks, a 503 every 7th request, streams dropped after dropAfter
// tokens (0: none) — with per-chunk usage asked for or not; it returns the server, the
// cell and its window.
func messyCell(t *testing.T, dropAfter int, usage bool) (*fakeServer, rundoc.DecodeCell, Window) {
	t.Helper()
	fs := newFakeServer()
	fs.messy, fs.chunkTokens, fs.fail503, fs.dropAfter = true, 3, 7, dropAfter
	srv := fs.start(t)
	doc := newTestRun([]int{1024}, []int{4}, nil, 2*time.Second, 60)
	Plan(doc, rundoc.Limits{})
	r := &Runner{Server: newTestServer(srv, prompt.Chat, 4), Opts: measure.Options{Nonce: "m"}}
	r.Server.ContinuousUsage = usage // without it, tokens are counted from the chunks' content
	windows, err := runWithWindows(t, context.Background(), r, doc)
	if err != nil {
		t.Fatal(err)
	}
	c := doc.Decode[0]
	if c.DecodeFigures == nil {
		t.Fatalf("cell not measured: %s %s", c.Status, c.Reason)
	}
	return fs, c, windows[[2]int{1024, 4}]
}

// TestMessyStream: comments, CRLF, split events, multi-token chunks, 503s and dropped
// streams still measure right.
func TestMessyStream(t *testing.T) {
	// No dropped streams here: without usage, a stream that breaks never says how many
	// tokens its multi-token chunks carried (TestMessyStreamUsage covers drops).
	fs, c, w := messyCell(t, 0, false)
	if c.Errors == 0 {
		t.Errorf("no request errors recorded, want the 503s and dropped streams")
	}
	// Chunks carry 3 tokens each and no usage: the client counts chunks, then corrects
	// each finished request from its final usage.
	truthTokS, truthGap := fs.truth(w, c.PromptTokens)
	t.Logf("messy: %.1f tok/s (server %.1f), TBT %.2f (server %.2f), errors %d, avg active %.2f", c.TotalTokS, truthTokS, c.TBTMs, truthGap, c.Errors, c.AvgActiveRequests)
	// Finished requests are corrected from their usage; the few cancelled at the window
	// edges are counted by chunk, so allow a few %.
	within(t, "messy total tok/s vs server", c.TotalTokS, truthTokS, 0.08)
}

// TestMessyStreamUsage: with usage in every chunk, multi-token chunks are counted exactly
// and each contributes k gaps of gap/k.
func TestMessyStreamUsage(t *testing.T) {
	fs, c, w := messyCell(t, 30, true)
	// Three tokens a chunk: a chunk whose moment the server's clock leaves open at a
	// window's edge moves three tokens at once, so the client is held to the bracket
	// the server's own timestamps allow (on an idle machine, the truth itself).
	lo, hi := fs.truthRange(w, c.PromptTokens)
	if c.TotalTokS < lo*0.98 || c.TotalTokS > hi*1.02 {
		t.Errorf("total tok/s %.3f, the server sent %.3f–%.3f (± 2%%)", c.TotalTokS, lo, hi)
	}
	t.Logf("total tok/s %.3f; the server sent %.3f–%.3f", c.TotalTokS, lo, hi)
	// 3 tokens every 60 ms: each gap of 60 ms counts as 3 gaps of 20 ms. Held to what
	// the server's own clock says it sent (20 ms on an idle machine; a stalled server
	// catches up faster), and that to the nominal 20 ms loosely, so a wrong count per
	// chunk (a factor of 3) still fails.
	serverTPOT := fs.truthTPOT(w, c.PromptTokens)
	t.Logf("TBT %.2f ms; the server's emits give %.2f ms", c.TBTMs, serverTPOT)
	within(t, "TBT of 3-token chunks vs the server's emits", c.TBTMs, serverTPOT, 0.05)
	within(t, "TBT of 3-token chunks vs the nominal 20 ms", c.TBTMs, 20, 0.25)
	if c.Errors == 0 {
		t.Error("want errors recorded")
	}
}

// TestInterruptAndResume: a cancelled run leaves a complete, valid document with the cell
// in progress marked interrupted; resuming finishes it without redoing finished cells.
func TestInterruptAndResume(t *testing.T) {
	fs := newFakeServer()
	srv := fs.start(t)
	path := filepath.Join(t.TempDir(), "run.json")
	doc := newTestRun([]int{0}, []int{1, 2, 4}, nil, 1500*time.Millisecond, 1000)
	Plan(doc, rundoc.Limits{})
	ctx, cancel := context.WithCancel(context.Background())
	r := &Runner{Server: newTestServer(srv, prompt.Chat, 4), Opts: measure.Options{
		Nonce:      "i",
		Checkpoint: func(d *rundoc.Run) error { return rundoc.WriteFile(path, d) },
	}}
	// Cancel during the second cell.
	r.Opts.Progress = &cancelAt{desc: "decode 0 × 2", after: 500 * time.Millisecond, cancel: cancel}
	err := r.Run(ctx, doc)
	if err != measure.ErrInterrupted {
		t.Fatalf("Run returned %v, want measure.ErrInterrupted", err)
	}
	saved, err := rundoc.ReadFile(path)
	if err != nil {
		t.Fatalf("the checkpoint is not a valid run document: %v", err)
	}
	got := []rundoc.Status{saved.Decode[0].Status, saved.Decode[1].Status, saved.Decode[2].Status}
	want := []rundoc.Status{rundoc.StatusValid, rundoc.StatusInterrupted, rundoc.StatusPending}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("statuses after interrupt = %v, want %v", got, want)
		}
	}
	firstCell := *saved.Decode[0].DecodeFigures

	fs.mu.Lock()
	before := len(fs.requests)
	fs.mu.Unlock()
	_ = before
	r2 := &Runner{Server: newTestServer(srv, prompt.Chat, 4), Opts: measure.Options{Nonce: "i2",
		Checkpoint: func(d *rundoc.Run) error { return rundoc.WriteFile(path, d) }}}
	if err := r2.Run(context.Background(), saved); err != nil {
		t.Fatal(err)
	}
	final, _ := rundoc.ReadFile(path)
	for _, c := range final.Decode {
		if c.Status != rundoc.StatusValid {
			t.Errorf("after resume: %d×%d is %s (%s)", c.Context, c.Concurrency, c.Status, c.Reason)
		}
	}
	if *final.Decode[0].DecodeFigures != firstCell {
		t.Error("resume redid a finished cell")
	}
	// The resumed run sent only the two unfinished cells' requests: at most 2 + 4
	// first-wave streams plus their replacements, never the finished 1-stream cell's.
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if len(fs.requests) == before {
		t.Error("resume sent nothing")
	}
}

// lineLog keeps the lines a run logs above its progress display.
type lineLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *lineLog) Step(string, int, int, time.Duration) {}
func (l *lineLog) Tokens(int)                           {}
func (l *lineLog) Log(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
}

// find is the first line that starts with prefix, or "".
func (l *lineLog) find(prefix string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.lines {
		if strings.HasPrefix(s, prefix) {
			return s
		}
	}
	return ""
}

// cancelAt cancels the run a moment after a given step starts.
type cancelAt struct {
	desc   string
	after  time.Duration
	cancel context.CancelFunc
}

func (c *cancelAt) Step(desc string, done, total int, expect time.Duration) {
	if desc == c.desc {
		time.AfterFunc(c.after, c.cancel)
	}
}
func (c *cancelAt) Tokens(int) {}
func (c *cancelAt) Log(string) {}

// TestUnreachableServer: against a dead server the stream check fails on every try,
// so the run stops with the reason and measures nothing: every cell stays pending for
// --resume, and the document's notes say why.
func TestUnreachableServer(t *testing.T) {
	fs := newFakeServer()
	srv := fs.start(t)
	s := newTestServer(srv, prompt.Chat, 2)
	srv.Close()
	doc := newTestRun([]int{0}, []int{1}, nil, time.Second, 100)
	Plan(doc, rundoc.Limits{})
	r := &Runner{Server: s, Opts: measure.Options{Nonce: "d", Retry: &measure.RetryPolicy{Base: 50 * time.Millisecond, Max: 200 * time.Millisecond, Budget: time.Second}}}
	err := r.Run(context.Background(), doc)
	if !errors.Is(err, measure.ErrCannotGenerate) || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("run against a dead server: %v, want measure.ErrCannotGenerate with the server's answer", err)
	}
	if c := doc.Decode[0]; c.Status != rundoc.StatusPending {
		t.Errorf("cell: %s %q, want pending (nothing was measured)", c.Status, c.Reason)
	}
	if !slices.ContainsFunc(doc.Notes, func(n string) bool { return strings.Contains(n, "stopped before measuring") }) {
		t.Errorf("notes %q do not say the run stopped before measuring", doc.Notes)
	}
}

// TestUsageCalibration: a server with no tokenize route still gets prompts within 1% of
// their target, sized from usage.prompt_tokens of small requests and corrected by the
// cold request's own count.
func TestUsageCalibration(t *testing.T) {
	fs := newFakeServer()
	srv := fs.start(t)
	s := newTestServer(srv, prompt.Chat, 2)
	s.Counter = &prompt.UsageCounter{Client: s.Client, Model: "fake"}
	s.Exact = false
	doc := newTestRun([]int{4096}, []int{1}, []int{4096, 8192}, time.Second, 64)
	Plan(doc, rundoc.Limits{})
	r := &Runner{Server: s, Opts: measure.Options{Nonce: "c"}}
	if err := r.Run(context.Background(), doc); err != nil {
		t.Fatal(err)
	}
	for _, p := range doc.Prefill {
		if p.Status != rundoc.StatusValid {
			t.Errorf("prefill %d: %s %s", p.Context, p.Status, p.Reason)
			continue
		}
		if measure.RelDiff(p.PromptTokens, p.Context) > 0.01 {
			t.Errorf("prefill %d: %d prompt tokens, more than 1%% off", p.Context, p.PromptTokens)
		}
	}
	if c := doc.Decode[0]; c.Status != rundoc.StatusValid {
		t.Errorf("cell: %s %s", c.Status, c.Reason)
	}
}

// TestInterruptDuringPrefill: Ctrl-C during a cold prefill request marks that row
// interrupted (not pending, not failed), and the cells stay pending for --resume.
func TestInterruptDuringPrefill(t *testing.T) {
	fs := newFakeServer()
	fs.prefillRate = 2000 // 4K tokens take 2 s
	srv := fs.start(t)
	doc := newTestRun([]int{4096}, []int{1}, []int{4096}, time.Second, 64)
	Plan(doc, rundoc.Limits{})
	ctx, cancel := context.WithCancel(context.Background())
	r := &Runner{Server: newTestServer(srv, prompt.Chat, 2), Opts: measure.Options{Nonce: "ip",
		Progress: &cancelAt{desc: "prefill 4K", after: 300 * time.Millisecond, cancel: cancel}}}
	if err := r.Run(ctx, doc); err != measure.ErrInterrupted {
		t.Fatalf("Run returned %v, want measure.ErrInterrupted", err)
	}
	if p := doc.Prefill[0]; p.Status != rundoc.StatusInterrupted {
		t.Errorf("prefill row: %s (%s), want interrupted", p.Status, p.Reason)
	}
	if c := doc.Decode[0]; c.Status != rundoc.StatusPending {
		t.Errorf("cell: %s, want pending", c.Status)
	}
}
