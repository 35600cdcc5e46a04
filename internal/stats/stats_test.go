package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestTQuantile(t *testing.T) {
	// Reference values: R's qt(0.975, df).
	for _, c := range []struct {
		df   int
		want float64
	}{{1, 12.7062}, {4, 2.7764}, {30, 2.0423}, {40, 2.0211}, {100, 1.9840}, {1000, 1.9623}} {
		if got := TQuantile(c.df); math.Abs(got-c.want) > 2e-4 {
			t.Errorf("TQuantile(%d) = %.5f, want %.4f", c.df, got, c.want)
		}
	}
}

func TestQuantileRanks(t *testing.T) {
	// The textbook ranks for the median's 95% interval (Conover, table A3).
	for _, c := range []struct{ n, l, u int }{{6, 1, 6}, {10, 2, 9}, {20, 6, 15}, {30, 10, 21}} {
		l, u, ok := quantileRanks(c.n, 0.5)
		if !ok || l != c.l || u != c.u {
			t.Errorf("median ranks of %d: %d, %d, %v; want %d, %d", c.n, l, u, ok, c.l, c.u)
		}
	}
	if _, _, ok := quantileRanks(5, 0.5); ok {
		t.Error("5 samples cannot cover the median at 95%, yet ranks were found")
	}
	if _, _, ok := quantileRanks(40, 0.99); ok {
		t.Error("40 samples cannot bound a p99, yet ranks were found")
	}
}

// TestQuantileCICoverage draws skewed samples of a known quantile and counts how
// often the interval holds it: near 95%, never far below.
func TestQuantileCICoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		n int
		q float64
	}{{9, 0.5}, {40, 0.5}, {200, 0.9}, {2000, 0.99}, {3000, 0.5}} {
		truth := -math.Log(1 - c.q) // exponential(1)
		hits, trials := 0, 600
		for range trials {
			v := make([]float64, c.n)
			for i := range v {
				v[i] = rng.ExpFloat64()
			}
			slices.Sort(v)
			iv, ok := QuantileCI(v, c.q)
			if !ok {
				t.Fatalf("n=%d q=%g: no interval", c.n, c.q)
			}
			if iv.Contains(truth) {
				hits++
			}
		}
		if share := float64(hits) / float64(trials); share < 0.925 || share > 0.99 {
			t.Errorf("n=%d q=%g: coverage %.3f, want about 0.95", c.n, c.q, share)
		}
	}
}

func TestBatchMeansCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	hits, trials := 0, 2000
	for range trials {
		v := make([]float64, 5)
		for i := range v {
			v[i] = 100 + 10*rng.NormFloat64()
		}
		if iv, ok := BatchMeans(v); ok && iv.Contains(100) {
			hits++
		}
	}
	if share := float64(hits) / float64(trials); share < 0.93 || share > 0.97 {
		t.Errorf("coverage %.3f of 5 normal batches, want 0.95", share)
	}
	if _, ok := BatchMeans([]float64{1, 2}); ok {
		t.Error("two batches gave an interval")
	}
}

func TestWilson(t *testing.T) {
	// Reference: Brown, Cai & DasGupta's example, 3 of 10 → [0.108, 0.603].
	iv, ok := Wilson(3, 10)
	if !ok || math.Abs(iv.Low-0.1078) > 1e-3 || math.Abs(iv.High-0.6032) > 1e-3 {
		t.Errorf("Wilson(3, 10) = %+v", iv)
	}
	if iv, _ := Wilson(10, 10); iv.High != 1 || iv.Low < 0.69 || iv.Low > 0.73 {
		t.Errorf("Wilson(10, 10) = %+v, want [0.72, 1]", iv)
	}
}

func TestIntervalRoundNeverNarrows(t *testing.T) {
	iv := Interval{Low: 47.1234, High: 48.9871}.Round(1)
	if iv.Low != 47.1 || iv.High != 49.0 {
		t.Errorf("Round = %+v, want [47.1, 49.0]", iv)
	}
	inv, ok := Interval{Low: 40, High: 50}.Invert(1000)
	if !ok || inv.Low != 20 || inv.High != 25 {
		t.Errorf("Invert = %+v", inv)
	}
}

// TestShift: the step of a sequence is found where it is, with the two levels and a
// t from their pooled spread worked out by hand; a flat sequence has no step; one too
// short to split is not judged.
func TestShift(t *testing.T) {
	v := []float64{10, 11, 9, 10, 6, 7, 5, 6}
	at, before, after, tt, ok := Shift(v, 3)
	// Sides {10,11,9,10} and {6,7,5,6}: means 10 and 6, each side's variance 2/3, pooled
	// sd √(2/3), standard error √(2/3)·√(1/4+1/4) = 0.5774: t = 4 / 0.5774 = 6.93.
	if !ok || at != 4 || before != 10 || after != 6 || math.Abs(tt-4/math.Sqrt(1.0/3)) > 1e-9 {
		t.Errorf("Shift = %d, %g, %g, %g, %v; want 4, 10, 6, 6.93", at, before, after, tt, ok)
	}
	if _, _, _, tt, ok := Shift([]float64{5, 5, 5, 5, 5, 5}, 3); !ok || tt != 0 {
		t.Errorf("a flat sequence: t %g, ok %v; want 0", tt, ok)
	}
	if _, _, _, tt, _ := Shift([]float64{5, 5, 5, 4, 4, 4}, 3); !math.IsInf(tt, 1) {
		t.Errorf("two exact levels: t %g, want +Inf", tt)
	}
	if _, _, _, _, ok := Shift([]float64{1, 2, 3, 4, 5}, 3); ok {
		t.Error("five values split three and three")
	}
}
