package stats

import (
	"math"
	"testing"
)

// TestMcNemarExact: 12 and 3 discordant pairs (issue 38's case): p = 2·P(B ≤ 3),
// B ~ Binomial(15, ½) = 2·(1 + 15 + 105 + 455)/32768 = 0.03515625.
func TestMcNemarExact(t *testing.T) {
	for _, c := range []struct {
		b, c int
		want float64
	}{
		{12, 3, 1152.0 / 32768},
		{3, 12, 1152.0 / 32768},
		{0, 0, 1},
		{5, 5, 1},           // 2·P(B ≤ 5 | n=10) = 2·638/1024 > 1 → 1
		{0, 6, 2.0 / 64},    // 2·(½)^6
		{10, 0, 2.0 / 1024}, // 2·(½)^10
	} {
		if got := McNemarExact(c.b, c.c); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("McNemarExact(%d, %d) = %v, want %v", c.b, c.c, got, c.want)
		}
	}
	if got := McNemarExact(12, 3); math.Round(got*1e4)/1e4 != 0.0352 {
		t.Errorf("McNemarExact(12, 3) = %v, not 0.0352 at four places", got)
	}
}

// TestPairedDifference checks Newcombe's hybrid score interval against the value
// Fagerland, Lydersen & Laake's R package contingencytables prints for the Cavo et al.
// (2012) table (tests/testthat/test-ch8.R: Newcombe_square_and_add_CI_paired_2x2 of
// [59 6; 16 80] gives −0.0621, 95% CI −0.1186 to −0.0046). Their difference is the
// first margin minus the second; this package's is second minus first: the mirror.
func TestPairedDifference(t *testing.T) {
	iv, ok := PairedDifference(59, 6, 16, 80)
	if !ok || math.Abs(iv.Low-0.0046) > 5e-5 || math.Abs(iv.High-0.1186) > 5e-5 {
		t.Errorf("PairedDifference(59, 6, 16, 80) = %+v, want [0.0046, 0.1186]", iv)
	}
	// Swapping the runs mirrors the interval.
	m, _ := PairedDifference(59, 16, 6, 80)
	if math.Abs(m.Low+iv.High) > 1e-12 || math.Abs(m.High+iv.Low) > 1e-12 {
		t.Errorf("swapped runs: %+v, want the mirror of %+v", m, iv)
	}
	// No discordant pair: the point is 0 and inside.
	if z, _ := PairedDifference(50, 0, 0, 50); !z.Contains(0) || z.Low >= 0 || z.High <= 0 {
		t.Errorf("no discordant pair: %+v should straddle 0", z)
	}
	if _, ok := PairedDifference(0, 0, 0, 0); ok {
		t.Error("no pairs gave an interval")
	}
}
