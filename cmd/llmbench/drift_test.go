package main

import (
	"slices"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/replay"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// driftServer is vLLM's stream on exact, logged timing: one step of every request each
// 20 ms (200 tok/s for four streams), on its schedule whatever the load of the machine
// running the test (OnSchedule: a late write does not delay the next).
var driftServer = replay.Config{Shape: "vllm-continuous-usage", Discovery: discoveryDir("vllm-0.26"), Tokenize: "vllm", Metrics: true,
	ChatOverhead: 3, Step: 20 * time.Millisecond, OnSchedule: true}

// TestRateDriftThroughARun: a matrix cell of four streams over an 8 s window against
// three servers. One that slows every step by 1.5× (Slowdown) part-way through the
// window gets the cell flagged rate_drift, split where the server's log says it
// slowed, at levels 1.5 apart, and its series shows the step slice by slice; a steady
// server and a noisy-but-steady one (tokens arriving 1, 3, 1, 2, 1 to a step) get no
// flag and a flat series. Every figure, the series and the flag re-score from the
// events log exactly.
func TestRateDriftThroughARun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three 8 s matrix cells against the replay")
	}
	args := []string{"--contexts", "0", "--concurrency", "4", "--prefill", "", "--duration", "8s", "--max-output", "8192"}
	step := driftServer
	step.Slowdown = &replay.Slowdown{After: 4 * time.Second, Factor: 1.5}
	noisy := driftServer
	noisy.TokensPerStep = []int{1, 3, 1, 2, 1}
	for name, cfg := range map[string]replay.Config{"1.5x step": step, "steady": driftServer, "noisy but steady": noisy} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cr := runReplay(t, cfg, false, args...)
			if cr.err != nil || cr.doc == nil || len(cr.doc.Decode) != 1 {
				t.Fatalf("run: %v\n%s", cr.err, cr.output)
			}
			c := &cr.doc.Decode[0]
			// A loaded machine may leave the cell invalid (timing_unresolved: the client
			// read late); its series and flag are scored all the same.
			if c.CellDetail == nil || c.Series == nil || c.DecodeFigures == nil {
				t.Fatalf("cell: %s %s, no series", c.Status, c.Reason)
			}
			t.Logf("%s: %s, %.1f tok/s, flags %v, drift %+v, series %v", name, c.Status, c.TotalTokS, c.Flags, c.RateDrift, c.Series.TokS)
			if cfg.Slowdown != nil {
				checkStep(t, c, cr.windows[[2]int{0, 4}][0], slowFrom(cr.log, cfg.Slowdown.After))
			} else {
				checkSteady(t, c)
			}
			cr.checkRescore(t)
			checkRecheck(t, cr)
		})
	}
}

// slowFrom is when the replay's Slowdown set in: After past its first request that
// asked for more than 16 tokens.
func slowFrom(log []*replay.Record, after time.Duration) time.Time {
	var first time.Time
	for _, r := range log {
		if r.MaxTokens > 16 && (first.IsZero() || r.Start.Before(first)) {
			first = r.Start
		}
	}
	return first.Add(after)
}

// checkStep: the cell is flagged, split within a second of the slowdown, the levels
// 1.5 apart within 5%, and the series' whole slices before and after the slowdown at
// the two levels within 8%.
func checkStep(t *testing.T, c *rundoc.DecodeCell, open, slow time.Time) {
	t.Helper()
	d := c.RateDrift
	if d == nil || !slices.Contains(c.Flags, "rate_drift") {
		t.Fatalf("a 1.5× slowdown: flags %v, drift %+v; want rate_drift", c.Flags, d)
	}
	at := slow.Sub(open).Seconds()
	if abs(d.AtS-at) > 1 || abs(d.BeforeTokS/d.AfterTokS-1.5) > 0.075 {
		t.Errorf("drift %+v; want the split at %.2f s, levels 1.5 apart", *d, at)
	}
	s := c.Series
	for i, r := range s.TokS {
		from, to := float64(i)*s.SliceS, float64(i+1)*s.SliceS
		want := 0.0
		switch {
		case to <= at:
			want = d.BeforeTokS
		case from >= at:
			want = d.AfterTokS
		default:
			continue // the slice the step falls in
		}
		if abs(r-want)/want > 0.08 || abs(s.Producing[i]-4) > 0.05 {
			t.Errorf("slice %d (%.1f–%.1f s, step at %.2f s): %.1f tok/s, %.2f streams; want %.1f, 4", i, from, to, at, r, s.Producing[i], want)
		}
	}
	if first, last := s.TokS[0], s.TokS[len(s.TokS)-1]; abs(first/last-1.5) > 0.1 {
		t.Errorf("series %v: first slice over last %.2f, want 1.5", s.TokS, first/last)
	}
}

// checkSteady: no flag, and every slice's rate within 10% of the cell's (the client shares
// a loaded machine).
func checkSteady(t *testing.T, c *rundoc.DecodeCell) {
	t.Helper()
	if c.RateDrift != nil || slices.Contains(c.Flags, "rate_drift") {
		t.Errorf("a steady server: flags %v, drift %+v", c.Flags, c.RateDrift)
	}
	for i, r := range c.Series.TokS {
		if abs(r-c.TotalTokS)/c.TotalTokS > 0.1 {
			t.Errorf("slice %d: %.1f tok/s against the cell's %.1f", i, r, c.TotalTokS)
		}
	}
}
