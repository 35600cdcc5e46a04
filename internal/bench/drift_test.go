package bench

import (
	"math"
	"slices"
	"testing"
	"time"
)

// TestRateDriftFlagsAStep: a server that slows by 1.5× five seconds into a ten-second
// window gets the cell flagged rate_drift, the split at the step and the levels
// 1.5 apart; its series shows the step, slice by slice; the cell stays valid (the flag
// describes: its rate is the window's mean of what the server did).
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
// stream — give no rate_drift over 400 windows of ten seconds.
func TestDriftFalseFlags(t *testing.T) {
	servers := map[string]jitteredServer{
		"independent":    {streams: 4, interval: 20 * time.Millisecond, ttft: 30 * time.Millisecond, jitter: 0.3, maxOutput: 100000, duration: 10 * time.Second},
		"shared steps":   {streams: 4, interval: 20 * time.Millisecond, ttft: 30 * time.Millisecond, jitter: 0.3, maxOutput: 100000, duration: 10 * time.Second, shared: true},
		"short requests": {streams: 8, interval: 10 * time.Millisecond, ttft: 40 * time.Millisecond, jitter: 0.3, maxOutput: 20, duration: 10 * time.Second},
		"one slow":       {streams: 1, interval: 100 * time.Millisecond, ttft: 30 * time.Millisecond, jitter: 0.3, maxOutput: 100000, duration: 10 * time.Second},
	}
	for name, s := range servers {
		flagged := 0
		for seed := range uint64(100) {
			if d := ScoreCell(s.cell(seed + 500)).CellDetail; d.RateDrift != nil {
				flagged++
				t.Logf("%s, seed %d: %+v", name, seed, *d.RateDrift)
			}
		}
		if flagged > 0 {
			t.Errorf("%s: %d of 100 steady windows flagged rate_drift", name, flagged)
		}
	}
}
