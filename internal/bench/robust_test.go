package bench

import (
	"bufio"
	"bytes"
	stdcmp "cmp"
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/replay"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// startReplay serves cfg (vLLM's discovery-free shape by default) and returns the
// server and the measure.Server that measures it.
func startReplay(t *testing.T, cfg replay.Config) (*replay.Server, *measure.Server) {
	t.Helper()
	cfg.Shape, cfg.Tokenize, cfg.ChatOverhead = stdcmp.Or(cfg.Shape, "vllm-continuous-usage"), stdcmp.Or(cfg.Tokenize, "vllm"), stdcmp.Or(cfg.ChatOverhead, 3)
	rs, err := replay.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rs.Close)
	client := openai.NewClient(rs.URL+"/v1", "", 16)
	tc := &prompt.TokenizeCounter{Client: client, URL: rs.URL + "/tokenize"}
	return rs, &measure.Server{Client: client, Model: "replay", API: prompt.Chat, IgnoreEOS: true, IgnoreEOSKnown: true,
		ContinuousUsage: true, Counter: tc, Exact: true, TextTokenizer: tc}
}

// fastRetry keeps tests short: the policy's shape with small numbers.
var fastRetry = measure.RetryPolicy{Base: 50 * time.Millisecond, Max: 500 * time.Millisecond, MaxRetryAfter: 5 * time.Second, Budget: 2 * time.Second}

// rescoreMatches re-scores an events log and compares every prefill row and cell with
// the document, field by field.
func rescoreMatches(t *testing.T, events []byte, doc *rundoc.Run) {
	t.Helper()
	all, err := RescoreAll(bytes.NewReader(events))
	if err != nil {
		t.Fatal(err)
	}
	measured := 0
	for _, c := range doc.Decode {
		if c.Status == rundoc.StatusOverCapacity {
			continue
		}
		measured++
	}
	if len(all.Decode) != measured {
		t.Fatalf("re-scored %d cells, the document measured %d", len(all.Decode), measured)
	}
	for _, c := range all.Decode {
		if diff := cmp.Diff(*doc.Cell(c.Context, c.Concurrency), c); diff != "" {
			t.Errorf("cell %d×%d: document (-) and re-score (+) differ:\n%s", c.Context, c.Concurrency, diff)
		}
	}
	for _, p := range all.Prefill {
		for _, d := range doc.Prefill {
			if d.Context == p.Context {
				if diff := cmp.Diff(d, p); diff != "" {
					t.Errorf("prefill %d: document (-) and re-score (+) differ:\n%s", p.Context, diff)
				}
			}
		}
	}
}

// TestRescoreAgrees: the document and a re-score of the events log agree on every
// field of every cell, on the three paths a count can take: exact per-chunk counts,
// counts estimated from finished requests, and a cell measured twice across a resume
// with the events log appended.
func TestRescoreAgrees(t *testing.T) {
	t.Run("exact", func(t *testing.T) {
		_, srv := startReplay(t, replay.Config{})
		doc := newTestRun([]int{0, 512}, []int{1, 3}, []int{512}, time.Second, 4096)
		Plan(doc, rundoc.Limits{})
		// A ceiling far below the cells' rates: every cell is flagged, live and re-scored.
		doc.Client = &rundoc.Client{CeilingTokS: openai.Ptr(2.0), Cores: 1}
		var events bytes.Buffer
		r := &Runner{Server: srv, Opts: measure.Options{Nonce: "e", Events: measure.NewEventLog(&events)}}
		if err := r.Run(context.Background(), doc); err != nil {
			t.Fatal(err)
		}
		r.Opts.Events.Flush()
		for _, c := range doc.Decode {
			if c.Status != rundoc.StatusValid || c.TokenCountSource != rundoc.CountServerPerChunk {
				t.Errorf("%d×%d: %s %s (%s)", c.Context, c.Concurrency, c.Status, c.Reason, c.TokenCountSource)
			}
			if !contains(c.Flags, "client_near_ceiling") || c.ClientCPUS == nil {
				t.Errorf("%d×%d at %.1f tok/s, ceiling 2: flags %v, client_cpu_s %v", c.Context, c.Concurrency, c.TotalTokS, c.Flags, c.ClientCPUS)
			}
		}
		rescoreMatches(t, events.Bytes(), doc)
	})
	t.Run("estimated", func(t *testing.T) {
		_, srv := startReplay(t, replay.Config{Shape: "vllm-no-continuous-usage", TokensPerStep: []int{3}, Step: 30 * time.Millisecond})
		srv.TextTokenizer = nil // counted from finished requests' ratio only
		doc := newTestRun([]int{0}, []int{3}, nil, 2*time.Second, 100)
		Plan(doc, rundoc.Limits{})
		var events bytes.Buffer
		r := &Runner{Server: srv, Opts: measure.Options{Nonce: "s", Events: measure.NewEventLog(&events)}}
		if err := r.Run(context.Background(), doc); err != nil {
			t.Fatal(err)
		}
		r.Opts.Events.Flush()
		c := doc.Decode[0]
		if c.TokenCountSource != rundoc.CountFinishedRatio || !contains(c.Flags, "token_counts_estimated") {
			t.Errorf("cell: source %s flags %v, want the finished requests' ratio", c.TokenCountSource, c.Flags)
		}
		rescoreMatches(t, events.Bytes(), doc)
	})
	t.Run("resumed", func(t *testing.T) {
		_, srv := startReplay(t, replay.Config{})
		doc := newTestRun([]int{0}, []int{1, 2}, nil, 1500*time.Millisecond, 4096)
		Plan(doc, rundoc.Limits{})
		var events bytes.Buffer
		log := measure.NewEventLog(&events)
		ctx, cancel := context.WithCancel(context.Background())
		r := &Runner{Server: srv, Opts: measure.Options{Nonce: "r1", Events: log, Progress: &cancelAt{desc: "decode 0 × 2", after: 700 * time.Millisecond, cancel: cancel}}}
		if err := r.Run(ctx, doc); !errors.Is(err, measure.ErrInterrupted) {
			t.Fatalf("first attempt: %v, want interrupted", err)
		}
		r2 := &Runner{Server: srv, Opts: measure.Options{Nonce: "r2", Events: log}}
		if err := r2.Run(context.Background(), doc); err != nil {
			t.Fatal(err)
		}
		log.Flush()
		for _, c := range doc.Decode {
			if c.Status != rundoc.StatusValid {
				t.Errorf("%d×%d: %s %s", c.Context, c.Concurrency, c.Status, c.Reason)
			}
		}
		rescoreMatches(t, events.Bytes(), doc)
	})
}

// TestRetryAfterHonoured: a server that answers 503 with Retry-After gets that long
// between a stream's tries, and the cell measures once it recovers.
func TestRetryAfterHonoured(t *testing.T) {
	// The run's stream check passes (a server failing it on every try stops the run:
	// TestUnreachableServer), then two 503s for the cell's stream.
	rs, srv := startReplay(t, replay.Config{Failures: []replay.Failure{{Phase: "decode", After: 1, Every: 1, Limit: 2, Status: 503, RetryAfter: "1",
		Body: `{"error":{"message":"Service Unavailable","code":503}}`}}})
	doc := newTestRun([]int{0}, []int{1}, nil, time.Second, 4096)
	Plan(doc, rundoc.Limits{})
	r := &Runner{Server: srv, Opts: measure.Options{Nonce: "ra", Retry: &fastRetry}}
	if err := r.Run(context.Background(), doc); err != nil {
		t.Fatal(err)
	}
	if c := doc.Decode[0]; c.Status != rundoc.StatusValid || c.Outcomes["retryable"] != 2 {
		t.Errorf("cell: %s %s, outcomes %v; want valid after 2 retryable failures", c.Status, c.Reason, c.Outcomes)
	}
	var decode []*replay.Record
	for _, rec := range rs.Log() {
		if rec.MaxTokens > 16 {
			decode = append(decode, rec)
		}
	}
	if len(decode) < 3 {
		t.Fatalf("%d decode requests", len(decode))
	}
	for i := 1; i < 3; i++ {
		if gap := decode[i].Start.Sub(decode[i-1].Start); gap < 950*time.Millisecond {
			t.Errorf("try %d came %v after a 503 with Retry-After: 1", i+1, gap)
		}
	}
}

// TestWarmupRetries: a 503 on the cold request is retried (cold again), and the row
// and its cells measure.
func TestWarmupRetries(t *testing.T) {
	_, srv := startReplay(t, replay.Config{Failures: []replay.Failure{{Phase: "warmup", Every: 1, Limit: 1, Status: 503, RetryAfter: "0.2",
		Body: `{"error":{"message":"Service Unavailable"}}`}}})
	doc := newTestRun([]int{1024}, []int{1}, []int{1024}, time.Second, 4096)
	Plan(doc, rundoc.Limits{})
	r := &Runner{Server: srv, Opts: measure.Options{Nonce: "wr", Retry: &fastRetry}}
	if err := r.Run(context.Background(), doc); err != nil {
		t.Fatal(err)
	}
	if p := doc.Prefill[0]; p.Status != rundoc.StatusValid || p.Attempts != 2 {
		t.Errorf("prefill: %s %s, %d attempts; want valid on the second", p.Status, p.Reason, p.Attempts)
	}
	if c := doc.Decode[0]; c.Status != rundoc.StatusValid {
		t.Errorf("cell: %s %s", c.Status, c.Reason)
	}
}

// TestFailingServerBounded: against a server whose every decode request ends at once
// without a finish_reason, each stream backs off, the cell gives up after the retry
// budget with the reason, and the request rate stays bounded.
func TestFailingServerBounded(t *testing.T) {
	// The stream check passes; every decode request after it fails.
	rs, srv := startReplay(t, replay.Config{Failures: []replay.Failure{{Phase: "decode", After: 1, Every: 1, ContentType: "text/event-stream", Body: "data: [DONE]\n\n"}}})
	doc := newTestRun([]int{0}, []int{2}, nil, time.Second, 4096)
	Plan(doc, rundoc.Limits{})
	start := time.Now()
	r := &Runner{Server: srv, Opts: measure.Options{Nonce: "fb", Retry: &fastRetry}}
	if err := r.Run(context.Background(), doc); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	c := doc.Decode[0]
	if c.Status != rundoc.StatusFailed || !strings.Contains(c.Reason, "retry budget") || !strings.Contains(c.Reason, "without a finish_reason") {
		t.Errorf("cell: %s %q", c.Status, c.Reason)
	}
	decode := 0
	for _, rec := range rs.Log() {
		if rec.MaxTokens > 16 {
			decode++
		}
	}
	// 50, 100, 200, 400, 500, 500 … ms between tries: at most about 8 per stream in 2 s.
	if decode > 2*12 {
		t.Errorf("%d decode requests in %v from 2 streams: the rate against a failing server is not bounded", decode, elapsed)
	}
	t.Logf("%d requests in %v; reason: %s", decode, elapsed.Round(time.Millisecond), c.Reason)
}

// TestNotStreaming: a server that answers stream:true with one JSON body is found
// before any cell; nothing is measured and every measurement says why.
func TestNotStreaming(t *testing.T) {
	rs, srv := startReplay(t, replay.Config{IgnoreStream: true, Step: time.Millisecond})
	doc := newTestRun([]int{0, 512}, []int{1, 2}, []int{512}, time.Second, 64)
	Plan(doc, rundoc.Limits{})
	r := &Runner{Server: srv, Opts: measure.Options{Nonce: "ns"}}
	if err := r.Run(context.Background(), doc); !errors.Is(err, measure.ErrNotStreaming) {
		t.Fatalf("Run: %v, want measure.ErrNotStreaming", err)
	}
	for _, c := range doc.Decode {
		if c.Status != rundoc.StatusFailed || !strings.Contains(c.Reason, "does not stream") {
			t.Errorf("%d×%d: %s %q", c.Context, c.Concurrency, c.Status, c.Reason)
		}
	}
	if p := doc.Prefill[0]; p.Status != rundoc.StatusFailed {
		t.Errorf("prefill: %s", p.Status)
	}
	if n := len(rs.Log()); n > 2 {
		t.Errorf("%d requests sent to a server that does not stream, want the check alone", n)
	}
}

// TestDrainBeforeColdPrefill: after a cell, the server keeps aborting its streams for
// a while; the next measurement waits until its running gauge reads 0, so that the
// cold prefill measured after it is not slowed by them, and records the wait.
func TestDrainBeforeColdPrefill(t *testing.T) {
	rs, srv := startReplay(t, replay.Config{Metrics: true, Drain: time.Second, PrefillContention: 1, PrefillRate: 4000})
	doc := newTestRun([]int{0, 2048}, []int{4}, []int{2048}, time.Second, 4096)
	Plan(doc, rundoc.Limits{})
	r := &Runner{Server: srv, Opts: measure.Options{Nonce: "dr", Running: scrapeRunning(rs.URL)}}
	if err := r.Run(context.Background(), doc); err != nil {
		t.Fatal(err)
	}
	p := doc.Prefill[0]
	if p.Status != rundoc.StatusValid || p.SettleMs == nil || *p.SettleMs < 900 {
		t.Fatalf("prefill after a cell: %s %s, settle %v; want it to wait for the gauge", p.Status, p.Reason, p.SettleMs)
	}
	for _, rec := range rs.Log() {
		if rec.Cold && rec.Prompt > 2000 && rec.RunningAtStart != 0 {
			t.Errorf("the cold prefill started with %d requests still running on the server", rec.RunningAtStart)
		}
	}
	// 2,048 tokens at 4,000 tokens/s: 512 ms, and the client's view adds a round trip.
	if p.TTFTMs > 650 {
		t.Errorf("prefill TTFT %.0f ms, want the server's 512 ms", p.TTFTMs)
	}
	if c := doc.Cell(2048, 4); c.SettledBy != "" {
		t.Errorf("the first cell after a warm-up waited (%s)", c.SettledBy)
	}
}

// scrapeRunning reads vllm:num_requests_running from a Prometheus page.
func scrapeRunning(root string) func(context.Context) (float64, bool) {
	return func(ctx context.Context) (float64, bool) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, root+"/metrics", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, false
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "vllm:num_requests_running{") {
				f := strings.Fields(line)
				v, err := strconv.ParseFloat(f[len(f)-1], 64)
				return v, err == nil
			}
		}
		return 0, false
	}
}
