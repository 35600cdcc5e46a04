package openloop

import (
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/measure/measuretest"
	"github.com/llmbench/llmbench/internal/stats"
)

// queueServer is an OpenAI-compatible server with exactly known timing, for open-loop
// tests. It runs at most slots requests at once (0: any number), first come first
// served; a request holds its slot for ttft(n) + (max_tokens − 1) × interval, and its
// tokens go out on an absolute clock from the moment it got the slot — so its timing
// depends only on when requests arrived, never on how fast this process runs, and a
// test can compute every latency by hand. It logs when it received each request, when
// its slot began, and when it flushed each token: the exact timing the client's
// measurements are checked against.
type queueServer struct {
	slots    int
	ttft     func(n int) time.Duration // by arrival order, from 1
	interval time.Duration
	// blockCache, when set, makes a prefix cache of 16-word blocks (as vLLM caches
	// 16-token blocks) and reports cached_tokens from it.
	blockCache bool
	// lieCached adds this many cached tokens to every report (a server whose counts
	// say prompts shared what they did not).
	lieCached int

	mu       sync.Mutex
	n        int
	free     []time.Time // when each slot is next free
	log      []*served
	blocks   map[uint64]bool
	waitingN int
}

type served struct {
	key          string // the prompt's first words: which client request this was
	n            int
	received     time.Time
	start        time.Time // the slot's start: received, or when a slot freed
	promptTokens int
	emits        []time.Time
}

func (q *queueServer) start(t testing.TB) *httptest.Server {
	q.blocks = map[uint64]bool{}
	mux := measuretest.Mux(q.complete)
	// A vLLM-style /metrics page: the number of requests waiting for a slot.
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		q.mu.Lock()
		waiting := q.waitingN
		q.mu.Unlock()
		fmt.Fprintf(w, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting %d\n", waiting)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// admit takes the slot that frees first and returns when the request starts.
func (q *queueServer) admit(s *served, hold func(start time.Time) time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.n++
	s.n = q.n
	s.start = s.received
	if q.slots > 0 {
		if q.free == nil {
			q.free = make([]time.Time, q.slots)
		}
		k := 0
		for i := range q.free {
			if q.free[i].Before(q.free[k]) {
				k = i
			}
		}
		if q.free[k].After(s.start) {
			s.start = q.free[k]
		}
		q.free[k] = s.start.Add(hold(s.start))
	}
	q.log = append(q.log, s)
}

func (q *queueServer) cachedTokens(words []string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	cached, hit := 0, true
	var parent uint64
	for i := 0; i+16 <= len(words); i += 16 {
		h := fnv.New64a()
		fmt.Fprintf(h, "%d|%s", parent, strings.Join(words[i:i+16], " "))
		parent = h.Sum64()
		if hit && q.blocks[parent] {
			cached += 16
		} else {
			hit = false
		}
		q.blocks[parent] = true
	}
	return cached
}

func (q *queueServer) complete(w http.ResponseWriter, r *http.Request) {
	req, ok := measuretest.ReadRequest(w, r)
	if !ok {
		return
	}
	if req.MaxTokens == measure.CheckMaxTokens {
		// The stream check before the first cell: answered at once, outside the queue
		// and its log, so that the hand-computed schedules count the cells' arrivals.
		w.Header().Set("Content-Type", "text/event-stream")
		for k := range measure.CheckMaxTokens {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok \"},\"finish_reason\":%s}]}\n\n", map[bool]string{true: `"length"`, false: "null"}[k == measure.CheckMaxTokens-1])
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
		return
	}
	s := &served{received: time.Now()}
	words := strings.Fields(req.Text())
	s.key = promptKey(req.Text())
	s.promptTokens = req.PromptTokens()
	var ttft time.Duration
	q.admit(s, func(time.Time) time.Duration {
		ttft = q.ttft(q.n)
		return ttft + time.Duration(req.MaxTokens-1)*q.interval
	})
	if q.slots == 0 {
		ttft = q.ttft(s.n)
	}
	cached := q.lieCached
	if q.blockCache {
		cached += q.cachedTokens(words)
	}
	if wait := time.Until(s.start); wait > 0 {
		q.mu.Lock()
		q.waitingN++
		q.mu.Unlock()
		time.Sleep(wait)
		q.mu.Lock()
		q.waitingN--
		q.mu.Unlock()
	}
	usage, continuous := req.Usage()
	st := measuretest.Stream{
		Chat: req.Chat(), PromptTokens: s.promptTokens, MaxTokens: req.MaxTokens, Interval: q.interval,
		Usage: usage, Continuous: continuous, Cached: cached,
		Flushed: func(_ int, _, flushed time.Time) {
			q.mu.Lock()
			s.emits = append(s.emits, flushed)
			q.mu.Unlock()
		},
	}
	st.Serve(w, r, s.start.Add(ttft))
}

// promptKey names a request by its prompt's first words (prompts are unique).
func promptKey(content string) string {
	w := strings.Fields(content)
	return strings.Join(w[:min(len(w), 12)], " ")
}

// firstFlush returns when the server flushed each request's first token, by key.
func (q *queueServer) firstFlush() map[string]time.Time {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := map[string]time.Time{}
	for _, s := range q.log {
		if len(s.emits) > 0 {
			out[s.key] = s.emits[0]
		}
	}
	return out
}

// byArrival returns the server's log in arrival order.
func (q *queueServer) byArrival() []*served {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]*served(nil), q.log...)
}

// flushErrors pairs every request the client saw with the server's log of when it
// flushed that request's first token: the client's error in TTFT (both TTFTs count
// from the same scheduled time, so the difference is all of it), in ms, sorted.
func flushErrors(t *testing.T, q *queueServer, run rateRun) []float64 {
	t.Helper()
	flush := q.firstFlush()
	var errs []float64
	for key, res := range run.sent {
		at, ok := flush[key]
		if !ok || res.FirstToken.IsZero() {
			t.Fatalf("request %q: the server flushed no first token, or the client saw none", key)
		}
		errs = append(errs, math.Abs(float64(res.FirstToken.Sub(at))/1e6))
	}
	slices.Sort(errs)
	return errs
}

// onSchedule drives a cell up to three times, until the client measured the TTFTs
// as the server's log has them — median error under 1 ms, nine in ten within
// timingTolerance: a loaded machine stalls this process now and then, on either side
// of the socket, never by design — and held the schedule (every request sent within
// 5 ms of when it could go: the hand-computed truth assumes requests left on time).
// It fails when no attempt measured that well; onTime is false when none held the
// schedule — the cells then say so (client_send_lag_ms, and client_lagged past the
// threshold) — and the caller skips the checks against hand-computed truth.
func onSchedule(t *testing.T, attempt func() (*queueServer, rateRun)) (q *queueServer, run rateRun, onTime bool) {
	t.Helper()
	measuredOK := false
	for try := 1; try <= 3; try++ {
		var r rateRun
		q, r = attempt()
		errs := flushErrors(t, q, r)
		median, p90, worst := stats.Quantile(errs, 0.5), stats.Quantile(errs, 0.9), errs[len(errs)-1]
		lag := maxSendLag(r.events)
		t.Logf("attempt %d: TTFT error vs the server's flush log over %d requests: median %.3f ms, p90 %.3f ms, max %.3f ms; latest send %s after it could go",
			try, len(errs), median, p90, worst, lag.Round(time.Microsecond))
		ok := median <= 1 && p90 <= timingTolerance
		measuredOK = measuredOK || ok
		run = r
		if ok && lag <= 5*time.Millisecond {
			return q, r, true
		}
	}
	if !measuredOK {
		t.Errorf("no attempt measured the TTFTs within 1 ms (median) and %.0f ms (p90) of the server's exact timing", timingTolerance)
	}
	t.Log("the machine was too loaded for the client to hold the schedule: the hand-computed figures are not checked")
	return q, run, false
}
