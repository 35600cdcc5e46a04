package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// timingTolerance is how far a client-side latency may sit from the server's exact
// timing: loopback, the SSE reader, and a loaded shared machine's scheduling. The
// errors actually seen are logged (go test -v -run Rate) for the note.
const timingTolerance = 8.0 // ms

// runRateDoc runs an open-loop document against srv and returns the events it logged.
func runRateDoc(t *testing.T, srv *Server, doc *Run, mon func() Monitor) []Event {
	t.Helper()
	var buf bytes.Buffer
	r := &RateRunner{Server: srv, Opts: Options{Events: NewEventLog(&buf), NewMonitor: mon}}
	if err := r.Run(context.Background(), doc); err != nil {
		t.Fatal(err)
	}
	r.Opts.Events.Flush()
	var events []Event
	dec := json.NewDecoder(&buf)
	for {
		var ev Event
		if dec.Decode(&ev) != nil {
			break
		}
		events = append(events, ev)
	}
	return events
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

func near(t *testing.T, what string, got *float64, want, tol float64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s is null, want %.2f", what, want)
		return
	}
	if math.Abs(*got-want) > tol {
		t.Errorf("%s = %.2f, want %.2f ± %.2f", what, *got, want, tol)
	}
}

// TestRateCellAgainstExactTiming: 80 requests at a constant 40/s, every fourth with a
// 200 ms TTFT and the rest 50 ms, then 10 tokens 10 ms apart. Every figure of the cell
// is checked against the hand-computed truth, and every request's TTFT against the
// server's own log of when it sent the first token.
func TestRateCellAgainstExactTiming(t *testing.T) {
	q := &queueServer{interval: 10 * time.Millisecond, ttft: func(n int) time.Duration {
		if n%4 == 0 {
			return 200 * time.Millisecond
		}
		return 50 * time.Millisecond
	}}
	srv := newQueueTestServer(q.start(t))
	ttftTarget, tpotTarget := 100.0, 20.0
	doc := newRateRun(RateConfig{Rates: []Rate{40}, InputLen: 64, OutputLen: 10,
		SLO: &SLO{TTFTMs: &ttftTarget, TPOTMs: &tpotTarget, Target: 0.95}}, 2*time.Second)
	events := runRateDoc(t, srv, doc, nil)
	c := doc.Rate[0]
	if c.Status != StatusValid || c.RateFigures == nil {
		t.Fatalf("cell %s: %s", c.Status, c.Reason)
	}
	f := c.RateFigures
	if f.Requests != 80 || f.CompletedRequests != 80 {
		t.Fatalf("%d requests, %d completed; want 80, 80", f.Requests, f.CompletedRequests)
	}
	// TTFT: 60 × 50 ms and 20 × 200 ms. p50 50, p90 (rank 71.1 of 0..79) 200, p99
	// null (80 < 662 samples), mean 7000 / 80 = 87.5, stdev √((60·37.5² + 20·112.5²) / 79) = 65.36.
	near(t, "ttft p50", f.TTFTMs.P50, 50, timingTolerance)
	near(t, "ttft p90", f.TTFTMs.P90, 200, timingTolerance)
	near(t, "ttft mean", f.TTFTMs.Mean, 87.5, timingTolerance)
	near(t, "ttft stdev", f.TTFTMs.Stdev, 65.36, 2)
	if f.TTFTMs.P99 != nil {
		t.Errorf("ttft p99 %v from 80 samples", *f.TTFTMs.P99)
	}
	// TPOT = (e2e − ttft) / 9 = 90 / 9 = 10 ms; ITL 10 ms over 720 gaps (p99 allowed);
	// E2E = TTFT + 90: p50 140, p90 290.
	near(t, "tpot p50", f.TPOTMs.P50, 10, 1)
	near(t, "tpot mean", f.TPOTMs.Mean, 10, 1)
	near(t, "itl p50", f.ITLMs.P50, 10, 1)
	if f.ITLMs.Samples != 720 || f.ITLMs.P99 == nil {
		t.Errorf("itl: %d samples, p99 %v; want 720 and a p99", f.ITLMs.Samples, f.ITLMs.P99)
	}
	near(t, "e2e p50", f.E2EMs.P50, 140, timingTolerance)
	near(t, "e2e p90", f.E2EMs.P90, 290, timingTolerance)
	// Rates: offered 79 / 1.975 s = 40; the cell lasts until request 80 (slow) ends,
	// 1.975 + 0.29 = 2.265 s: achieved 80 / 2.265 = 35.32/s.
	near(t, "offered", f.OfferedRPS, 40, 0.01)
	near(t, "duration", &f.DurationS, 2.265, 0.01)
	near(t, "achieved", f.AchievedRPS, 35.32, 0.2)
	// SLO: the 20 slow requests miss TTFT ≤ 100 ms: 60 / 80 = 0.75; goodput 60 / 2.265 = 26.49/s.
	near(t, "slo_met_ratio", f.SLOMetRatio, 0.75, 0)
	near(t, "goodput", f.GoodputRPS, 26.49, 0.15)
	// 40 tokens/s·request × … : 800 tokens / 2.265 s = 353.2 tok/s; 1000 / TPOT 10 ms = 100.
	near(t, "total tok/s", &f.TotalTokS, 353.2, 2)
	near(t, "per-request tok/s", f.PerRequestTokS, 100, 5)
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

	// Per request, against the server's log: measured TTFT (from the schedule) vs
	// (the server's first-token flush − the same scheduled time).
	measured, scheduled := measuredTTFTs(events, 1)
	log := q.byArrival()
	truth := make([]float64, len(log))
	for i, s := range log {
		truth[i] = float64(s.emits[0].Sub(scheduled[i])) / 1e6
	}
	mean, worst := errorStats(measured, truth)
	t.Logf("TTFT error vs the server's flush log over %d requests: mean %.3f ms, max %.3f ms (loaded shared machine)", len(measured), mean, worst)
	if worst > timingTolerance {
		t.Errorf("a TTFT was %.2f ms off the server's exact timing", worst)
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

func (m *waitingMonitor) Stop() *ServerMetrics {
	m.cancel()
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.seen) == 0 {
		return nil
	}
	mm := &MinMean{Min: slices.Min(m.seen), Max: slices.Max(m.seen)}
	for _, v := range m.seen {
		mm.Mean += v / float64(len(m.seen))
	}
	return &ServerMetrics{Samples: len(m.seen), Waiting: mm}
}

// TestRateSaturationTimedFromSchedule: a server that runs two requests at once, each
// for 110 ms (capacity 18.2/s), under 40 requests/s. The queue grows, and every TTFT
// — timed from the scheduled send — follows the hand-computed queue: request i waits
// for a slot, so its TTFT is its start + 20 ms − its arrival. The cell is flagged
// saturated with the evidence.
func TestRateSaturationTimedFromSchedule(t *testing.T) {
	q := &queueServer{slots: 2, interval: 10 * time.Millisecond, ttft: func(int) time.Duration { return 20 * time.Millisecond }}
	hs := q.start(t)
	srv := newQueueTestServer(hs)
	doc := newRateRun(RateConfig{Rates: []Rate{40}, InputLen: 32, OutputLen: 10}, 1500*time.Millisecond)
	events := runRateDoc(t, srv, doc, func() Monitor { return &waitingMonitor{url: hs.URL + "/metrics"} })
	c := doc.Rate[0]
	f := c.RateFigures
	if f == nil || f.Requests != 60 {
		t.Fatalf("cell %+v", c)
	}
	var arrivals []float64
	for i := range 60 {
		arrivals = append(arrivals, float64(i)*25)
	}
	start, done := ddc(arrivals, 2, 110)
	truth := make([]float64, 60)
	for i := range truth {
		truth[i] = start[i] + 20 - arrivals[i]
	}
	measured, _ := measuredTTFTs(events, 1)
	mean, worst := errorStats(measured, truth)
	t.Logf("queued TTFT (from schedule) vs hand-computed queue: truth %.0f → %.0f ms, mean error %.3f ms, max %.3f ms", truth[0], truth[59], mean, worst)
	if worst > timingTolerance {
		t.Errorf("a queued TTFT was %.2f ms off the hand-computed queue", worst)
	}
	// The last request waited ~1.7 s: TTFT timed from the actual send would show the
	// same here (the queue is in the server), and far more than the 20 ms of service.
	if truth[59] < 1000 || measured[59] < 1000 {
		t.Fatalf("the queue did not grow as computed: truth %.0f, measured %.0f", truth[59], measured[59])
	}
	if !c.Saturated() || !slices.Contains(f.Flags, "saturated") {
		t.Fatalf("a growing queue was not flagged saturated: %+v", f)
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
	near(t, "achieved", f.AchievedRPS, 60/(done[59]/1000), 0.2)
}

// TestMaxConcurrencyWaitIsLatency: the same queue, but in the client: an unlimited
// server, and --max-concurrency 2. The time a request waited for a client slot is in
// its TTFT — what a closed-loop harness timing from the actual send would hide
// (coordinated omission) — and the cell says so.
func TestMaxConcurrencyWaitIsLatency(t *testing.T) {
	q := &queueServer{interval: 10 * time.Millisecond, ttft: func(int) time.Duration { return 20 * time.Millisecond }}
	srv := newQueueTestServer(q.start(t))
	doc := newRateRun(RateConfig{Rates: []Rate{40}, InputLen: 32, OutputLen: 10, MaxConcurrency: 2}, 1500*time.Millisecond)
	events := runRateDoc(t, srv, doc, nil)
	f := doc.Rate[0].RateFigures
	if f == nil || f.MaxConcurrency != 2 || f.SlotWaitMs == nil || !slices.Contains(f.Flags, "slot_wait") {
		t.Fatalf("the cell does not say requests waited for a client slot: %+v", f)
	}
	var arrivals []float64
	for i := range 60 {
		arrivals = append(arrivals, float64(i)*25)
	}
	start, _ := ddc(arrivals, 2, 110)
	truth := make([]float64, 60)
	for i := range truth {
		truth[i] = start[i] + 20 - arrivals[i]
	}
	measured, scheduled := measuredTTFTs(events, 1)
	// Against the server's log of its first-token flushes: the exact timing.
	exact := make([]float64, 60)
	for i, s := range q.byArrival() {
		exact[i] = float64(s.emits[0].Sub(scheduled[i])) / 1e6
	}
	mean, worst := errorStats(measured, exact)
	t.Logf("client-queued TTFT vs the server's flush log: mean error %.3f ms, max %.3f ms", mean, worst)
	if worst > timingTolerance {
		t.Errorf("a client-queued TTFT was %.2f ms off the server's exact timing", worst)
	}
	// Against the ideal queue: each hand-over of a client slot costs a loopback round
	// trip and a timer's slack that the ideal queue does not have, 30 in a row per slot
	// here, more on a loaded machine. So the measured wait is never below the ideal
	// one, and on average within 10% of it.
	mean, worst = errorStats(measured, truth)
	t.Logf("client-queued TTFT vs the ideal hand-computed queue: mean error %.3f ms, max %.3f ms", mean, worst)
	meanTruth := 0.0
	for i := range truth {
		meanTruth += truth[i] / float64(len(truth))
		if measured[i] < truth[i]-timingTolerance {
			t.Errorf("request %d: TTFT %.1f ms, below the ideal queue's %.1f: the slot wait was hidden", i, measured[i], truth[i])
		}
	}
	if mean > 0.1*meanTruth {
		t.Errorf("client-queued TTFTs are %.1f ms off the ideal queue on average (its mean %.1f ms)", mean, meanTruth)
	}
	// Timed from the actual send, every TTFT would be ~20 ms: the server never queued.
	if f.TTFTMs.P50 == nil || *f.TTFTMs.P50 < 10*20 {
		t.Errorf("TTFT p50 %v: the slot wait is not in the latency", f.TTFTMs.P50)
	}
	if !doc.Rate[0].Saturated() {
		t.Error("a client-side queue that grows was not flagged saturated")
	}
}

// TestFindMaxRateFindsCapacity: two slots of 110 ms serve 18.2 requests/s. The search
// (start 4, doubling, then bisection to 10%) must end with the capacity inside its
// bracket, the bracket one step wide, and stop doubling at the first saturated cell.
func TestFindMaxRateFindsCapacity(t *testing.T) {
	q := &queueServer{slots: 2, interval: 10 * time.Millisecond, ttft: func(int) time.Duration { return 20 * time.Millisecond }}
	srv := newQueueTestServer(q.start(t))
	ttftTarget := 100.0
	doc := newRateRun(RateConfig{InputLen: 32, OutputLen: 10, DrainTimeoutS: 5,
		SLO:    &SLO{TTFTMs: &ttftTarget, Target: 0.95},
		Search: &RateSearch{Start: 4, MaxSteps: 8, Precision: 0.1}}, 1500*time.Millisecond)
	runRateDoc(t, srv, doc, nil)
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
			q := &queueServer{interval: time.Millisecond, blockCache: true, lieCached: tc.lie, ttft: func(int) time.Duration { return 5 * time.Millisecond }}
			srv := newQueueTestServer(q.start(t))
			doc := newRateRun(RateConfig{Rates: []Rate{20}, InputLen: 256, OutputLen: 4, PrefixShare: tc.share}, time.Second)
			runRateDoc(t, srv, doc, nil)
			c := doc.Rate[0]
			f := c.RateFigures
			if f == nil || f.CachedTokens == nil {
				t.Fatalf("cell %+v", c)
			}
			if got := float64(*f.CachedTokens) / float64(f.Requests); got != tc.cached {
				t.Errorf("%.1f cached tokens per request, want %.0f", got, tc.cached)
			}
			if (c.Status == StatusInvalid) != tc.invalid {
				t.Errorf("status %s (%s), invalid want %v", c.Status, c.Reason, tc.invalid)
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
	doc := newRateRun(RateConfig{Rates: []Rate{10, 60}, Arrival: "poisson", InputLen: 48, OutputLen: 8, LenDist: "uniform:0.5",
		SLO: &SLO{TTFTMs: &ttftTarget, Target: 0.9}}, time.Second)
	events := runRateDoc(t, srv, doc, nil)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, ev := range events {
		enc.Encode(ev)
	}
	cells, err := RescoreRate(&buf)
	if err != nil {
		t.Fatal(err)
	}
	// The live run times with the monotonic clock, the log with the wall clock: a
	// few microseconds apart.
	if diff := cmp.Diff(doc.Rate, cells, cmpopts.EquateApprox(0, 0.02)); diff != "" {
		t.Errorf("re-scored cells differ from the document (-doc +rescored):\n%s", diff)
	}
}
