package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/measure/measuretest"
	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// fakeServer is an OpenAI-compatible server with exactly known timing: after a TTFT
// (prefill at prefillRate for an uncached prompt, warmTTFT for a cached one) it emits a
// token every interval, on an absolute schedule, and logs when it really sent each one.
// Its tokenizer counts whitespace-separated words, plus measuretest.ChatOverhead for chat.
type fakeServer struct {
	interval    time.Duration
	warmTTFT    time.Duration
	prefillRate float64       // prompt tokens per second for an uncached prompt
	chunkTokens int           // tokens per chunk (multi-token chunks when > 1)
	messy       bool          // comments, CRLF, events split across writes, event: lines
	fail503     int           // answer 503 to every fail503-th decode request
	dropAfter   int           // cut every other decode stream after this many tokens
	noUsage     bool          // never stream usage
	slots       chan struct{} // when set, decode requests beyond its capacity wait for a free slot (no gauge says so)

	mu       sync.Mutex
	cached   map[string]bool
	requests []*fakeRequest
	inFlight map[int]int // prompt tokens → requests in flight
	maxIn    map[int]int // prompt tokens → most requests in flight at once
	decodes  int
}

type fakeRequest struct {
	promptTokens int
	maxTokens    int
	cold         bool
	start, end   time.Time
	emits        []time.Time // one per token, when it was flushed
	// sends are when each token's write began: on a loaded machine the server can
	// be descheduled between writing a chunk and reading the clock, so the client may
	// see a token before its emit time; the token was on its way from its send time.
	sends []time.Time
}

func newFakeServer() *fakeServer {
	return &fakeServer{
		interval: 20 * time.Millisecond, warmTTFT: 30 * time.Millisecond, prefillRate: 20000,
		chunkTokens: 1,
	}
}

func (f *fakeServer) start(t testing.TB) *httptest.Server {
	f.cached = map[string]bool{}
	f.inFlight = map[int]int{}
	f.maxIn = map[int]int{}
	srv := httptest.NewServer(measuretest.Mux(f.complete))
	t.Cleanup(srv.Close)
	return srv
}

func (f *fakeServer) complete(w http.ResponseWriter, r *http.Request) {
	req, ok := measuretest.ReadRequest(w, r)
	if !ok {
		return
	}
	text, promptTokens := req.Text(), req.PromptTokens()
	if !req.Stream {
		// A one-shot answer, as a usage-calibration request gets.
		fmt.Fprintf(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"tok"},"finish_reason":"length"}],"usage":{"prompt_tokens":%d,"completion_tokens":1,"total_tokens":%d}}`, promptTokens, promptTokens+1)
		return
	}
	shared := text
	if i := strings.Index(text, "\n\nRequest"); i >= 0 {
		shared = text[:i]
	}
	fr := &fakeRequest{promptTokens: promptTokens, maxTokens: req.MaxTokens, start: time.Now()}
	f.mu.Lock()
	fr.cold = !f.cached[shared]
	f.cached[shared] = true
	decode := req.MaxTokens > 1
	var n int
	if decode {
		f.decodes++
		n = f.decodes
	}
	f.requests = append(f.requests, fr)
	interval := f.interval // read under the lock: a test may change the speed between cells
	f.inFlight[promptTokens]++
	f.maxIn[promptTokens] = max(f.maxIn[promptTokens], f.inFlight[promptTokens])
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight[promptTokens]--
		fr.end = time.Now()
		f.mu.Unlock()
	}()
	if decode && f.fail503 > 0 && n%f.fail503 == 0 {
		http.Error(w, `{"error":{"message":"server overloaded"}}`, http.StatusServiceUnavailable)
		return
	}
	start := fr.start
	if decode && f.slots != nil {
		select {
		case f.slots <- struct{}{}:
		case <-r.Context().Done():
			return
		}
		defer func() { <-f.slots }()
		start = time.Now()
	}
	ttft, cached := f.warmTTFT, promptTokens-8
	if fr.cold {
		ttft, cached = time.Duration(float64(promptTokens)/f.prefillRate*float64(time.Second)), 0
	}
	usage, continuous := req.Usage()
	usage = usage && !f.noUsage
	drop := decode && f.dropAfter > 0 && n%2 == 0
	s := measuretest.Stream{
		Chat: req.Chat(), PromptTokens: promptTokens, MaxTokens: req.MaxTokens, ChunkTokens: f.chunkTokens, Interval: interval,
		Usage: usage, Continuous: usage && continuous, Cached: cached, NoBurst: true, Messy: f.messy,
		Cut: func(produced int) bool { return drop && produced >= f.dropAfter },
		Flushed: func(k int, began, flushed time.Time) {
			f.mu.Lock()
			defer f.mu.Unlock()
			for range k {
				fr.emits = append(fr.emits, flushed)
				fr.sends = append(fr.sends, began)
			}
		},
	}
	s.Serve(w, r, start.Add(ttft))
}

// truthRange brackets the tokens per second the server sent inside a window when
// each token's moment is only known to lie between its send and its emit: lo counts
// the tokens whose whole send was inside, hi those whose send touched it. On an idle
// machine the two are truth's; under load they say how much the server's own clock
// leaves open, which a test must not blame on the client.
func (f *fakeServer) truthRange(w Window, promptTokens int) (lo, hi float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var nLo, nHi int
	for _, r := range f.requests {
		if r.promptTokens != promptTokens || r.maxTokens <= 1 {
			continue
		}
		for i, emit := range r.emits {
			sent := r.sends[i]
			if !sent.Before(w.Open) && !emit.After(w.Close) {
				nLo++
			}
			if !emit.Before(w.Open) && !sent.After(w.Close) {
				nHi++
			}
		}
	}
	s := w.Length().Seconds()
	return float64(nLo) / s, float64(nHi) / s
}

// truth is what the server really sent inside a window: tokens flushed in it over its
// length, and the median over its requests of the time per output token inside it
// (last − first emit in the window over the emits after the first).
func (f *fakeServer) truth(w Window, promptTokens int) (tokS float64, tpotMs float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	var tpots []float64
	for _, r := range f.requests {
		if r.promptTokens != promptTokens || r.maxTokens <= 1 {
			continue
		}
		var in []time.Time
		for _, t := range r.emits {
			if w.inside(t) {
				in = append(in, t)
			}
		}
		n += len(in)
		if len(in) >= 2 {
			tpots = append(tpots, measure.Millis(in[len(in)-1].Sub(in[0]))/float64(len(in)-1))
		}
	}
	slices.Sort(tpots)
	return float64(n) / w.Length().Seconds(), stats.Quantile(tpots, 0.5)
}

// truthTPOT is the median over the window's streams of the time per output token the
// server's own emits give, on the client's definition (tpotSpan): from the last chunk
// before the window (or the stream's first chunk) to its last chunk inside, over the
// tokens after that start. A server the machine stalled catches up at half its
// interval, so under load this, not the nominal interval, is what the client must see.
func (f *fakeServer) truthTPOT(w Window, promptTokens int) float64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	var tpots []float64
	for _, r := range f.requests {
		if r.promptTokens != promptTokens || r.maxTokens <= 1 {
			continue
		}
		if ns, tokens := serverTPOTSpan(chunksOf(r.emits), w); tokens > 0 && ns > 0 {
			tpots = append(tpots, float64(ns)/1e6/float64(tokens))
		}
	}
	slices.Sort(tpots)
	return stats.Quantile(tpots, 0.5)
}

// serverChunk is one write of the fake server: when it was flushed and how many tokens.
type serverChunk struct {
	at time.Time
	n  int
}

// chunksOf groups a request's per-token emits into its chunks (one flush time each).
func chunksOf(emits []time.Time) []serverChunk {
	var out []serverChunk
	for _, t := range emits {
		if len(out) > 0 && out[len(out)-1].at.Equal(t) {
			out[len(out)-1].n++
			continue
		}
		out = append(out, serverChunk{t, 1})
	}
	return out
}

func serverTPOTSpan(chunks []serverChunk, w Window) (time.Duration, int) {
	var start, last time.Time
	tokens, seen := 0, false
	for k, c := range chunks {
		if !w.inside(c.at) {
			continue
		}
		switch {
		case seen:
			tokens += c.n
		case k == 0:
			start, tokens = c.at, c.n-1
		default:
			start, tokens = chunks[k-1].at, c.n
		}
		seen, last = true, c.at
	}
	if !seen {
		return 0, 0
	}
	return last.Sub(start), tokens
}

func newTestServer(srv *httptest.Server, api prompt.API, maxStreams int) *measure.Server {
	return measuretest.Server(srv.URL, api, maxStreams)
}

func newTestRun(contexts, concurrency, prefill []int, duration time.Duration, maxOutput int) *rundoc.Run {
	seed := int64(1)
	return &rundoc.Run{
		SchemaVersion: rundoc.SchemaVersion, ID: "test",
		Config: rundoc.Config{
			Contexts: contexts, Concurrency: concurrency, PrefillContexts: prefill,
			DurationS: duration.Seconds(), MaxOutputTokens: maxOutput,
			DecodeTest: "fixed-duration", PrefillMode: "decode-warmup", API: "chat", Seed: &seed,
		},
	}
}

// windowRecorder keeps the windows the runner reports through the events log.
func runWithWindows(t *testing.T, ctx context.Context, r *Runner, doc *rundoc.Run) (map[[2]int]Window, error) {
	t.Helper()
	var buf bytes.Buffer
	r.Opts.Events = measure.NewEventLog(&buf)
	err := r.Run(ctx, doc)
	r.Opts.Events.Flush()
	windows := map[[2]int]Window{}
	dec := json.NewDecoder(&buf)
	for {
		var ev Event
		if dec.Decode(&ev) != nil {
			break
		}
		if ev.Type == "window" {
			windows[[2]int{ev.Context, ev.Concurrency}] = Window{Open: time.Unix(0, ev.Open), Close: time.Unix(0, ev.Close)}
		}
	}
	return windows, err
}

// coldTTFT is the server's own time from receiving the cold request of a prompt to
// sending its first token.
func (f *fakeServer) coldTTFT(promptTokens int) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.requests {
		if r.cold && r.promptTokens == promptTokens && len(r.emits) > 0 {
			return r.emits[0].Sub(r.start)
		}
	}
	return 0
}
