package openloop

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/golden"
	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/measure/measuretest"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// arrivalServer emulates, in the scorer's own records, an open-loop cell whose
// server's truth is known. Requests arrive for span at rate a second (Poisson, or
// evenly spaced), each answering output tokens one a chunk. Without batched, each
// request's first token comes ttft × (1 ± jitter) after it arrives and each next one
// interval × (1 ± jitter) after the one before, drawn independently. batched is an
// engine that steps: every step gives each request it holds one token (its first
// step its prefill and first token) and lasts interval × (1 ± jitter), one draw per
// step, × (1 + perStream × (requests held − 1)): a batch of more requests steps
// slower, and as arrivals come and go the rate a stream gets wanders with it. From
// slowAt after the first arrival, every gap (or step) is slowBy times longer.
type arrivalServer struct {
	rate           float64
	constant       bool
	span           time.Duration
	output         int
	interval, ttft time.Duration
	jitter         float64
	batched        bool
	perStream      float64
	slowAt         time.Duration
	slowBy         float64
}

const arrivalStart = int64(1e12)

// cell draws the cell's schedule and what every request recorded, on seed.
func (s arrivalServer) cell(seed uint64) []measure.Request {
	rng := rand.New(rand.NewPCG(seed, 0xd41f7))
	draw := func(d time.Duration) float64 { return float64(d) * (1 + s.jitter*(2*rng.Float64()-1)) }
	slow := func(t int64) float64 {
		if s.slowAt > 0 && t-arrivalStart >= int64(s.slowAt) {
			return s.slowBy
		}
		return 1
	}
	var arrivals []int64
	for t := 0.0; t < float64(s.span); {
		arrivals = append(arrivals, arrivalStart+int64(t))
		gap := 1e9 / s.rate
		if !s.constant {
			gap = rng.ExpFloat64() * 1e9 / s.rate
		}
		t += gap
	}
	times := make([][]int64, len(arrivals)) // each request's token arrivals
	if s.batched {
		s.steps(arrivals, times, draw, slow)
	} else {
		for i, a := range arrivals {
			at := a + int64(draw(s.ttft)*slow(a))
			for k := 0; k < s.output; k++ {
				times[i] = append(times[i], at)
				at += int64(draw(s.interval) * slow(at))
			}
		}
	}
	reqs := make([]measure.Request, len(arrivals))
	for i, a := range arrivals {
		q := measure.Request{Scheduled: a, Slot: a, Sent: a, FirstToken: times[i][0], End: times[i][len(times[i])-1],
			Tokens: s.output, Outcome: "finished", FinishReason: "length", ChunkUsage: true, Index: i}
		for _, t := range times[i] {
			q.Chunks = append(q.Chunks, [3]int64{t - a, 1, 1})
		}
		reqs[i] = q
	}
	return reqs
}

// steps runs the batched engine: it takes in every request that has arrived by the
// start of a step and gives each one it holds a token at the step's end.
func (s arrivalServer) steps(arrivals []int64, times [][]int64, draw func(time.Duration) float64, slow func(int64) float64) {
	t, next := arrivals[0], 0
	var held []int
	for next < len(arrivals) || len(held) > 0 {
		if len(held) == 0 && arrivals[next] > t {
			t = arrivals[next]
		}
		for next < len(arrivals) && arrivals[next] <= t {
			held = append(held, next)
			next++
		}
		t += int64(draw(s.interval) * (1 + s.perStream*float64(len(held)-1)) * slow(t))
		held = slices.DeleteFunc(held, func(i int) bool {
			times[i] = append(times[i], t)
			return len(times[i]) == s.output
		})
	}
}

// TestRateCellDriftFalseFlags: rate_drift on rate cells, by the matrix's rule
// (measure.RateDrift) over the rate a streaming request got. Steady servers — 4
// requests a second (Poisson), each token's gap ±30% at random; a batched engine whose
// steps vary ±30% and slow 2% with every request it holds, fed evenly at 4 and 8 a
// second; 1 request every 2 s of 20 tokens, so most seconds stream less than half a
// request — give no rate_drift over 100 cells of 10 s of arrivals each, though their
// total tok/s follows their arrivals; a server that slows by 1.5× half-way is flagged
// in all 100, split within a second of the step at levels 1.5× apart. Measured, not
// asserted: smaller steps, and a batched engine fed Poisson arrivals, whose speed
// wanders with the requests it holds (a real move of the rate a request gets, not
// the server's noise), and which, slowed, holds more and slows further. The table in
// docs/run.md "Inside a window" is this test's (go test ./internal/openloop -run
// TestRateCellDriftFalseFlags -update).
func TestRateCellDriftFalseFlags(t *testing.T) {
	base := arrivalServer{rate: 4, span: 10 * time.Second, output: 100, interval: 20 * time.Millisecond, ttft: 50 * time.Millisecond, jitter: 0.3}
	batched := base
	batched.batched, batched.perStream = true, 0.02
	heavy := batched
	heavy.perStream = 0.05
	even := batched
	even.rate, even.constant, even.output = 8, true, 50
	evenSlow := batched
	evenSlow.constant = true
	sparse := base
	sparse.rate, sparse.output, sparse.interval = 0.5, 20, 50*time.Millisecond
	stepped := func(s arrivalServer, by float64) arrivalServer {
		s.slowAt, s.slowBy = 5*time.Second, by
		return s
	}
	// A server's own speed wandering with its load is a moving rate, not noise: such
	// cases are measured, not asserted.
	cell := func(name string, s arrivalServer, kind measuretest.DriftKind) measuretest.DriftCase {
		return measuretest.DriftCase{Name: name, Kind: kind, Drift: func(t *testing.T, seed uint64) *rundoc.Drift {
			c := ScoreRate(s.cell(seed), RateInput{Rate: rundoc.Rate(s.rate), Arrival: "poisson", SliceNs: int64(time.Second)})
			d := c.RateDrift
			if (d != nil) != slices.Contains(c.Flags, rundoc.FlagRateDrift) {
				t.Errorf("%s, seed %d: drift %+v but flags %v", name, seed, d, c.Flags)
			}
			if d != nil && kind == measuretest.Step && (math.Abs(d.AtS-5) > 1 || math.Abs(d.BeforeTokS/d.AfterTokS-1.5) > 0.15) {
				t.Errorf("%s, seed %d: drift %+v; want the split at 5 s ± 1, the levels 1.5× apart", name, seed, *d)
			}
			return d
		}}
	}
	steady, measured, step := measuretest.Steady, measuretest.Measured, measuretest.Step
	table := measuretest.DriftTable(t, "rate cell (10 s of arrivals) | cells", 700, []measuretest.DriftCase{
		cell("steady: 4 requests/s (Poisson) of 100 tokens, each token's gap ±30% at random", base, steady),
		cell("steady server, load-bound speed: a batched engine, steps ±30% and 2% slower per request held, 4 requests/s (Poisson)", batched, measured),
		cell("steady: the same engine, 8 requests/s evenly spaced, 50 tokens each", even, steady),
		cell("steady: the same engine, 4 requests/s evenly spaced", evenSlow, steady),
		cell("steady: 1 request every 2 s (Poisson) of 20 tokens, 50 ms a token ±30%", sparse, steady),
		cell("steady server, load-bound speed: steps 5% slower per request held, 4 requests/s (Poisson; about 12 held, wandering)", heavy, measured),
		cell("a step: every gap 1.1× longer from 5 s", stepped(base, 1.1), measured),
		cell("a step: every gap 1.2× longer from 5 s", stepped(base, 1.2), measured),
		cell("a step: every gap 1.5× longer from 5 s", stepped(base, 1.5), step),
		cell("a step: the batched engine's steps 1.5× longer from 5 s (it then holds more, each slower still)", stepped(batched, 1.5), measured),
	})
	golden.Section(t, "../../docs/run.md", "<!-- BEGIN rate-cell rate_drift cases (go test ./internal/openloop -run TestRateCellDriftFalseFlags -update) -->\n",
		"<!-- END rate-cell rate_drift cases -->", table)
}

// TestRateCellDriftNeedsSeries: a cell logged before series (slice_ns 0) re-scores
// as its document was written, with neither series nor rate_drift, even where the
// server slowed; the same cell logged with series is flagged, its verdict unchanged
// (the flag describes; the figures are the cell's means of what the server did).
func TestRateCellDriftNeedsSeries(t *testing.T) {
	s := arrivalServer{rate: 4, span: 10 * time.Second, output: 100, interval: 20 * time.Millisecond, ttft: 50 * time.Millisecond, jitter: 0.3, slowAt: 5 * time.Second, slowBy: 1.5}
	reqs := s.cell(1)
	old := ScoreRate(reqs, RateInput{Rate: 4, Arrival: "poisson"})
	if old.Series != nil || old.RateDrift != nil || slices.Contains(old.Flags, rundoc.FlagRateDrift) {
		t.Errorf("logged before series: series %v, drift %+v, flags %v; want none", old.Series != nil, old.RateDrift, old.Flags)
	}
	cell := ScoreRate(reqs, RateInput{Rate: 4, Arrival: "poisson", SliceNs: int64(time.Second)})
	if cell.RateDrift == nil || cell.Series == nil {
		t.Fatalf("a 1.5× step with series: drift %+v; want flagged", cell.RateDrift)
	}
	if cell.Status != old.Status {
		t.Errorf("the flag changed the verdict: %s, logged before series %s", cell.Status, old.Status)
	}
	if err := rundoc.Validate(&rundoc.Run{SchemaVersion: 1, Rate: []rundoc.RateCell{cell}}); err != nil && strings.Contains(err.Field, "rate_drift") {
		t.Errorf("the drift does not validate: %v", err)
	}
}
