package session

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/sim"
)

// timedServer is the emulator (an exact prefix cache in blocks of 16) behind a log
// of its own timing: for every streamed chat request of a session's answer length, how many user messages it
// carried (its turn) and how long the server took from taking the request to writing
// its first token (from accepting the connection, for a connection's first request)
// — the server's own TTFT, which the client's per-turn figures must follow.
type timedServer struct {
	mu  sync.Mutex
	log map[int][]time.Duration // by turn
}

func startTimedEmulator(t *testing.T, cfg sim.Config) (*timedServer, string) {
	t.Helper()
	s, err := sim.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := &timedServer{log: map[int][]time.Duration{}}
	inner := s.Handler()
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		took := time.Now()
		// A connection's first request arrived when the connection did: a client
		// opening its streams at once on a loaded machine waits for the accept.
		if c, ok := r.Context().Value(connKey{}).(*connSeen); ok && !c.served {
			took, c.served = c.accepted, true
		}
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			inner.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Messages []struct{ Role string } `json:"messages"`
			Stream   bool                    `json:"stream"`
			Max      int                     `json:"max_tokens"`
			MaxNew   int                     `json:"max_completion_tokens"`
		}
		_ = json.Unmarshal(body, &req)
		turn := 0
		for _, m := range req.Messages {
			if m.Role == "user" {
				turn++
			}
		}
		fw := &firstWrite{ResponseWriter: w}
		inner.ServeHTTP(fw, r)
		// The workload's turns ask for sessionAnswer tokens; the probe's and the
		// warm-up's requests ask for others.
		if req.Stream && !fw.at.IsZero() && max(req.Max, req.MaxNew) == sessionAnswer {
			ts.mu.Lock()
			ts.log[turn] = append(ts.log[turn], fw.at.Sub(took))
			ts.mu.Unlock()
		}
	}))
	hs.Config.ConnContext = func(ctx context.Context, _ net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, &connSeen{accepted: time.Now()})
	}
	hs.Start()
	t.Cleanup(func() { hs.Close(); s.Close() })
	return ts, hs.URL
}

// connKey keys a connection's connSeen in its requests' context; HTTP/1.1 serves a
// connection's requests one after another, so served needs no lock.
type connKey struct{}

type connSeen struct {
	accepted time.Time
	served   bool
}

// firstWrite notes when the first bytes of the body were written (the emulator
// writes the role chunk and the first token together).
type firstWrite struct {
	http.ResponseWriter
	at time.Time
}

func (f *firstWrite) Write(b []byte) (int, error) {
	if f.at.IsZero() && len(b) > 0 {
		f.at = time.Now()
	}
	return f.ResponseWriter.Write(b)
}

func (f *firstWrite) Flush() {
	if fl, ok := f.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}

// meanMs is the server's own mean TTFT of a turn, in ms.
func (ts *timedServer) meanMs(turn int) (float64, int) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	var sum time.Duration
	for _, d := range ts.log[turn] {
		sum += d
	}
	n := len(ts.log[turn])
	if n == 0 {
		return 0, 0
	}
	return float64(sum) / float64(n) / 1e6, n
}

// runWorkload runs c against base and returns the document and its events log.
func runWorkload(t *testing.T, c Config, base string, given ...string) (*rundoc.Run, string) {
	t.Helper()
	dir := t.TempDir()
	c.Endpoint, c.Out, c.Events = base, filepath.Join(dir, "run.json"), filepath.Join(dir, "run.events")
	if err := c.Given(givenOf(given...)); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := Open(ctx, c, &recorder{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Run(ctx); err != nil {
		t.Fatal(err)
	}
	doc, err := rundoc.ReadFile(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	return doc, c.Events
}

// sessionEmulator is the default preset at half its speed, its cache large enough that
// nothing is evicted: TTFTs of a few hundred ms, which loopback cannot move by 5%.
func sessionEmulator(t *testing.T) (*timedServer, string) {
	cfg, err := sim.PresetConfig(sim.DefaultPreset)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Speed = 0.5
	return startTimedEmulator(t, cfg)
}

// checkSessions compares a cell's workload figures with the server's own: each turn's
// mean TTFT within 5% of the server's, the cache hits achieved within 2% of the
// ideal, and the rise of cached tokens turn after turn.
func checkSessions(t *testing.T, w *rundoc.WorkloadFigures, ts *timedServer, turns int) {
	t.Helper()
	if w == nil || len(w.Turns) != turns {
		t.Fatalf("workload figures %+v: want %d turns", w, turns)
	}
	if w.CacheHitRatio == nil || w.IdealCacheHitRatio == nil || w.CacheAchieved == nil || w.CacheSource != "usage" {
		t.Fatalf("cache figures missing: %+v", w)
	}
	t.Logf("cache hits %.4f, ideal %.4f (achieved %.4f); %d sessions, %d completed", *w.CacheHitRatio, *w.IdealCacheHitRatio, *w.CacheAchieved, w.Sessions, w.CompletedSessions)
	if math.Abs(*w.CacheAchieved-1) > 0.02 {
		t.Errorf("cache hits achieved %.4f of the ideal; want within 2%%", *w.CacheAchieved)
	}
	for k, tf := range w.Turns {
		server, n := ts.meanMs(tf.Turn)
		if tf.TTFTMs.Mean == nil || n == 0 {
			t.Fatalf("turn %d: no TTFT (client %+v, server %d requests)", tf.Turn, tf.TTFTMs, n)
		}
		got := *tf.TTFTMs.Mean
		t.Logf("turn %d: %d requests, prompt %.1f, cached %v of ideal %v; TTFT mean %.2f ms, server's own %.2f ms over %d (%+.2f%%)",
			tf.Turn, tf.Requests, orNaN(tf.PromptTokensMean), orNaN(tf.CachedTokensMean), orNaN(tf.IdealCachedMean), got, server, n, 100*(got/server-1))
		if math.Abs(got/server-1) > 0.05 {
			t.Errorf("turn %d: TTFT mean %.2f ms, the server's own %.2f ms: more than 5%% apart", tf.Turn, got, server)
		}
		if k > 0 && (tf.CachedTokensMean == nil || *tf.CachedTokensMean <= orNaN(w.Turns[k-1].CachedTokensMean)) {
			t.Errorf("turn %d: cached tokens %v did not rise from turn %d's", tf.Turn, tf.CachedTokensMean, k)
		}
	}
}

func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// checkRescore re-scores the run from its events log: every figure, the workload's
// included, is what the document says.
func checkRescore(t *testing.T, doc *rundoc.Run, events string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.json")
	if err := rundoc.WriteFile(path, doc); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := Rescore(&out, events, []string{path}, ""); err != nil {
		t.Errorf("re-score: %v\n%s", err, out.String())
	}
}

// sessionConfig is 4 users (or 4 sessions arriving) × 5 turns of 64-token messages
// and 24-token answers, no think time.
// sessionAnswer is the sessions' answer length (one no probe asks for), by which the server's log tells
// their turns from the probe's requests.
const sessionAnswer = 23

func sessionConfig() Config {
	c := emulatorConfig("")
	c.Preset, c.Workload = "", Workload{Turns: 5, UserTokens: 64, Think: "0s", TraceSpeed: 1}
	c.MaxOutput = sessionAnswer
	return c
}

// TestSessionsFollowTheServer: sessions of 5 turns against the emulator in each
// loop — closed: 4 users each hold a conversation for the window; open: 4 sessions
// arrive at 4 a second, each turn due when the reply before it ended. Each turn's TTFT
// follows the server's own timing within 5%, the prefix cache finds the ideal within
// 2% (rising turn after turn), and the events log re-scores to every figure.
func TestSessionsFollowTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: sessions against the emulator (a 9-second window)")
	}
	for _, c := range []struct {
		loop  string
		shape func(*Config)
		given []string
		// cells are the run's cells of that loop: their status, reason and workload.
		cells func(*rundoc.Run) []cellWorkload
		check func(t *testing.T, w *rundoc.WorkloadFigures)
	}{
		{"closed", func(c *Config) { c.Concurrency, c.Duration = "4", 9*time.Second }, // a session lasts about 6.5 s
			[]string{"concurrency", "duration", "max-output"},
			func(doc *rundoc.Run) (out []cellWorkload) {
				for _, d := range doc.Decode {
					out = append(out, cellWorkload{d.Status, d.Reason, d.Workload})
				}
				return out
			},
			func(t *testing.T, w *rundoc.WorkloadFigures) {
				if w.CompletedSessions < 4 || w.SessionsPerS == nil {
					t.Errorf("%d sessions completed in the window (%v/s); want the 4 users' first", w.CompletedSessions, w.SessionsPerS)
				}
			}},
		{"open", func(c *Config) {
			c.Rate = OpenLoop{Rates: "4", Requests: 4, InputLen: 64, OutputLen: sessionAnswer, Arrival: "poisson", LenDist: "fixed", DrainTimeout: time.Minute, Target: 0.9}
		}, []string{"rate", "requests", "output-len"},
			func(doc *rundoc.Run) (out []cellWorkload) {
				for _, r := range doc.Rate {
					out = append(out, cellWorkload{r.Status, r.Reason, r.Workload})
				}
				return out
			},
			func(t *testing.T, w *rundoc.WorkloadFigures) {
				if w.Sessions != 4 || w.CompletedSessions != 4 {
					t.Errorf("%d sessions, %d completed; want 4 and 4", w.Sessions, w.CompletedSessions)
				}
			}},
	} {
		t.Run(c.loop, func(t *testing.T) {
			ts, base := sessionEmulator(t)
			cfg := sessionConfig()
			c.shape(&cfg)
			doc, events := runWorkload(t, cfg, base, c.given...)
			cells := c.cells(doc)
			if len(cells) != 1 {
				t.Fatalf("cells %+v", cells)
			}
			logStatus(t, cells[0].status, cells[0].reason)
			checkSessions(t, cells[0].w, ts, 5)
			c.check(t, cells[0].w)
			if c.loop == "open" && doc.Config.Rate.RateOf != rundoc.RateOfSessions {
				t.Errorf("config.rate.rate_of = %q; the rates are sessions a second", doc.Config.Rate.RateOf)
			}
			checkRescore(t, doc, events)
		})
	}
}

// cellWorkload is what the sessions test reads of a cell of either loop.
type cellWorkload struct {
	status rundoc.Status
	reason string
	w      *rundoc.WorkloadFigures
}

// TestTraceReplayHitsTheTraceIdeal: the project's 2,000-request Mooncake-format trace
// (internal/workload/testdata/synthetic-trace-2k.jsonl) replayed 50× faster than its
// timestamps against the emulator (an exact prefix cache large enough to evict
// nothing, fast enough that requests seldom overlap): the cache hits achieved equal
// the trace's own ideal within 2%, both the plan's (config.workload.trace) and the
// cell's over the requests the server counted, and the events log re-scores to every
// figure.
func TestTraceReplayHitsTheTraceIdeal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 2,000 requests, about 20 s")
	}
	cfg, err := sim.PresetConfig("h100-8b-fp16")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Speed = 20
	_, base := startTimedEmulator(t, cfg)
	c := emulatorConfig("")
	c.Preset, c.Workload = "", Workload{Trace: "../workload/testdata/synthetic-trace-2k.jsonl", TraceSpeed: 50, TraceBlock: 512, Think: "0s"}
	c.Rate = OpenLoop{InputLen: 64, OutputLen: 16, Arrival: "poisson", LenDist: "fixed", DrainTimeout: time.Minute, Target: 0.9}
	doc, events := runWorkload(t, c, base)
	tp := doc.Config.Workload.Trace
	if len(doc.Rate) != 1 || tp == nil || tp.Requests != 2000 || tp.IdealCacheHitRatio == nil {
		t.Fatalf("plan %+v, %d cells", tp, len(doc.Rate))
	}
	cell := doc.Rate[0]
	w := cell.Workload
	if w == nil || w.CacheHitRatio == nil || w.IdealCacheHitRatio == nil {
		t.Fatalf("cell %s (%s): %+v", cell.Status, cell.Reason, w)
	}
	logStatus(t, cell.Status, cell.Reason)
	t.Logf("rate %v: %d of %d prompt tokens cached (%.4f); the cell's ideal %.4f, the trace's %.4f; send lag p99 %.2f ms",
		cell.RateRPS, orZero(w.CachedTokens), w.PromptTokens, *w.CacheHitRatio, *w.IdealCacheHitRatio, *tp.IdealCacheHitRatio, orNaN(cell.RateFigures.ClientSendLagMs.P99))
	for what, ideal := range map[string]float64{"the cell's": *w.IdealCacheHitRatio, "the trace's": *tp.IdealCacheHitRatio} {
		if math.Abs(*w.CacheHitRatio/ideal-1) > 0.02 {
			t.Errorf("cache hits %.4f, %s ideal %.4f: more than 2%% apart", *w.CacheHitRatio, what, ideal)
		}
	}
	if f := cell.RateFigures; f.Requests != 2000 || f.CompletedRequests != 2000 {
		t.Errorf("%d requests, %d completed; want all 2,000", f.Requests, f.CompletedRequests)
	}
	checkRescore(t, doc, events)
}

func orZero(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// TestPrefixPoolHitsTheIdeal: 3 shared system prompts of 256 tokens, each of 40
// requests at 8 a second drawing one, against the emulator: the cache hits are the
// pool's ideal (nothing of a prompt at its first use, its whole blocks after) within
// 2%, the rate section's figures stand, and the events log re-scores exactly.
func TestPrefixPoolHitsTheIdeal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 5 s against the emulator")
	}
	cfg, err := sim.PresetConfig(sim.DefaultPreset)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Speed = 1 // tokens tens of ms apart: each streams as it comes
	_, base := startTimedEmulator(t, cfg)
	c := emulatorConfig("")
	c.Preset, c.Workload = "", Workload{PrefixPrompts: 3, PrefixTokens: 256, Think: "0s", TraceSpeed: 1}
	c.Rate = OpenLoop{Rates: "8", Requests: 40, InputLen: 384, OutputLen: 16, Arrival: "poisson", LenDist: "fixed", DrainTimeout: time.Minute, Target: 0.9}
	doc, events := runWorkload(t, c, base, "rate", "requests", "input-len", "output-len")
	cell := doc.Rate[0]
	w := cell.Workload
	if w == nil || w.CacheAchieved == nil || w.IdealCacheHitRatio == nil {
		t.Fatalf("cell %s (%s): %+v", cell.Status, cell.Reason, w)
	}
	logStatus(t, cell.Status, cell.Reason)
	t.Logf("cache hits %.4f, ideal %.4f (achieved %.4f)", orNaN(w.CacheHitRatio), *w.IdealCacheHitRatio, *w.CacheAchieved)
	// 40 requests, 3 first uses: the ideal is 37 of 40 requests' 256 shared tokens.
	if *w.IdealCacheHitRatio < 0.5 || math.Abs(*w.CacheAchieved-1) > 0.02 {
		t.Errorf("ideal %.4f, achieved %.4f of it; want a pool's sharing found whole", *w.IdealCacheHitRatio, *w.CacheAchieved)
	}
	checkRescore(t, doc, events)
}

// logStatus says a cell's verdict. The workload's figures are checked whatever it
// is: a loaded shared machine may make the client late and the rules invalidate the
// window (rightly), which moves none of the figures these tests compare with the
// server's own.
func logStatus(t *testing.T, status rundoc.Status, reason string) {
	t.Helper()
	if status != rundoc.StatusValid {
		t.Logf("the cell is %s (%s)", status, reason)
	}
}
