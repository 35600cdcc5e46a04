package metric

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// Open-loop metrics (issue 16's rate cells, llmbench run --rate). A rate cell's
// figures depend on more than the server and the rate: the input and output lengths,
// how arrivals were spread, how lengths varied, a client cap on requests in flight, a
// shared prefix, how long a cell lasted (achieved and goodput rates divide by a span
// that includes the drain after the last arrival, so a short cell reads lower), and —
// for goodput — the SLO the requests were judged against. Two
// runs compare at a rate only when all of that is the same, so each value is stored
// under its conditions (run_metrics.cond, RateCond.Key) and a ranking names the
// conditions it ranks under: runs measured otherwise are simply not in it.

// Conditions says what a metric's values are keyed by besides the context and level.
type Conditions int

const (
	// NoConditions: matrix cells; the cell is all there is.
	NoConditions Conditions = iota
	// UnderWorkload: rate cells, under the workload (RateCond without an SLO).
	UnderWorkload
	// UnderSLO: and the SLO's latency targets (goodput, the share meeting them).
	UnderSLO
	// UnderSLOTarget: and the share of requests that must meet them (a search's
	// highest passing rate).
	UnderSLOTarget
)

func (c Conditions) String() string {
	switch c {
	case UnderWorkload:
		return "workload"
	case UnderSLO:
		return "slo"
	case UnderSLOTarget:
		return "slo_target"
	}
	return ""
}

// RateInf is the level of a rate "inf" cell (every request sent at once): the largest
// finite number, so that it sorts after every rate and survives both databases.
const RateInf = math.MaxFloat64

// Default workload of a ranking that names none: llmbench run --rate's defaults.
const (
	DefaultInputLen  = 1024
	DefaultOutputLen = 256
	DefaultDurationS = 30
	DefaultTarget    = rundoc.DefaultSLOTarget
)

// RateCond is the conditions an open-loop value was measured under, besides its input
// length (the value's context) and rate (its level).
type RateCond struct {
	OutputLen      int
	Arrival        string  // canonical (rundoc.Arrival.String): poisson, constant, gamma:B
	LenDist        string  // canonical (rundoc.LenDist.String): fixed, uniform:R, normal:R
	MaxConcurrency int     // client slots; 0: no cap
	PrefixShare    float64 // share of each prompt common to the cell's requests
	// Requests is how many requests a cell sent: the plan's --requests, or a rate inf
	// cell's burst; 0 when the plan scheduled arrivals for DurationS seconds instead.
	Requests  int
	DurationS float64
	// SLO holds the latency targets (its Target is left 0) for UnderSLO and
	// UnderSLOTarget; nil otherwise.
	SLO *rundoc.SLO
	// Target is the share that must meet them, for UnderSLOTarget; 0 otherwise.
	Target float64
}

// Key is the canonical text of the conditions, as stored in run_metrics.cond: the
// same conditions always give the same key, different ones different keys.
func (c RateCond) Key() string {
	parts := []string{"out=" + strconv.Itoa(c.OutputLen), "arrival=" + c.Arrival, "len=" + c.LenDist}
	if c.MaxConcurrency > 0 {
		parts = append(parts, "maxconc="+strconv.Itoa(c.MaxConcurrency))
	}
	if c.PrefixShare > 0 {
		parts = append(parts, "prefix="+formatFloat(c.PrefixShare))
	}
	if c.Requests > 0 {
		parts = append(parts, "requests="+strconv.Itoa(c.Requests))
	} else {
		parts = append(parts, "dur="+formatFloat(c.DurationS))
	}
	if c.SLO != nil {
		parts = append(parts, "slo="+SLOText(c.SLO))
	}
	if c.Target > 0 {
		parts = append(parts, "target="+formatFloat(c.Target))
	}
	return strings.Join(parts, ";")
}

// ParseCondKey reads a key Key wrote.
func ParseCondKey(key string) (RateCond, error) {
	var c RateCond
	for _, part := range strings.Split(key, ";") {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return c, fmt.Errorf("condition %q of %q: not name=value", part, key)
		}
		var err error
		switch k {
		case "out":
			c.OutputLen, err = strconv.Atoi(v)
		case "arrival":
			c.Arrival = v
		case "len":
			c.LenDist = v
		case "maxconc":
			c.MaxConcurrency, err = strconv.Atoi(v)
		case "prefix":
			c.PrefixShare, err = strconv.ParseFloat(v, 64)
		case "requests":
			c.Requests, err = strconv.Atoi(v)
		case "dur":
			c.DurationS, err = strconv.ParseFloat(v, 64)
		case "slo":
			c.SLO, err = ParseSLOText(v)
		case "target":
			c.Target, err = strconv.ParseFloat(v, 64)
		default:
			err = fmt.Errorf("unknown condition")
		}
		if err != nil {
			return c, fmt.Errorf("condition %q of %q: %w", part, key, err)
		}
	}
	return c, nil
}

// SLOText writes an SLO's latency targets as the site's URLs take them:
// "ttft:500ms,tpot:50ms" (its Target is not part of it).
func SLOText(s *rundoc.SLO) string {
	var parts []string
	add := func(name string, v *float64) {
		if v != nil {
			parts = append(parts, name+":"+formatFloat(*v)+"ms")
		}
	}
	add("ttft", s.TTFTMs)
	add("tpot", s.TPOTMs)
	add("e2e", s.E2EMs)
	return strings.Join(parts, ",")
}

// ParseSLOText reads latency targets as llmbench run --slo takes them
// ("ttft=500ms,tpot=50ms") or as URLs write them ("ttft:500ms,tpot:0.05s"); the
// result has no Target.
func ParseSLOText(s string) (*rundoc.SLO, error) {
	slo, err := rundoc.ParseSLO(strings.ReplaceAll(s, ":", "="), 1)
	if err != nil {
		return nil, err
	}
	slo.Target = 0
	return slo, nil
}

func formatFloat(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// rateWorkload is the conditions every open-loop value of r is measured under (before
// the SLO and, for rate inf, the request count); ok is false when the run has no plan
// of open-loop cells, or one whose arrival or length distribution cannot be read.
func rateWorkload(r *rundoc.Run) (RateCond, bool) {
	cfg := r.Config.Rate
	if cfg == nil || cfg.InputLen <= 0 || cfg.OutputLen <= 0 {
		return RateCond{}, false
	}
	arr, err := rundoc.ParseArrival(cfg.Arrival)
	if err != nil {
		return RateCond{}, false
	}
	dist, err := rundoc.ParseLenDist(cfg.LenDist)
	if err != nil {
		return RateCond{}, false
	}
	c := RateCond{OutputLen: cfg.OutputLen, Arrival: arr.String(), LenDist: dist.String(),
		MaxConcurrency: max(cfg.MaxConcurrency, 0), PrefixShare: max(cfg.PrefixShare, 0), Requests: max(cfg.Requests, 0)}
	if c.Requests == 0 {
		c.DurationS = r.Config.DurationS
	}
	return c, true
}

// RunConditions is everything an open-loop run's cells were measured under: the
// workload of its plan, and its SLO with the target when it has one (for a page that
// says how two runs' conditions differ); ok is false when the run has no readable plan.
func RunConditions(r *rundoc.Run) (c RateCond, inputLen int, ok bool) {
	w, ok := rateWorkload(r)
	if !ok {
		return RateCond{}, 0, false
	}
	if s := r.Config.Rate.SLO; s != nil {
		w.SLO, w.Target = latencyTargets(s), s.Target
	}
	return w, r.Config.Rate.InputLen, true
}

// latencyTargets is an SLO's latency targets without its target share (RateCond.SLO).
func latencyTargets(s *rundoc.SLO) *rundoc.SLO {
	return &rundoc.SLO{TTFTMs: s.TTFTMs, TPOTMs: s.TPOTMs, E2EMs: s.E2EMs}
}

// under narrows the workload to what a metric's values depend on; ok is false when
// the metric needs an SLO (or its target) the run was not judged against.
func under(w RateCond, cfg *rundoc.RateConfig, c Conditions) (RateCond, bool) {
	if c >= UnderSLO {
		s := cfg.SLO
		if s == nil || (s.TTFTMs == nil && s.TPOTMs == nil && s.E2EMs == nil) {
			return w, false
		}
		w.SLO = latencyTargets(s)
	}
	if c >= UnderSLOTarget {
		if !(cfg.SLO.Target > 0 && cfg.SLO.Target <= 1) {
			return w, false
		}
		w.Target = cfg.SLO.Target
	}
	return w, true
}

// rateValues reads one figure of every valid (or predicted) rate cell, at the run's
// input length and the cell's rate, under the conditions c names. A rate inf cell is
// keyed by how many requests it sent at once (it has no schedule to last for).
func rateValues(c Conditions, figure func(*rundoc.RateFigures) *float64) func(*rundoc.Run) []CellValue {
	return func(r *rundoc.Run) []CellValue {
		w, ok := rateWorkload(r)
		if !ok {
			return nil
		}
		cond, ok := under(w, r.Config.Rate, c)
		if !ok {
			return nil
		}
		var out []CellValue
		for _, cell := range r.Rate {
			f := cell.RateFigures
			if f == nil || (cell.Status != rundoc.StatusValid && cell.Status != rundoc.StatusPredicted) {
				continue
			}
			v := figure(f)
			if v == nil {
				continue
			}
			cc, level := cond, float64(cell.RateRPS)
			if cell.RateRPS.IsInf() {
				cc.Requests, cc.DurationS, level = f.Requests, 0, RateInf
			}
			out = append(out, CellValue{Context: r.Config.Rate.InputLen, Level: level, Cond: cc.Key(), Value: *v})
		}
		return out
	}
}

// maxRateValue is a --find-max-rate search's answer at the run's input length: only a
// search that bracketed the edge (a passing rate below a failing one) has a highest
// rate; one that never failed only knows a lower bound, and ranking that as a maximum
// would be wrong.
func maxRateValue(r *rundoc.Run) []CellValue {
	m := r.MaxRate
	if m == nil || m.MaxRateRPS == nil || m.FailedRPS == nil || m.Stop == "all_passed" || m.Stop == "none_passed" {
		return nil
	}
	w, ok := rateWorkload(r)
	if !ok {
		return nil
	}
	cond, ok := under(w, r.Config.Rate, UnderSLOTarget)
	if !ok {
		return nil
	}
	return []CellValue{{Context: r.Config.Rate.InputLen, Cond: cond.Key(), Value: *m.MaxRateRPS}}
}

func p50(s rundoc.LatencyStats) *float64 { return s.P50 }
func p90(s rundoc.LatencyStats) *float64 { return s.P90 }
