package openloop

import (
	"bytes"
	stdcmp "cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/bench/benchtest"
	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/measure/measuretest"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// timingTolerance is how far a client-side latency may sit from the server's exact
// timing: loopback, the SSE reader, and a loaded shared machine's scheduling. The
// errors actually seen are logged (go test -v -run Rate) for the note.
const timingTolerance = 8.0 // ms

// timingChecked says whether this test binary can hold a schedule: under the race
// detector the client itself runs late (and says so, client_lagged), so the tests
// still drive every path for the detector but check no timing.
func timingChecked(t *testing.T) bool {
	if raceEnabled {
		t.Log("race detector on: timing is not checked")
	}
	return !raceEnabled
}

// maxSendLag is the latest the client sent any request against when it could go.
func maxSendLag(events []Event) time.Duration {
	var worst time.Duration
	for _, ev := range events {
		if ev.Phase == "rate" && ev.Type == "request" && ev.Sent != 0 && ev.Slot != 0 {
			worst = max(worst, time.Duration(ev.Sent-ev.Slot))
		}
	}
	return worst
}

// rateRun is what one drive of a rate cell left: the events log, and each request's
// result by its prompt's key (to pair it with the server's own log).
type rateRun struct {
	events []Event
	sent   map[string]*openai.StreamResult
}

func newQueueTestServer(srv *httptest.Server) *measure.Server {
	return measuretest.Server(srv.URL, prompt.Chat, 256)
}

func newRateRun(cfg rundoc.RateConfig, duration time.Duration) *rundoc.Run {
	seed := int64(1)
	cfg.Arrival, cfg.LenDist, cfg.DrainTimeoutS = stdcmp.Or(cfg.Arrival, "constant"), stdcmp.Or(cfg.LenDist, "fixed"), stdcmp.Or(cfg.DrainTimeoutS, 30)
	doc := &rundoc.Run{SchemaVersion: rundoc.SchemaVersion, ID: "rate-test",
		Config: rundoc.Config{DurationS: duration.Seconds(), API: "chat", Seed: &seed, Rate: &cfg, DecodeTest: "request-rate"}}
	PlanRates(doc)
	return doc
}

// runRateDoc runs an open-loop document against srv.
func runRateDoc(t *testing.T, srv *measure.Server, doc *rundoc.Run, mon func() measure.Monitor) rateRun {
	t.Helper()
	var buf bytes.Buffer
	var mu sync.Mutex
	out := rateRun{sent: map[string]*openai.StreamResult{}}
	r := &Runner{Server: srv, Opts: measure.Options{Events: measure.NewEventLog(&buf), NewMonitor: mon}}
	r.Send = func(ctx context.Context, p prompt.Payload, maxTokens int, obs openai.Observer) *openai.StreamResult {
		res := srv.Send(ctx, p, maxTokens, obs, false)
		if p.Messages != nil && maxTokens > 1 {
			mu.Lock()
			out.sent[promptKey(p.Messages[0].Content)] = res
			mu.Unlock()
		}
		return res
	}
	if err := r.Run(context.Background(), doc); err != nil {
		t.Fatal(err)
	}
	r.Opts.Events.Flush()
	dec := json.NewDecoder(&buf)
	for {
		var ev Event
		if dec.Decode(&ev) != nil {
			break
		}
		out.events = append(out.events, ev)
	}
	return out
}

// measuredTTFTs are the client's TTFTs (from the scheduled time) of one cell's
// requests, in schedule order, with their scheduled times.
func measuredTTFTs(events []Event, cell int) (ttft []float64, scheduled []time.Time) {
	for _, ev := range events {
		if ev.Phase == "rate" && ev.Type == "request" && ev.Cell == cell {
			scheduled = append(scheduled, time.Unix(0, ev.Scheduled))
			ttft = append(ttft, float64(ev.FirstToken-ev.Scheduled)/1e6)
		}
	}
	return ttft, scheduled
}

// errorStats compares measured values with truth: mean and largest |error|, in ms.
func errorStats(measured, truth []float64) (mean, worst float64) {
	for i := range measured {
		e := math.Abs(measured[i] - truth[i])
		mean += e
		worst = max(worst, e)
	}
	return mean / float64(len(measured)), worst
}

// TestRateCellAgainstExactTiming: 80 requests at a constant 40/s, every fourth with a
// 200 ms TTFT and the rest 50 ms, then 10 tokens 10 ms apart. Every request's TTFT is
// checked against the server's own log of when it flushed the first token, and every
// figure of the cell against the hand-computed truth.
func TestRateCellAgainstExactTiming(t *testing.T) {
	var doc *rundoc.Run
	ttftTarget, tpotTarget := 100.0, 20.0
	attempt := func() (*queueServer, rateRun) {
		q := &queueServer{interval: 10 * time.Millisecond, ttft: func(n int) time.Duration {
			if n%4 == 0 {
				return 200 * time.Millisecond
			}
			return 50 * time.Millisecond
		}}
		srv := newQueueTestServer(q.start(t))
		doc = newRateRun(rundoc.RateConfig{Rates: []rundoc.Rate{40}, InputLen: 64, OutputLen: 10,
			SLO: &rundoc.SLO{TTFTMs: &ttftTarget, TPOTMs: &tpotTarget, Target: 0.95}}, 2*time.Second)
		return q, runRateDoc(t, srv, doc, nil)
	}
	if raceEnabled {
		t.Skip("race detector on: the in-process server cannot keep 10 ms token gaps, so the hand-computed timing is not checked")
	}
	if _, _, onTime := onSchedule(t, attempt); !onTime {
		t.Skip("the machine was too loaded for the client to hold the schedule in 3 attempts: the hand-computed figures are not checked")
	}
	c := doc.Rate[0]
	if c.Status != rundoc.StatusValid || c.RateFigures == nil {
		t.Fatalf("cell %s: %s", c.Status, c.Reason)
	}
	f := c.RateFigures
	if f.Requests != 80 || f.CompletedRequests != 80 {
		t.Fatalf("%d requests, %d completed; want 80, 80", f.Requests, f.CompletedRequests)
	}
	t.Logf("figures vs hand-computed truth: TTFT p50 %.2f (50) p90 %.2f (200) mean %.2f (87.5) stdev %.2f (65.36); TPOT p50 %.2f (10); ITL p50 %.2f (10); E2E p50 %.2f (140) p90 %.2f (290); achieved %.3f (35.32); goodput %.3f (26.49); SLO met %.4f (0.75); client send lag p50 %.3f ms",
		*f.TTFTMs.P50, *f.TTFTMs.P90, *f.TTFTMs.Mean, *f.TTFTMs.Stdev, *f.TPOTMs.P50, *f.ITLMs.P50, *f.E2EMs.P50, *f.E2EMs.P90, *f.AchievedRPS, *f.GoodputRPS, *f.SLOMetRatio, *f.ClientSendLagMs.P50)
	// TTFT: 60 × 50 ms and 20 × 200 ms. p50 50, p90 (rank 71.1 of 0..79) 200, p99
	// null (80 < 662 samples), mean 7000 / 80 = 87.5, stdev √((60·37.5² + 20·112.5²) / 79) = 65.36.
	benchtest.Near(t, "ttft p50", f.TTFTMs.P50, 50, timingTolerance)
	benchtest.Near(t, "ttft p90", f.TTFTMs.P90, 200, timingTolerance)
	benchtest.Near(t, "ttft mean", f.TTFTMs.Mean, 87.5, timingTolerance)
	benchtest.Near(t, "ttft stdev", f.TTFTMs.Stdev, 65.36, 2)
	if f.TTFTMs.P99 != nil {
		t.Errorf("ttft p99 %v from 80 samples", *f.TTFTMs.P99)
	}
	// TPOT = (e2e − ttft) / 9 = 90 / 9 = 10 ms; ITL 10 ms over 720 gaps (p99 allowed);
	// E2E = TTFT + 90: p50 140, p90 290.
	benchtest.Near(t, "tpot p50", f.TPOTMs.P50, 10, 1)
	benchtest.Near(t, "tpot mean", f.TPOTMs.Mean, 10, 1)
	benchtest.Near(t, "itl p50", f.ITLMs.P50, 10, 1)
	if f.ITLMs.Samples != 720 || f.ITLMs.P99 == nil {
		t.Errorf("itl: %d samples, p99 %v; want 720 and a p99", f.ITLMs.Samples, f.ITLMs.P99)
	}
	benchtest.Near(t, "e2e p50", f.E2EMs.P50, 140, timingTolerance)
	benchtest.Near(t, "e2e p90", f.E2EMs.P90, 290, timingTolerance)
	// Rates: offered 79 / 1.975 s = 40; the cell lasts until request 80 (slow) ends,
	// 1.975 + 0.29 = 2.265 s: achieved 80 / 2.265 = 35.32/s.
	benchtest.Near(t, "offered", f.OfferedRPS, 40, 0.01)
	benchtest.Near(t, "duration", &f.DurationS, 2.265, 0.01)
	benchtest.Near(t, "achieved", f.AchievedRPS, 35.32, 0.2)
	// SLO: the 20 slow requests miss TTFT ≤ 100 ms: 60 / 80 = 0.75; goodput 60 / 2.265 = 26.49/s.
	benchtest.Near(t, "slo_met_ratio", f.SLOMetRatio, 0.75, 0)
	benchtest.Near(t, "goodput", f.GoodputRPS, 26.49, 0.15)
	// 800 tokens / 2.265 s = 353.2 tok/s; per request 1000 / TPOT 10 ms = 100.
	benchtest.Near(t, "total tok/s", &f.TotalTokS, 353.2, 2)
	benchtest.Near(t, "per-request tok/s", f.PerRequestTokS, 100, 5)
	if f.MeetsSLO == nil || *f.MeetsSLO {
		t.Error("0.75 of requests met the SLO, target 0.95: the cell must not meet it")
	}
	if c.Saturated() {
		t.Errorf("an unloaded server flagged saturated: %v", f.Saturation)
	}
	if f.OutputTokens != 800 || f.ServerOutputTokens == nil || *f.ServerOutputTokens != 800 {
		t.Errorf("output tokens %d (server %v), want 800", f.OutputTokens, f.ServerOutputTokens)
	}
	if f.PromptTokensMean != 64 {
		t.Errorf("prompts averaged %.1f tokens, want 64", f.PromptTokensMean)
	}
}

// ddc is the hand-computable truth of a first-come-first-served queue with c slots:
// requests arrive at the given times (ms) and hold a slot for hold ms; it returns each
// request's start and completion.
func ddc(arrivals []float64, c int, hold float64) (start, done []float64) {
	free := make([]float64, c)
	for _, a := range arrivals {
		k := slices.Index(free, slices.Min(free))
		s := math.Max(a, free[k])
		free[k] = s + hold
		start, done = append(start, s), append(done, s+hold)
	}
	return start, done
}

// waitingMonitor reads the queue server's waiting gauge, as engine.Sampler reads an
// engine's.
type waitingMonitor struct {
	url    string
	mu     sync.Mutex
	seen   []float64
	cancel context.CancelFunc
	done   chan struct{}
}

func (m *waitingMonitor) Start(ctx context.Context, interval time.Duration) {
	ctx, m.cancel = context.WithCancel(ctx)
	m.done = make(chan struct{})
	go func() {
		defer close(m.done)
		for {
			if resp, err := http.Get(m.url); err == nil {
				var b bytes.Buffer
				b.ReadFrom(resp.Body)
				resp.Body.Close()
				f := strings.Fields(b.String())
				if v, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil {
					m.mu.Lock()
					m.seen = append(m.seen, v)
					m.mu.Unlock()
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(interval):
			}
		}
	}()
}

func (m *waitingMonitor) Stop() *rundoc.ServerMetrics {
	m.cancel()
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.seen) == 0 {
		return nil
	}
	mm := &rundoc.MinMean{Min: slices.Min(m.seen), Max: slices.Max(m.seen)}
	for _, v := range m.seen {
		mm.Mean += v / float64(len(m.seen))
	}
	return &rundoc.ServerMetrics{Samples: len(m.seen), Waiting: mm}
}

// twoSlotTruth is the hand-computed queue of the saturation tests: 60 requests 25 ms
// apart, two slots, each request holding one for 110 ms and getting its first token
// 20 ms into it. It returns each request's TTFT from its arrival and its completion.
func twoSlotTruth() (ttft, done []float64) {
	var arrivals []float64
	for i := range 60 {
		arrivals = append(arrivals, float64(i)*25)
	}
	start, done := ddc(arrivals, 2, 110)
	for i := range start {
		ttft = append(ttft, start[i]+20-arrivals[i])
	}
	return ttft, done
}

// checkAgainstQueue compares measured TTFTs (schedule order) with the hand-computed
// queue: never below it (a wait is never hidden), and on average within share of it
// (the real hand-overs of a slot cost a little more than the ideal queue's).
func checkAgainstQueue(t *testing.T, measured, truth []float64, share float64) {
	t.Helper()
	mean, worst := errorStats(measured, truth)
	meanTruth := 0.0
	for i := range truth {
		meanTruth += truth[i] / float64(len(truth))
		if measured[i] < truth[i]-timingTolerance {
			t.Errorf("request %d: TTFT %.1f ms, below the hand-computed queue's %.1f: a wait was hidden", i, measured[i], truth[i])
		}
	}
	t.Logf("TTFT vs the hand-computed queue (%.0f → %.0f ms): mean error %.3f ms, max %.3f ms", truth[0], truth[len(truth)-1], mean, worst)
	if mean > timingTolerance && mean > share*meanTruth {
		t.Errorf("TTFTs are %.1f ms off the hand-computed queue on average (its mean %.1f ms)", mean, meanTruth)
	}
}

// TestRateSaturationTimedFromSchedule: a server that runs two requests at once, each
// for 110 ms (capacity 18.2/s), under 40 requests/s. The queue grows, and every TTFT
// — timed from the scheduled send — follows the hand-computed queue: request i waits
// for a slot, so its TTFT is its start + 20 ms − its arrival. The cell is flagged
// saturated with the evidence.
func TestRateSaturationTimedFromSchedule(t *testing.T) {
	var doc *rundoc.Run
	attempt := func() (*queueServer, rateRun) {
		q := &queueServer{slots: 2, interval: 10 * time.Millisecond, ttft: func(int) time.Duration { return 20 * time.Millisecond }}
		hs := q.start(t)
		doc = newRateRun(rundoc.RateConfig{Rates: []rundoc.Rate{40}, InputLen: 32, OutputLen: 10}, 1500*time.Millisecond)
		return q, runRateDoc(t, newQueueTestServer(hs), doc, func() measure.Monitor { return &waitingMonitor{url: hs.URL + "/metrics"} })
	}
	var run rateRun
	onTime := false
	if timingChecked(t) {
		_, run, onTime = onSchedule(t, attempt)
	} else {
		_, run = attempt()
	}
	c := doc.Rate[0]
	f := c.RateFigures
	if f == nil || f.Requests != 60 || f.CompletedRequests != 60 {
		t.Fatalf("cell %s %s: %+v", c.Status, c.Reason, f)
	}
	// Whether or not the client held the schedule, the queue grew and the cell says so.
	if !c.Saturated() || !slices.Contains(f.Flags, "saturated") {
		t.Fatalf("a growing queue was not flagged saturated: %+v", f)
	}
	if !onTime {
		t.Skip("the client did not hold the schedule (race detector on, or a loaded machine): the queue's hand-computed TTFTs are not checked")
	}
	truth, done := twoSlotTruth()
	measured, _ := measuredTTFTs(run.events, 1)
	// Once requests queue, their slot times follow from the schedule alone.
	checkAgainstQueue(t, measured, truth, 0.02)
	// The last request waited ~1.7 s, far more than the 20 ms of service.
	if truth[59] < 1000 || measured[59] < 1000 {
		t.Fatalf("the queue did not grow as computed: truth %.0f, measured %.0f", truth[59], measured[59])
	}
	var rose, waiting, slow bool
	for _, e := range f.Saturation {
		rose = rose || strings.HasPrefix(e, "TTFT rose")
		waiting = waiting || strings.Contains(e, "waiting gauge")
		slow = slow || strings.HasPrefix(e, "requests completed at")
	}
	if !rose || !waiting || !slow {
		t.Errorf("saturation evidence %q: want the TTFT rise, the waiting gauge and the completion rate", f.Saturation)
	}
	// Completions at the queue's pace: 60 requests by the last one's end.
	benchtest.Near(t, "achieved", f.AchievedRPS, 60/(done[59]/1000), 0.2)
}

// TestMaxConcurrencyWaitIsLatency: the same queue, but in the client: an unlimited
// server, and --max-concurrency 2. The time a request waited for a client slot is in
// its TTFT — what a closed-loop harness timing from the actual send would hide
// (coordinated omission) — and the cell says so.
func TestMaxConcurrencyWaitIsLatency(t *testing.T) {
	var doc *rundoc.Run
	attempt := func() (*queueServer, rateRun) {
		q := &queueServer{interval: 10 * time.Millisecond, ttft: func(int) time.Duration { return 20 * time.Millisecond }}
		doc = newRateRun(rundoc.RateConfig{Rates: []rundoc.Rate{40}, InputLen: 32, OutputLen: 10, MaxConcurrency: 2}, 1500*time.Millisecond)
		return q, runRateDoc(t, newQueueTestServer(q.start(t)), doc, nil)
	}
	var run rateRun
	var q *queueServer
	onTime := false
	if timingChecked(t) {
		q, run, onTime = onSchedule(t, attempt)
	} else {
		q, run = attempt()
	}
	f := doc.Rate[0].RateFigures
	if f == nil || f.MaxConcurrency != 2 || f.SlotWaitMs == nil || !slices.Contains(f.Flags, "slot_wait") {
		t.Fatalf("the cell does not say requests waited for a client slot: %+v", f)
	}
	if f.CompletedRequests != 60 {
		t.Fatalf("%d of 60 requests completed (%d failed: %v, %d unfinished)", f.CompletedRequests, f.FailedRequests, f.ErrorSamples, f.UnfinishedRequests)
	}
	if raceEnabled {
		t.Skip("race detector on: the slot wait's size is timing, not checked")
	}
	// Timed from the actual send, every TTFT would be ~20 ms: the server never queued.
	if f.TTFTMs.P50 == nil || *f.TTFTMs.P50 < 10*20 {
		t.Errorf("TTFT p50 %v: the slot wait is not in the latency", f.TTFTMs.P50)
	}
	if !doc.Rate[0].Saturated() {
		t.Error("a client-side queue that grows was not flagged saturated")
	}
	if !onTime {
		t.Skip("the client did not hold the schedule on this loaded machine: the ideal queue is not checked")
	}
	// The ideal queue assumes every request took the server 110 ms; here the next
	// request's slot frees when the last one really ended, so a server goroutine
	// that a loaded machine stalled moves every later request.
	for _, s := range q.byArrival() {
		if took := s.emits[len(s.emits)-1].Sub(s.start); took > 115*time.Millisecond {
			t.Skipf("the server took %s over a 110 ms request (a loaded machine): the ideal queue is not checked", took)
		}
	}
	// Each hand-over of a client slot costs a loopback round trip and a timer's slack
	// that the ideal queue does not have, 30 in a row per slot here.
	truth, _ := twoSlotTruth()
	measured, _ := measuredTTFTs(run.events, 1)
	checkAgainstQueue(t, measured, truth, 0.1)
}

// TestFindMaxRateFindsCapacity: two slots of 110 ms serve 18.2 requests/s. The search
// (start 4, doubling, then bisection to 10%) must end with the capacity inside its
// bracket, the bracket one step wide, and stop doubling at the first saturated cell.
func TestFindMaxRateFindsCapacity(t *testing.T) {
	if raceEnabled {
		t.Skip("a search over rates is all timing: not checked under the race detector")
	}
	ttftTarget := 100.0
	var doc *rundoc.Run
	// A cell the loaded machine made the client late for is invalid (client_lagged)
	// and counts as a failure, which would lower the answer: such a search is run
	// again, at most three times.
	for try := 1; ; try++ {
		q := &queueServer{slots: 2, interval: 10 * time.Millisecond, ttft: func(int) time.Duration { return 20 * time.Millisecond }}
		doc = newRateRun(rundoc.RateConfig{InputLen: 32, OutputLen: 10, DrainTimeoutS: 5,
			SLO:    &rundoc.SLO{TTFTMs: &ttftTarget, Target: 0.95},
			Search: &rundoc.RateSearch{Start: 4, MaxSteps: 8, Precision: 0.1}}, 1500*time.Millisecond)
		runRateDoc(t, newQueueTestServer(q.start(t)), doc, nil)
		lagged := slices.ContainsFunc(doc.Rate, func(c rundoc.RateCell) bool {
			return c.RateFigures != nil && slices.Contains(c.Flags, "client_lagged")
		})
		if !lagged {
			break
		}
		t.Logf("search %d: a cell's client lagged (a loaded machine)", try)
		if try == 3 {
			t.Skip("the machine was too loaded for three searches: every one had a cell the client was late for (client_lagged)")
		}
	}
	out := doc.MaxRate
	if out == nil || out.MaxRateRPS == nil || out.FailedRPS == nil {
		t.Fatalf("search outcome %+v", out)
	}
	var tried []string
	for _, c := range doc.Rate {
		tried = append(tried, fmt.Sprintf("%s:%v/%v", c.RateRPS, c.Passes(), c.Saturated()))
	}
	capacity := 2 / 0.110
	t.Logf("tried %v → max %.2f, failed %.2f (capacity %.2f), stop %s", tried, *out.MaxRateRPS, *out.FailedRPS, capacity, out.Stop)
	step := *out.FailedRPS - *out.MaxRateRPS
	if step <= 0 || step > 0.1**out.MaxRateRPS+1e-9 && out.Stop == "precision" {
		t.Errorf("bracket %.2f–%.2f is not within the 10%% precision", *out.MaxRateRPS, *out.FailedRPS)
	}
	// Within one step: the capacity lies in [max − step, failed + step].
	if capacity < *out.MaxRateRPS-step || capacity > *out.FailedRPS+step {
		t.Errorf("capacity %.2f is not within one step of the bracket %.2f–%.2f", capacity, *out.MaxRateRPS, *out.FailedRPS)
	}
	// The doubling stopped at 32: no rate above the first failure was tried.
	for _, c := range doc.Rate {
		if float64(c.RateRPS) > 32 {
			t.Errorf("the search tried %s after a failure at 32", c.RateRPS)
		}
	}
}

// TestPrefixShareVerifiedByCachedTokens: unique prompts find nothing cached; with
// --prefix-share 0.5 every request finds its 128-token prefix cached; a server whose
// counts say unique prompts were cached makes the cell invalid.
func TestPrefixShareVerifiedByCachedTokens(t *testing.T) {
	for _, tc := range []struct {
		name    string
		share   float64
		lie     int
		cached  float64 // per request
		invalid bool
	}{
		{"unique", 0, 0, 0, false},
		{"prefix", 0.5, 0, 128, false},
		{"lying", 0, 200, 200, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Tokens 10 ms apart: a stream of 4 lasts 30 ms, which a loaded machine's
			// stall does not make arrive whole (timing_unresolved).
			q := &queueServer{interval: 10 * time.Millisecond, blockCache: true, lieCached: tc.lie, ttft: func(int) time.Duration { return 5 * time.Millisecond }}
			srv := newQueueTestServer(q.start(t))
			doc := newRateRun(rundoc.RateConfig{Rates: []rundoc.Rate{20}, InputLen: 256, OutputLen: 4, PrefixShare: tc.share}, time.Second)
			runRateDoc(t, srv, doc, nil)
			c := doc.Rate[0]
			f := c.RateFigures
			if f == nil || f.CachedTokens == nil {
				t.Fatalf("cell %+v", c)
			}
			if got := float64(*f.CachedTokens) / float64(f.Requests); got != tc.cached {
				t.Errorf("%.1f cached tokens per request, want %.0f", got, tc.cached)
			}
			// The verdict on the prompts, whatever else (a loaded machine making the
			// client late) the cell says.
			if slices.Contains(f.Flags, "prompts_shared") != tc.invalid {
				t.Errorf("flags %v: prompts_shared want %v", f.Flags, tc.invalid)
			}
			if tc.invalid && c.Status != rundoc.StatusInvalid {
				t.Errorf("status %s: prompts the server says were shared must make the cell invalid", c.Status)
			}
			if !tc.invalid && c.Status != rundoc.StatusValid && !slices.Contains(f.Flags, "client_lagged") {
				t.Errorf("status %s (%s), want valid", c.Status, c.Reason)
			}
			for _, fl := range []string{"prefix_not_cached", "uniqueness_unverified", "prefix_unverified"} {
				if slices.Contains(f.Flags, fl) {
					t.Errorf("flag %s on a verified cell", fl)
				}
			}
		})
	}
}

// TestRescoreRateMatchesDocument: the events log re-scores to the document's cells.
func TestRescoreRateMatchesDocument(t *testing.T) {
	q := &queueServer{slots: 3, interval: 5 * time.Millisecond, ttft: func(n int) time.Duration { return time.Duration(10+n%7) * time.Millisecond }}
	srv := newQueueTestServer(q.start(t))
	ttftTarget := 40.0
	doc := newRateRun(rundoc.RateConfig{Rates: []rundoc.Rate{10, 60}, Arrival: "poisson", InputLen: 48, OutputLen: 8, LenDist: "uniform:0.5",
		SLO: &rundoc.SLO{TTFTMs: &ttftTarget, Target: 0.9}}, time.Second)
	run := runRateDoc(t, srv, doc, nil)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, ev := range run.events {
		enc.Encode(ev)
	}
	cells, err := RescoreRate(&buf)
	if err != nil {
		t.Fatal(err)
	}
	// The live run scores what it logs: the same figures, exactly.
	if len(cells) != len(doc.Rate) || len(cells) == 0 {
		t.Fatalf("re-scored %d cells, the document has %d", len(cells), len(doc.Rate))
	}
	if diff := cmp.Diff(doc.Rate, cells); diff != "" {
		t.Errorf("re-scored cells differ from the document (-doc +rescored):\n%s", diff)
	}
}

// TestRescoreRateSeparatesInvocations: a run and its --resume append to one events
// log; each cell is re-scored on its own invocation's requests, the later measurement
// of a cell measured twice replacing the earlier.
func TestRescoreRateSeparatesInvocations(t *testing.T) {
	q := &queueServer{slots: 2, interval: 2 * time.Millisecond, ttft: func(int) time.Duration { return 5 * time.Millisecond }}
	srv := newQueueTestServer(q.start(t))
	var log bytes.Buffer
	events := measure.NewEventLog(&log)
	doc := newRateRun(rundoc.RateConfig{Rates: []rundoc.Rate{10, 20}, Arrival: "constant", InputLen: 32, OutputLen: 4}, time.Second)
	first := &Runner{Server: srv, Opts: measure.Options{Events: events, Nonce: "first"}}
	if err := first.Run(context.Background(), doc); err != nil {
		t.Fatal(err)
	}
	doc.Rate[1].Status = rundoc.StatusInterrupted // as if stopped: --resume measures it again
	second := &Runner{Server: srv, Opts: measure.Options{Events: events, Nonce: "second"}}
	if err := second.Run(context.Background(), doc); err != nil {
		t.Fatal(err)
	}
	events.Flush()
	cells, err := RescoreRate(&log)
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 2 {
		t.Fatalf("re-scored %d cells, want 2", len(cells))
	}
	if cells[1].Requests != 20 {
		t.Errorf("the re-measured 20 req/s cell re-scores on %d requests, want its own 20 (both invocations' are 40)", cells[1].Requests)
	}
	if diff := cmp.Diff(doc.Rate, cells); diff != "" {
		t.Errorf("re-scored cells differ from the document (-doc +rescored):\n%s", diff)
	}
}

// TestRateResumeMeasuresOnlyWhatIsLeft: a document with a finished cell and an
// interrupted one (as Ctrl-C leaves it) measures only the second on --resume.
func TestRateResumeMeasuresOnlyWhatIsLeft(t *testing.T) {
	q := &queueServer{interval: time.Millisecond, ttft: func(int) time.Duration { return 5 * time.Millisecond }}
	srv := newQueueTestServer(q.start(t))
	doc := newRateRun(rundoc.RateConfig{Rates: []rundoc.Rate{5, 10}, InputLen: 32, OutputLen: 4}, time.Second)
	done := rundoc.RateCell{RateRPS: 5, Arrival: "constant", Status: rundoc.StatusValid, RateFigures: &rundoc.RateFigures{Requests: 5, CompletedRequests: 5}}
	doc.Rate[0] = done
	doc.Rate[1].Status = rundoc.StatusInterrupted
	runRateDoc(t, srv, doc, nil)
	if got := len(q.byArrival()); got != 10 {
		t.Errorf("the server saw %d requests, want the 10 of the 10 req/s cell only", got)
	}
	if doc.Rate[0].RateFigures != done.RateFigures || doc.Rate[1].Status == rundoc.StatusInterrupted || doc.Rate[1].Requests != 10 {
		t.Errorf("after resume: %+v / %s with %d requests", doc.Rate[0], doc.Rate[1].Status, doc.Rate[1].Requests)
	}
}
