package bench

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// jitteredServer emulates, in the scorer's own records, a server whose truth is
// known: each stream's tokens come one per chunk with gaps of interval × (1 ± jitter)
// drawn uniformly and independently (shared: one draw per engine step, the same for
// every stream, as a batched engine's step time is), after a TTFT of ttft × (1 ±
// jitter); a request that reaches maxOutput is replaced at once. The window opens
// when every first-wave stream has its first token and lasts duration.
type jitteredServer struct {
	streams   int
	interval  time.Duration
	ttft      time.Duration
	jitter    float64
	maxOutput int
	duration  time.Duration
	shared    bool
	// slowAt, with slowBy, makes every gap slowBy times longer from slowAt after the
	// first request was sent: a server that throttles.
	slowAt time.Duration
	slowBy float64
}

// cell runs one cell on seed and returns what executing it would have recorded.
func (s jitteredServer) cell(seed uint64) *CellRun {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	draw := func(d time.Duration) int64 { return int64(float64(d) * (1 + s.jitter*(2*rng.Float64()-1))) }
	const start = int64(1e12)
	var steps []int64 // shared step lengths, drawn as needed
	step := func(k int) int64 {
		for len(steps) <= k {
			steps = append(steps, draw(s.interval))
		}
		return steps[k]
	}
	run := &CellRun{Concurrency: s.streams, DurationS: s.duration.Seconds(), MaxOutput: s.maxOutput, SliceNs: int64(time.Second)}
	type stream struct{ sent, first int64 }
	first := make([]int64, s.streams)
	var reqs [][]int64 // per request: sent, then arrival times
	var horizon int64 = start + int64(20*time.Second)
	for i := range s.streams {
		t := start
		for wave := 0; t < horizon; wave++ {
			sent := t
			at := sent + draw(s.ttft)
			if wave == 0 {
				first[i] = at
			}
			times := []int64{sent, at}
			for k := 1; k < s.maxOutput && at < horizon; k++ {
				g := draw(s.interval)
				if s.shared {
					g = step(int((at - start) / int64(s.interval)))
				}
				if s.slowAt > 0 && at-start >= int64(s.slowAt) {
					g = int64(float64(g) * s.slowBy)
				}
				at += g
				times = append(times, at)
			}
			reqs = append(reqs, times)
			t = at
		}
	}
	run.Open = first[0]
	for _, f := range first {
		run.Open = max(run.Open, f)
	}
	run.Close = run.Open + int64(s.duration)
	for _, times := range reqs {
		sent := times[0]
		if sent > run.Close {
			continue
		}
		q := measure.Request{Sent: sent, FirstToken: times[1], ChunkUsage: true, Outcome: "finished", FinishReason: "length"}
		for _, at := range times[1:] {
			if at > run.Close {
				q.Outcome, q.FinishReason = "cancelled", ""
				break
			}
			q.Chunks = append(q.Chunks, [3]int64{at - sent, 1, 1})
			q.End = at
		}
		if q.Outcome == "cancelled" {
			q.End = run.Close
		}
		q.Usage = &openai.Usage{CompletionTokens: len(q.Chunks)}
		run.Requests = append(run.Requests, q)
	}
	return run
}

// TestIntervalCoverage is the intervals' honesty check: against a server whose true
// rate, gap and TTFT are known, the 95% intervals of 20 short cells must contain the
// truth in at least 17 (the binomial's 5% point at 95% coverage is 17 of 20), and the
// rate's must be narrow (half-width under 5% at 4 streams × 5 s with ±30% jitter).
func TestIntervalCoverage(t *testing.T) {
	for _, c := range []struct {
		name   string
		server jitteredServer
		// truth: tokens per second, the median gap and the median TTFT.
		rate, gap, ttft float64
		ttftCI          bool
		// widest is the bound on the rate interval's half-width over the 20 cells
		// (0: none): the 5% for its case; shared steps move every stream at
		// once, so their noise is up to √4 times the independent streams'.
		widest float64
	}{
		{"4x5s independent", jitteredServer{streams: 4, interval: 20 * time.Millisecond, ttft: 30 * time.Millisecond, jitter: 0.3, maxOutput: 100000, duration: 5 * time.Second}, 200, 20, 30, false, 0.05},
		{"4x5s shared steps", jitteredServer{streams: 4, interval: 20 * time.Millisecond, ttft: 30 * time.Millisecond, jitter: 0.3, maxOutput: 100000, duration: 5 * time.Second, shared: true}, 200, 20, 30, false, 0.10},
		{"1x5s slow", jitteredServer{streams: 1, interval: 100 * time.Millisecond, ttft: 30 * time.Millisecond, jitter: 0.3, maxOutput: 100000, duration: 5 * time.Second}, 10, 100, 30, false, 0},
		// Short requests: each replaced at once, so TTFTs are many and the rate is
		// maxOutput tokens per TTFT + (maxOutput − 1) gaps.
		{"8x5s short requests", jitteredServer{streams: 8, interval: 10 * time.Millisecond, ttft: 40 * time.Millisecond, jitter: 0.3, maxOutput: 20, duration: 5 * time.Second}, 8 * 20 / 0.230, 10, 40, true, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			const cells = 20
			var rateIn, gapIn, ttftIn, scored int
			worst := 0.0
			for i := range cells {
				cell := ScoreCell(c.server.cell(uint64(i + 1)))
				ci := cell.CellIntervals
				if ci == nil || ci.TotalTokSCI == nil || ci.TBTMsCI == nil || ci.CIMethod != rundoc.CIMethodWindow {
					t.Fatalf("cell %d: intervals %+v", i, ci)
				}
				scored++
				if ci.TotalTokSCI.Contains(c.rate) {
					rateIn++
				}
				if ci.TBTMsCI.Contains(c.gap) {
					gapIn++
				}
				if c.ttftCI {
					if ci.TTFTMsCI == nil {
						t.Fatalf("cell %d: %d TTFTs and no interval", i, cell.TTFTSamples)
					}
					if ci.TTFTMsCI.Contains(c.ttft) {
						ttftIn++
					}
				} else if ci.TTFTMsCI != nil {
					t.Errorf("cell %d: an interval %+v from %d TTFTs", i, *ci.TTFTMsCI, cell.TTFTSamples)
				}
				worst = max(worst, ci.TotalTokSCI.HalfWidth()/cell.TotalTokS)
			}
			t.Logf("%s: %d cells; truth inside: rate %d, tbt %d, ttft %d; widest rate half-width %.2f%%", c.name, scored, rateIn, gapIn, ttftIn, 100*worst)
			if scored != cells {
				t.Fatalf("scored %d cells of %d", scored, cells)
			}
			for name, in := range map[string]int{"total_tok_s": rateIn, "tbt_ms": gapIn} {
				if in < 17 {
					t.Errorf("%s: truth inside %d intervals of %d, want ≥ 17", name, in, cells)
				}
			}
			if c.ttftCI && ttftIn < 17 {
				t.Errorf("ttft_ms: truth inside %d intervals of %d, want ≥ 17", ttftIn, cells)
			}
			if c.widest > 0 && worst >= c.widest {
				t.Errorf("widest rate half-width %.2f%%, want < %.0f%%", 100*worst, 100*c.widest)
			}
		})
	}
}

// TestIntervalsNotTooWide: at 4 × 5 s an interval that always held the truth by
// being huge would pass a coverage count; the rate's must also miss a rate 10% off.
func TestIntervalsNotTooWide(t *testing.T) {
	s := jitteredServer{streams: 4, interval: 20 * time.Millisecond, ttft: 30 * time.Millisecond, jitter: 0.3, maxOutput: 100000, duration: 5 * time.Second}
	for i := range 5 {
		ci := ScoreCell(s.cell(uint64(100 + i))).CellIntervals
		if ci.TotalTokSCI.Contains(180) || ci.TotalTokSCI.Contains(220) || ci.TBTMsCI.Contains(18) || ci.TBTMsCI.Contains(22) {
			t.Errorf("cell %d: intervals rate %+v, tbt %+v hold values 10%% off the truth", i, *ci.TotalTokSCI, *ci.TBTMsCI)
		}
	}
}

func TestIntervalsAbsentWithoutWindow(t *testing.T) {
	cell := ScoreCell(&CellRun{Concurrency: 1, Failed: "no token"})
	if cell.CellIntervals != nil {
		t.Errorf("a failed cell has intervals %+v", cell.CellIntervals)
	}
}

// TestIntervalCoverageMany estimates the coverage itself over 300 cells, where 20
// say little: it must be near the 95% asked, neither below (dishonest) nor at 100%
// (wider than needed).
func TestIntervalCoverageMany(t *testing.T) {
	if testing.Short() {
		t.Skip("300 cells: skipped with -short")
	}
	s := jitteredServer{streams: 4, interval: 20 * time.Millisecond, ttft: 30 * time.Millisecond, jitter: 0.3, maxOutput: 100000, duration: 5 * time.Second}
	const cells = 300
	rateIn, gapIn := 0, 0
	for i := range cells {
		ci := ScoreCell(s.cell(uint64(1000 + i))).CellIntervals
		if ci.TotalTokSCI.Contains(200) {
			rateIn++
		}
		if ci.TBTMsCI.Contains(20) {
			gapIn++
		}
	}
	t.Logf("coverage over %d cells: total_tok_s %.3f, tbt_ms %.3f", cells, float64(rateIn)/cells, float64(gapIn)/cells)
	for name, in := range map[string]int{"total_tok_s": rateIn, "tbt_ms": gapIn} {
		if share := float64(in) / cells; share < 0.91 || share > 0.99 {
			t.Errorf("%s: coverage %.3f, want about 0.95", name, share)
		}
	}
}
