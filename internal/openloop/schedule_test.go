package openloop

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/rundoc"
)

func TestScheduleReproducibleFromSeed(t *testing.T) {
	arr, _ := rundoc.ParseArrival("poisson")
	dist, _ := rundoc.ParseLenDist("uniform:0.5")
	a, err := PlanRate(10, arr, dist, 1024, 256, 30*time.Second, 0, 42)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := PlanRate(10, arr, dist, 1024, 256, 30*time.Second, 0, 42)
	c, _ := PlanRate(10, arr, dist, 1024, 256, 30*time.Second, 0, 43)
	if !slices.Equal(a.Offsets, b.Offsets) || !slices.Equal(a.Input, b.Input) || !slices.Equal(a.Output, b.Output) {
		t.Error("the same seed gave a different schedule")
	}
	if slices.Equal(a.Offsets, c.Offsets) {
		t.Error("another seed gave the same schedule")
	}
	// The lengths' stream is separate: changing the distribution leaves arrivals be.
	fixed, _ := rundoc.ParseLenDist("fixed")
	d, _ := PlanRate(10, arr, fixed, 1024, 256, 30*time.Second, 0, 42)
	if !slices.Equal(a.Offsets, d.Offsets) {
		t.Error("changing --len-dist moved the arrivals")
	}
	// A cell's seed is a function of the run's seed and the rate alone (so a resumed
	// run draws the same schedule), and changes with either.
	seeds := map[uint64]string{}
	for _, c := range []struct {
		run  int64
		rate rundoc.Rate
	}{{1, 10}, {1, 5}, {2, 10}, {2, 5}} {
		s := CellSeed(c.run, c.rate)
		if prev, ok := seeds[s]; ok {
			t.Errorf("run seed %d at %v/s has the seed of %s", c.run, c.rate, prev)
		}
		seeds[s] = fmt.Sprintf("run seed %d at %v/s", c.run, c.rate)
		if again := CellSeed(c.run, c.rate); again != s {
			t.Errorf("run seed %d at %v/s: seed %d, then %d", c.run, c.rate, s, again)
		}
	}
}

// gapStats returns the mean and coefficient of variation of a schedule's gaps, in s.
func gapStats(offsets []time.Duration) (mean, cv float64) {
	var gaps []float64
	for i := 1; i < len(offsets); i++ {
		gaps = append(gaps, (offsets[i] - offsets[i-1]).Seconds())
	}
	for _, g := range gaps {
		mean += g
	}
	mean /= float64(len(gaps))
	ss := 0.0
	for _, g := range gaps {
		ss += (g - mean) * (g - mean)
	}
	return mean, math.Sqrt(ss/float64(len(gaps)-1)) / mean
}

// TestArrivalProcesses: the gaps have mean 1/rate, and the spread each process
// promises: none for constant, CV 1 for Poisson, 1/√B for gamma.
func TestArrivalProcesses(t *testing.T) {
	dist, _ := rundoc.ParseLenDist("fixed")
	for _, tc := range []struct {
		arrival string
		cv      float64
	}{{"constant", 0}, {"poisson", 1}, {"gamma:0.25", 2}, {"gamma:4", 0.5}} {
		arr, err := rundoc.ParseArrival(tc.arrival)
		if err != nil {
			t.Fatal(err)
		}
		p, err := PlanRate(50, arr, dist, 10, 10, 0, 20000, 7)
		if err != nil {
			t.Fatal(err)
		}
		mean, cv := gapStats(p.Offsets)
		// 20,000 gaps: the sample mean is within ~2% of 1/rate at CV 2, less below.
		if math.Abs(mean-0.02)/0.02 > 0.04 {
			t.Errorf("%s: mean gap %.5f s, want 0.02", tc.arrival, mean)
		}
		if math.Abs(cv-tc.cv) > 0.05*math.Max(tc.cv, 1) {
			t.Errorf("%s: gap CV %.3f, want %.2f", tc.arrival, cv, tc.cv)
		}
		if p.Offsets[0] != 0 {
			t.Errorf("%s: first arrival at %s, want 0", tc.arrival, p.Offsets[0])
		}
	}
}

func TestPlanRateDurationAndInf(t *testing.T) {
	arr, _ := rundoc.ParseArrival("constant")
	dist, _ := rundoc.ParseLenDist("fixed")
	p, _ := PlanRate(4, arr, dist, 100, 10, 2*time.Second, 0, 1)
	// Arrivals at 0, 0.25 … 1.75 s: eight inside two seconds.
	if len(p.Offsets) != 8 || p.Offsets[7] != 1750*time.Millisecond {
		t.Errorf("constant 4/s over 2 s: %v", p.Offsets)
	}
	if _, err := PlanRate(rundoc.Inf, arr, dist, 100, 10, time.Second, 0, 1); err == nil {
		t.Error("rate inf without a request count was accepted")
	}
	inf, _ := PlanRate(rundoc.Inf, arr, dist, 100, 10, time.Second, 5, 1)
	if len(inf.Offsets) != 5 || slices.Max(inf.Offsets) != 0 {
		t.Errorf("rate inf: %v, want 5 requests at once", inf.Offsets)
	}
	if n := InfRequests(&rundoc.RateConfig{Rates: []rundoc.Rate{1, 2.5, rundoc.Inf}}, 10*time.Second); n != 25 {
		t.Errorf("inf requests %d, want 25 (the busiest rate's 2.5/s × 10 s)", n)
	}
}

func TestLengthDistributions(t *testing.T) {
	arr, _ := rundoc.ParseArrival("constant")
	for _, tc := range []struct {
		dist   string
		lo, hi int
	}{{"fixed", 1000, 1000}, {"uniform:0.8", 200, 1800}, {"normal:0.2", 1, 2000}} {
		d, err := rundoc.ParseLenDist(tc.dist)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := PlanRate(1, arr, d, 1000, 1000, 0, 5000, 3)
		sum := 0
		for i, n := range p.Input {
			if n < tc.lo || n > tc.hi {
				t.Fatalf("%s: length %d outside %d–%d", tc.dist, n, tc.lo, tc.hi)
			}
			sum += n + p.Output[i]
		}
		if mean := float64(sum) / 10000; math.Abs(mean-1000) > 15 {
			t.Errorf("%s: mean length %.1f, want 1000", tc.dist, mean)
		}
	}
	for _, bad := range []string{"uniform", "uniform:1.5", "normal:-1", "zipf:1"} {
		if _, err := rundoc.ParseLenDist(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for _, bad := range []string{"gamma", "gamma:0", "gamma:x", "bursty"} {
		if _, err := rundoc.ParseArrival(bad); err == nil {
			t.Errorf("arrival %q accepted", bad)
		}
	}
}

// TestLatencyStatsFloorsAndCensoring: percentiles need methodology.md's sample
// counts, and a censored sample (still waiting when the cell stopped) makes a figure
// null wherever it could move it.
func TestLatencyStatsFloorsAndCensoring(t *testing.T) {
	exact := func(vs ...float64) []latencySample {
		var out []latencySample
		for _, v := range vs {
			out = append(out, latencySample{V: v})
		}
		return out
	}
	ramp := func(n int) []latencySample {
		var out []latencySample
		for i := 1; i <= n; i++ {
			out = append(out, latencySample{V: float64(i)})
		}
		return out
	}
	s := measure.LatencyStats(exact(10, 20, 30, 40))
	// p50 of 10,20,30,40 = 25; mean 25; stdev = √((225+25+25+225)/3) = 12.91.
	if *s.P50 != 25 || *s.Mean != 25 || *s.Stdev != 12.91 || s.P90 != nil || s.P99 != nil {
		t.Errorf("4 samples: %+v", s)
	}
	if s := measure.LatencyStats(ramp(63)); s.P90 != nil {
		t.Error("p90 of 63 samples was reported")
	}
	// 1..64: p90 at rank 0.9 × 63 = 56.7 → 57.7.
	if s := measure.LatencyStats(ramp(64)); s.P90 == nil || *s.P90 != 57.7 || s.P99 != nil {
		t.Errorf("64 samples: p90 %v p99 %v", s.P90, s.P99)
	}
	if s := measure.LatencyStats(ramp(662)); s.P99 == nil {
		t.Error("p99 of 662 samples was not reported")
	}
	// 100 samples, the top 5 censored: p50 and p90 are fixed by the exact ones;
	// p99 and the mean are not.
	c := ramp(100)
	for i := 95; i < 100; i++ {
		c[i].Censored = true
	}
	s = measure.LatencyStats(c)
	if s.P50 == nil || *s.P50 != 50.5 || s.P90 == nil || s.Mean != nil || s.Stdev != nil || s.Censored != 5 {
		t.Errorf("censored tail: %+v", s)
	}
	// A censored sample in the middle makes the median unknown.
	c = ramp(9)
	c[4].Censored = true
	if s := measure.LatencyStats(c); s.P50 != nil {
		t.Errorf("median with a censored middle sample: %v", *s.P50)
	}
}

func TestNextSearchRate(t *testing.T) {
	pass := func(r rundoc.Rate) rundoc.RateCell {
		ok := true
		return rundoc.RateCell{RateRPS: r, Status: rundoc.StatusValid, RateFigures: &rundoc.RateFigures{MeetsSLO: &ok}}
	}
	fail := func(r rundoc.Rate) rundoc.RateCell {
		no := false
		return rundoc.RateCell{RateRPS: r, Status: rundoc.StatusValid, RateFigures: &rundoc.RateFigures{MeetsSLO: &no}}
	}
	sat := func(r rundoc.Rate) rundoc.RateCell {
		c := pass(r)
		c.Saturation = []string{"TTFT rose"}
		return c
	}
	s := rundoc.RateSearch{Start: 2, MaxSteps: 8, Precision: 0.1}
	// Capacity 11: 2, 4, 8 pass, 16 saturates (early stop), then 12, 10, 11.
	var tried []rundoc.RateCell
	var seq []rundoc.Rate
	for {
		next, done, out := NextSearchRate(s, tried)
		if done {
			if out.MaxRateRPS == nil || *out.MaxRateRPS != 11 || *out.FailedRPS != 12 || out.Stop != "precision" {
				t.Errorf("outcome %+v", out)
			}
			break
		}
		seq = append(seq, next)
		switch {
		case next > 11 && next >= 16:
			tried = append(tried, sat(next))
		case next > 11:
			tried = append(tried, fail(next))
		default:
			tried = append(tried, pass(next))
		}
		if len(seq) > 20 {
			t.Fatal("the search does not end")
		}
	}
	if want := []rundoc.Rate{2, 4, 8, 16, 12, 10, 11}; !slices.Equal(seq, want) {
		t.Errorf("rates tried %v, want %v", seq, want)
	}
	// Bounded: the steps run out.
	_, done, out := NextSearchRate(rundoc.RateSearch{Start: 1, MaxSteps: 2}, []rundoc.RateCell{pass(1), pass(2)})
	if !done || out.Stop != "all_passed" {
		t.Errorf("after max steps: done %v %+v", done, out)
	}
	next, _, _ := NextSearchRate(s, []rundoc.RateCell{fail(2)})
	if next != 1 {
		t.Errorf("after the start fails the search tries %v, want 1", next)
	}
	_, done, out = NextSearchRate(rundoc.RateSearch{Start: 1, MaxSteps: 2}, []rundoc.RateCell{fail(1), fail(0.5)})
	if !done || out.Stop != "none_passed" || out.MaxRateRPS != nil {
		t.Errorf("nothing passed: %+v", out)
	}
}
