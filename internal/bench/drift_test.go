package bench

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/golden"
	"github.com/llmbench/llmbench/internal/measure/measuretest"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// TestRateDriftFlagsAStep: a server that slows by 1.5× five seconds into a ten-second
// window gets the cell flagged rate_drift, the split at the step and the levels
// 1.5 apart; its series shows the step, slice by slice; the cell stays valid (the flag
// describes: its rate is the window's mean of what the server did). Logged by a
// version before series, the same cell has neither.
func TestRateDriftFlagsAStep(t *testing.T) {
	s := jitteredServer{streams: 4, interval: 20 * time.Millisecond, ttft: 30 * time.Millisecond, jitter: 0.3, maxOutput: 100000,
		duration: 10 * time.Second, slowAt: 5*time.Second + 30*time.Millisecond, slowBy: 1.5}
	for seed := range uint64(5) {
		cell := ScoreCell(s.cell(seed + 1))
		d := cell.CellDetail
		if d == nil || d.RateDrift == nil || !slices.Contains(d.Flags, "rate_drift") || cell.Status != "valid" {
			t.Fatalf("seed %d: a 1.5× step: %s, flags %v, drift %+v; want valid, flagged rate_drift", seed, cell.Status, d.Flags, d.RateDrift)
		}
		dr := d.RateDrift
		if math.Abs(dr.AtS-5) > 0.5 || math.Abs(dr.BeforeTokS/dr.AfterTokS-1.5) > 0.05 {
			t.Errorf("seed %d: drift %+v; want the split at 5 s, levels 200 and 133 tok/s", seed, *dr)
		}
		// The same cell logged by a version before series (no slice_ns) re-scores as
		// its document was: neither series nor flag.
		old := s.cell(seed + 1)
		old.SliceNs = 0
		if o := ScoreCell(old).CellDetail; o.Series != nil || o.RateDrift != nil || slices.Contains(o.Flags, "rate_drift") {
			t.Errorf("seed %d: a cell logged before series: series %v, drift %+v, flags %v; want none", seed, o.Series != nil, o.RateDrift, o.Flags)
		}
		sr := d.Series
		if sr == nil || len(sr.TokS) != 10 || sr.SliceS != 1 {
			t.Fatalf("seed %d: series %+v; want ten slices of a second", seed, sr)
		}
		for i, r := range sr.TokS {
			want := 200.0
			if i >= 5 {
				want = 200 / 1.5
			}
			if math.Abs(r-want)/want > 0.06 || math.Abs(sr.Producing[i]-4) > 0.01 {
				t.Errorf("seed %d: slice %d: %.1f tok/s, %.2f streams; want %.1f, 4", seed, i, r, sr.Producing[i], want)
			}
		}
	}
}

// TestDriftFalseFlags: steady servers — independent per-token jitter of ±30%, one
// jitter shared by every stream each step, short requests replaced at once, one slow
// stream — give no rate_drift over 100 windows of ten seconds each; a server that
// slows by 1.5× in the middle is flagged in all 100. How often smaller steps are
// flagged is measured, not asserted: the table in docs/run.md "Inside a window" is
// this test's (go test ./internal/bench -run TestDriftFalseFlags -update).
func TestDriftFalseFlags(t *testing.T) {
	base := jitteredServer{streams: 4, interval: 20 * time.Millisecond, ttft: 30 * time.Millisecond, jitter: 0.3, maxOutput: 100000, duration: 10 * time.Second}
	stepped := func(by float64) jitteredServer {
		s := base
		s.slowAt, s.slowBy = 5*time.Second+30*time.Millisecond, by
		return s
	}
	shared, short, slow := base, base, base
	shared.shared = true
	short.streams, short.interval, short.ttft, short.maxOutput = 8, 10*time.Millisecond, 40*time.Millisecond, 20
	slow.streams, slow.interval = 1, 100*time.Millisecond
	window := func(name string, s jitteredServer, kind measuretest.DriftKind) measuretest.DriftCase {
		return measuretest.DriftCase{Name: name, Kind: kind, Drift: func(_ *testing.T, seed uint64) *rundoc.Drift { return ScoreCell(s.cell(seed)).CellDetail.RateDrift }}
	}
	table := measuretest.DriftTable(t, "server (10 s windows) | windows", 500, []measuretest.DriftCase{
		window("steady: 4 streams, each token's gap ±30% at random", base, measuretest.Steady),
		window("noisy but steady: one ±30% draw per engine step, shared by every stream", shared, measuretest.Steady),
		window("steady: 8 streams of 20-token requests, each replaced at once", short, measuretest.Steady),
		window("steady: one stream, 100 ms a token ±30%", slow, measuretest.Steady),
		window("a step: every gap 1.1× longer from 5 s", stepped(1.1), measuretest.Measured),
		window("a step: every gap 1.2× longer from 5 s", stepped(1.2), measuretest.Measured),
		window("a step: every gap 1.5× longer from 5 s", stepped(1.5), measuretest.Step),
	})
	golden.Section(t, "../../docs/run.md", "<!-- BEGIN rate_drift cases (go test ./internal/bench -run TestDriftFalseFlags -update) -->\n",
		"<!-- END rate_drift cases -->", table)
}
