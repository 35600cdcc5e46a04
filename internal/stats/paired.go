package stats

import "math"

// Paired proportions: two runs that answered the same items, each item right or wrong
// in each. The counts are the 2×2 table of pairs: both right (a), only the first
// right (b), only the second right (c), both wrong (d).

// McNemarExact is the exact McNemar test's two-sided p-value for b and c discordant
// pairs: under "both runs are equally accurate" each discordant pair is a fair coin, so
// min(b, c) follows Binomial(b+c, ½) and p = 2·P(B ≤ min(b, c)), at most 1 [McNemar
// 1947; the exact form: Fagerland, Lydersen & Laake 2013]. No discordant pair: p = 1.
func McNemarExact(b, c int) float64 {
	n := b + c
	if n <= 0 || b < 0 || c < 0 {
		return 1
	}
	return math.Min(1, 2*binomCDF(min(b, c), n, 0.5))
}

// PairedDifference is the 95% interval of the second run's accuracy minus the
// first's, (c − b)/n, over n = a+b+c+d pairs: Newcombe's hybrid score interval for
// paired proportions (method 10 of Newcombe 1998, Statistics in Medicine 17:2635),
// which combines each run's Wilson interval with the pairs' correlation φ, its
// result the mirror of Fagerland, Lydersen & Laake's Newcombe_square_and_add_CI_paired_2x2. It stays
// inside [−1, 1] and, unlike the Wald interval, is sensible with few discordant pairs.
func PairedDifference(a, b, c, d int) (Interval, bool) {
	n := a + b + c + d
	if n <= 0 || a < 0 || b < 0 || c < 0 || d < 0 {
		return Interval{}, false
	}
	// p1 is the first run's accuracy, p2 the second's; the interval is for p2 − p1.
	nf := float64(n)
	w1, _ := Wilson(a+b, n)
	w2, _ := Wilson(a+c, n)
	p1, p2 := float64(a+b)/nf, float64(a+c)/nf
	// φ with Newcombe's continuity correction: a positive ad − bc is reduced by n/2
	// (to no less than 0), a negative one kept (as Newcombe 1998 and Fagerland,
	// Lydersen & Laake's contingencytables do).
	phi := 0.0
	if den := float64(a+b) * float64(c+d) * float64(a+c) * float64(b+d); den > 0 {
		switch ad := float64(a)*float64(d) - float64(b)*float64(c); {
		case ad > nf/2:
			phi = (ad - nf/2) / math.Sqrt(den)
		case ad < 0:
			phi = ad / math.Sqrt(den)
		}
	}
	delta := p2 - p1
	// Newcombe's formula is for p1 − p2; the interval of p2 − p1 is its mirror.
	lo := (p1 - p2) - math.Sqrt(sq(p1-w1.Low)-2*phi*(p1-w1.Low)*(w2.High-p2)+sq(w2.High-p2))
	hi := (p1 - p2) + math.Sqrt(sq(w1.High-p1)-2*phi*(w1.High-p1)*(p2-w2.Low)+sq(p2-w2.Low))
	iv := Interval{Low: math.Max(-1, -hi), High: math.Min(1, -lo)}
	// Rounding can leave the point a hair outside when an interval collapses (b = c = 0).
	iv.Low, iv.High = math.Min(iv.Low, delta), math.Max(iv.High, delta)
	return iv, true
}

func sq(x float64) float64 { return x * x }
