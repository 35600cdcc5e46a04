package openloop

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// drawLen returns one length around nominal.
func drawLen(d rundoc.LenDist, rng *rand.Rand, nominal int) int {
	l := float64(nominal)
	var v float64
	switch d.Kind {
	case "uniform":
		// The whole numbers inside [L(1−R), L(1+R)]; the epsilon absorbs 1000 × 0.2
		// coming out as 199.99999.
		lo, hi := math.Ceil(l*(1-d.Ratio)-1e-9), math.Floor(l*(1+d.Ratio)+1e-9)
		v = lo + math.Floor(rng.Float64()*(hi-lo+1))
	case "normal":
		v = math.Round(l + rng.NormFloat64()*d.Ratio*l)
		v = math.Min(v, 2*l)
	default:
		v = l
	}
	return max(1, int(v))
}

// RatePlan is everything a rate cell sends, decided before the first request: when
// each request is scheduled (an offset from the cell's start) and how long its prompt
// and output are. It depends only on its inputs, so a seed reproduces it.
type RatePlan struct {
	Rate    rundoc.Rate
	Arrival rundoc.Arrival
	Seed    uint64
	Offsets []time.Duration // ascending; all zero for rate inf
	Input   []int           // prompt tokens asked of each request
	Output  []int           // output tokens asked of each request
}

// PlanRate draws a cell's schedule and lengths. With requests > 0 it schedules that
// many; otherwise the arrivals that fall inside duration (the first at 0). Rate inf
// needs requests > 0: without a schedule there is no window to fill.
func PlanRate(rate rundoc.Rate, arr rundoc.Arrival, dist rundoc.LenDist, inputLen, outputLen int, duration time.Duration, requests int, seed uint64) (*RatePlan, error) {
	if rate.IsInf() && requests <= 0 {
		return nil, fmt.Errorf("rate inf needs a request count")
	}
	if !rate.IsInf() && !(rate > 0) {
		return nil, fmt.Errorf("rate %v is not positive", rate)
	}
	p := &RatePlan{Rate: rate, Arrival: arr, Seed: seed}
	// Independent streams for gaps and lengths: changing --len-dist does not move
	// the arrivals.
	gaps := rand.New(rand.NewPCG(seed, 0x61727269766c))
	lens := rand.New(rand.NewPCG(seed, 0x6c656e67746873))
	var t time.Duration
	for i := 0; ; i++ {
		if requests > 0 && i >= requests {
			break
		}
		if requests <= 0 && t >= duration {
			break
		}
		p.Offsets = append(p.Offsets, t)
		p.Input = append(p.Input, drawLen(dist, lens, inputLen))
		p.Output = append(p.Output, drawLen(dist, lens, outputLen))
		if !rate.IsInf() {
			t += time.Duration(arrivalGap(arr, gaps, float64(rate)) * float64(time.Second))
		}
	}
	return p, nil
}

// arrivalGap draws the time to the next arrival, in seconds.
func arrivalGap(a rundoc.Arrival, rng *rand.Rand, rate float64) float64 {
	switch a.Kind {
	case "constant":
		return 1 / rate
	case "gamma":
		// Mean 1/rate whatever the shape: scale = 1 / (rate · shape), as vLLM draws it.
		return gammaDraw(rng, a.Burstiness) / (rate * a.Burstiness)
	default:
		return rng.ExpFloat64() / rate
	}
}

// gammaDraw samples Gamma(shape, 1) by Marsaglia and Tsang's method (shape < 1 is
// boosted from shape + 1).
func gammaDraw(rng *rand.Rand, shape float64) float64 {
	if shape < 1 {
		u := rng.Float64()
		for u == 0 {
			u = rng.Float64()
		}
		return gammaDraw(rng, shape+1) * math.Pow(u, 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// CellSeed derives a cell's seed from the run's seed and its rate, so that a rate
// measured twice (a search revisiting it, a resumed run) gets the same schedule, and
// different rates get unrelated ones.
func CellSeed(runSeed int64, rate rundoc.Rate) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s", runSeed, rate)
	return h.Sum64()
}
