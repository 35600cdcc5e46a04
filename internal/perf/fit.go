package perf

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// Kinds is every kind of evidence, in the order tables list them.
var Kinds = []string{"decode", "prefill", "request", "batch", "ttft", "throughput"}

// FamilyFit is the fit of one engine family and the error of every row.
type FamilyFit struct {
	Family string
	Eff    Efficiency
	Rows   []RowError
}

// RowError is a measurement beside the model's prediction: in-sample (fitted with the
// row), leave-one-out (fitted without it) and leave-one-source-out (fitted without any
// row of its origin, with LOSOFamily's factors: its own family's where other origins
// have rows of it, else the nearest family that does).
type RowError struct {
	Measurement
	Predicted     float64
	Err           float64 // (predicted − measured) / measured
	PredictedLOO  float64
	ErrLOO        float64
	PredictedLOSO float64
	ErrLOSO       float64
	LOSOFamily    string
}

// param is one fitted factor: how to read and set it, its bounds, and whether the
// rows of a fit can identify it at all.
type param struct {
	name     string
	get      func(*Efficiency) *float64
	lo, hi   float64
	start    float64
	needKind func(rowModel) bool
	// needRows, where set, decides from all the fit's rows whether they identify the
	// factor (needKind asks one row at a time).
	needRows func([]rowModel) bool
	// pooledOnly factors are fitted once, to every row of every family together, and
	// every family takes the pooled value: they describe all engines alike.
	pooledOnly bool
}

// stepParams are the factors of a step's time; firstTokenParams those only a warm
// first token adds.
var (
	stepParams       = allParams[:len(allParams)-2]
	firstTokenParams = allParams[len(allParams)-2:]
)

// allParams are every fitted factor, the first-token ones last.
var allParams = []param{
	{name: "bandwidth", get: func(e *Efficiency) *float64 { return &e.Bandwidth }, lo: 0.2, hi: MaxBandwidthEfficiency, start: 0.8},
	{name: "compute", get: func(e *Efficiency) *float64 { return &e.Compute }, lo: 0.05, hi: 1, start: 0.5},
	{name: "attention_compute", get: func(e *Efficiency) *float64 { return &e.AttentionCompute }, lo: 0.02, hi: 1, start: 0.3,
		needKind: func(r rowModel) bool { return r.m.Context >= longPrompt && r.m.Kind != "decode" && r.m.Kind != "batch" }},
	{name: "no_overlap", get: func(e *Efficiency) *float64 { return &e.NoOverlap }, lo: 0, hi: 1, start: 0.5},
	{name: "overhead_per_layer_us", get: func(e *Efficiency) *float64 { return &e.OverheadPerLayerUs }, lo: 0, hi: 1000, start: 20},
	{name: "dequant_compute", get: func(e *Efficiency) *float64 { return &e.DequantCompute }, lo: 0.1, hi: 2, start: 1,
		needKind: func(r rowModel) bool { return r.dequantized && computeKind(r.m.Kind) }},
	{name: "expert_compute", get: func(e *Efficiency) *float64 { return &e.ExpertCompute }, lo: 0.05, hi: 1, start: 0.5,
		needKind: func(r rowModel) bool { return r.moe && computeKind(r.m.Kind) }},
	{name: "overhead_per_expert_us", get: func(e *Efficiency) *float64 { return &e.OverheadPerExpertUs }, lo: 0, hi: 200, start: 5,
		needKind: func(r rowModel) bool { return r.moe }},
	{name: "age_slowdown_per_year", get: func(e *Efficiency) *float64 { return &e.AgeSlowdownPerYear }, lo: 0, hi: 3, start: 0.3,
		needRows: datedSpread, pooledOnly: true},
	{name: "overhead_per_seq_us", get: func(e *Efficiency) *float64 { return &e.OverheadPerSeqUs }, lo: 0, hi: 2000, start: 10,
		needKind: func(r rowModel) bool { return r.m.concurrency() > 1 }},
	{name: "api_latency_ms", get: func(e *Efficiency) *float64 { return &e.APILatencyMs }, lo: 0, hi: 500, start: 10,
		needKind: func(r rowModel) bool { return r.m.Kind == "ttft" }},
	{name: "cached_context_us_per_token", get: func(e *Efficiency) *float64 { return &e.CachedContextUsPerToken }, lo: 0, hi: 200, start: 5,
		needKind: func(r rowModel) bool { return r.m.Kind == "ttft" && r.m.Context > 0 }},
}

// minAgeSpreadYears is the spread of engine dates a fit's rows need before they can
// tell an older build's slowdown from the other factors.
const minAgeSpreadYears = 0.25

// datedSpread says the rows' engine dates span at least minAgeSpreadYears.
func datedSpread(rows []rowModel) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		if r.year > 0 {
			lo, hi = math.Min(lo, r.year), math.Max(hi, r.year)
		}
	}
	return hi-lo >= minAgeSpreadYears
}

// newestDate is the newest engine date of the rows, "YYYY-MM" ("" when none has one).
func newestDate(rows []rowModel) string {
	best, date := 0.0, ""
	for _, r := range rows {
		if r.year > best {
			best, date = r.year, r.m.EngineDate
		}
	}
	return date
}

// computeKind says a kind of evidence has steps of many tokens, whose GEMMs run at
// the compute rate (prefill, long requests, throughput runs); batch-1 decode is
// memory-bound and cannot identify a GEMM efficiency.
func computeKind(kind string) bool {
	return kind == "prefill" || kind == "request" || kind == "throughput"
}

// longPrompt is the prompt from which attention is a visible share of a prefill's
// work; only rows with prompts this long identify the attention efficiency.
const longPrompt = 8192

// priorWeight is how strongly a family's factors are pulled towards the pooled fit
// of every family, per factor: about what one row's 15% error weighs, so that a family
// with many rows follows its rows and one with few borrows the others' factors.
const priorWeight = 0.02

// objective is the sum of squared log errors over rows (a 10% miss either way weighs
// about the same), plus the pull towards prior when one is given.
func objective(rows []rowModel, e Efficiency, prior *Efficiency) float64 {
	var sum float64
	for _, r := range rows {
		p := r.predictAged(e)
		if !(p > 0) || math.IsInf(p, 0) {
			return math.Inf(1)
		}
		d := math.Log(p / r.m.Value())
		sum += d * d
	}
	if prior != nil {
		for _, p := range allParams {
			a, b := *p.get(&e), *p.get(prior)
			d := math.Log((a + p.lo + 0.01*(p.hi-p.lo)) / (b + p.lo + 0.01*(p.hi-p.lo)))
			sum += priorWeight * d * d
		}
	}
	return sum
}

// fitFactors fits the factors in two stages: the step's factors to every row but the
// warm first tokens, then the first-token factors (API latency, cached-context time)
// to the ttft rows with the step's factors held, so that what only first tokens show
// cannot bend the kernels' efficiencies. A family without ttft rows has no
// first-token factors.
func fitFactors(rows []rowModel, start, prior *Efficiency) Efficiency {
	var steps, firsts []rowModel
	for _, r := range rows {
		if r.m.Kind == "ttft" {
			firsts = append(firsts, r)
		} else {
			steps = append(steps, r)
		}
	}
	through := newestDate(rows)
	e := fitStage(steps, start, prior, stepParams, through)
	if len(firsts) == 0 {
		// No warm first token of this family was measured: it gets the GPU terms
		// alone, not another engine's server costs.
		for _, p := range firstTokenParams {
			*p.get(&e) = 0
		}
		return e
	}
	return fitStage(firsts, &e, prior, firstTokenParams, through)
}

// fitStage fits the factors of params to rows by coordinate descent within each
// factor's bounds, starting from start (or the defaults); the other factors keep
// start's values. A factor no row can identify (no concurrent rows for the
// per-sequence overhead, no long prompt for the attention efficiency, no cached
// context for its time) keeps the prior's value, or 0.
func fitStage(rows []rowModel, start, prior *Efficiency, params []param, through string) Efficiency {
	var e Efficiency
	if start != nil {
		e = *start
	}
	var free []param
	e.EvidenceThrough = through
	for _, p := range params {
		identified := p.needKind == nil && p.needRows == nil
		if p.needRows != nil {
			identified = p.needRows(rows)
		}
		if p.pooledOnly && prior != nil {
			identified = false
		}
		for _, r := range rows {
			if p.needKind != nil && p.needKind(r) {
				identified = true
				break
			}
		}
		switch {
		case !identified && prior != nil:
			*p.get(&e) = *p.get(prior)
		case !identified:
			*p.get(&e) = 0
		case start != nil:
			*p.get(&e) = *p.get(start)
			free = append(free, p)
		default:
			*p.get(&e) = p.start
			free = append(free, p)
		}
	}
	if start != nil {
		return descend(rows, e, free, prior, 1.0/16)
	}
	// A fresh fit starts from a few corners of the roofline's shape (memory-bound with
	// and without overlap, a slower memory) and keeps the best: the objective has more
	// than one valley.
	best, bestObj := e, math.Inf(1)
	for _, corner := range [][2]float64{{0.8, 0.5}, {0.9, 0}, {0.9, 1}, {0.5, 0.5}} {
		c := e
		c.Bandwidth, c.NoOverlap = corner[0], corner[1]
		got := descend(rows, c, free, prior, 1.0/4)
		if o := objective(rows, got, prior); o < bestObj {
			best, bestObj = got, o
		}
	}
	return best
}

// descend is coordinate descent on the free factors from e, with first steps of
// stepShare of each factor's range, halved until they are a 1e-5 share.
func descend(rows []rowModel, e Efficiency, free []param, prior *Efficiency, stepShare float64) Efficiency {
	best := objective(rows, e, prior)
	steps := make([]float64, len(free))
	for i, p := range free {
		steps[i] = (p.hi - p.lo) * stepShare
	}
	for iter := 0; iter < 200; iter++ {
		improved := false
		for i, p := range free {
			v := p.get(&e)
			for _, dir := range []float64{1, -1} {
				old := *v
				*v = math.Min(p.hi, math.Max(p.lo, old+dir*steps[i]))
				if o := objective(rows, e, prior); o < best-1e-12 {
					best, improved = o, true
					break
				}
				*v = old
			}
		}
		if !improved {
			done := true
			for i, p := range free {
				steps[i] /= 2
				if steps[i] > (p.hi-p.lo)*1e-5 {
					done = false
				}
			}
			if done {
				break
			}
		}
	}
	return e
}

// fitFamilies fits the pooled factors of all rows, then each kernel group's (engines
// that share their GEMM and attention kernels: groupOf) with the pooled ones as prior,
// then each family's with its group's as prior. Only single-GPU rows are fitted: the
// factors describe an engine's kernels on one GPU, and multi-GPU rows are predicted
// with them, which tests the tensor-parallel terms out of sample.
func fitFamilies(byFam map[string][]rowModel) fitSet {
	var all []rowModel
	single := map[string][]rowModel{}
	byGroup := map[string][]rowModel{}
	// In a fixed order, so that the sums of the objective, and so the fit, do not
	// depend on map iteration.
	names := make([]string, 0, len(byFam))
	for f := range byFam {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		for _, r := range byFam[f] {
			if r.m.GPUs <= 1 {
				single[f] = append(single[f], r)
				byGroup[r.group] = append(byGroup[r.group], r)
				all = append(all, r)
			}
		}
	}
	set := fitSet{pooled: fitFactors(all, nil, nil), groups: map[string]Efficiency{}, fams: map[string]Efficiency{}, groupOf: map[string]string{}}
	for g, rows := range byGroup {
		prior := kernelPrior(set.pooled, rows)
		set.groups[g] = fitFactors(rows, &prior, &prior)
	}
	for f, rows := range single {
		if len(rows) > 0 {
			prior := set.groups[rows[0].group]
			set.fams[f] = fitFactors(rows, &prior, &prior)
		}
	}
	for f, rows := range byFam {
		if len(rows) > 0 {
			set.groupOf[f] = rows[0].group
		}
	}
	return set
}

// kernelFactors are the factors that describe one kernel group's own kernels (its
// dequantizing GEMMs, its MoE expert GEMMs and per-expert work), with the value a
// group takes whose rows cannot identify one: that of its dense kernels (a GEMM
// efficiency of 1, no work per expert beyond the expert's bytes and FLOPs). Another
// group's value says nothing about them.
var kernelFactors = map[string]float64{"dequant_compute": 1, "expert_compute": 1, "overhead_per_expert_us": 0}

// kernelPrior is the pooled fit as a kernel group's prior, with each kernel factor the
// group's rows cannot identify set to its dense kernels' value (kernelFactors) instead
// of the pooled value, which other groups' kernels decide: SGLang's fused MoE kernels
// left out by source would otherwise borrow llama.cpp's expert GEMM factor.
func kernelPrior(pooled Efficiency, rows []rowModel) Efficiency {
	for _, p := range allParams {
		neutral, ok := kernelFactors[p.name]
		if !ok {
			continue
		}
		identified := false
		for _, r := range rows {
			if p.needKind(r) {
				identified = true
				break
			}
		}
		if !identified {
			*p.get(&pooled) = neutral
		}
	}
	return pooled
}

// fitSet is one fit of every level: the pooled factors, each kernel group's and each
// family's.
type fitSet struct {
	pooled  Efficiency
	groups  map[string]Efficiency
	fams    map[string]Efficiency
	groupOf map[string]string
}

// singleGPU are the rows a fit uses.
func singleGPU(rows []rowModel) []rowModel {
	var out []rowModel
	for _, r := range rows {
		if r.m.GPUs <= 1 {
			out = append(out, r)
		}
	}
	return out
}

// factorsFor are the factors that predict rows of family f (of kernel group g) and
// where they come from: the family's own where the fit has rows of it, else the same
// family of the current generation (f without @generation), else the fit of its
// kernel group (the engines sharing its kernels, on every vendor), else the pooled
// factors.
func (s fitSet) factorsFor(f, g string) (Efficiency, string) {
	base := f
	if i := strings.IndexByte(f, '@'); i >= 0 {
		base = f[:i]
	}
	for _, cand := range []string{f, base} {
		if e, ok := s.fams[cand]; ok {
			return e, cand
		}
	}
	if e, ok := s.groups[g]; ok {
		return e, GroupPrefix + g
	}
	return s.pooled, PooledFamily
}

// PooledFamily names the factors fitted to every row of every family together; it
// stands in where a family has no evidence.
const PooledFamily = "pooled"

// GroupPrefix names a kernel group's factors (group:tensor, group:vector) where they
// stand in for a family with no rows left.
const GroupPrefix = "group:"

// groupOf is the kernel group of an engine: engines whose small-batch GEMMs run on
// tensor cores (vLLM, SGLang: cuBLAS/CUTLASS GEMMs, Marlin for GPTQ/AWQ/W4A16,
// FlashAttention/FlashInfer) and those with matrix-vector kernels (llama.cpp's ggml
// on every backend) share most kernels, so a family with little evidence borrows its
// group's factors before the pooled ones.
func groupOf(e Engine) string {
	if e.SmallBatchGEMM == "" {
		return "vector"
	}
	return e.SmallBatchGEMM
}

var (
	fitOnce   sync.Once
	fitResult []FamilyFit
	fitErr    error
)

// Fit fits every engine family's efficiency factors to the catalog's measurements and
// reports each row's error in-sample, leave-one-out and leave-one-source-out. The
// embedded catalog's fit is computed once per process.
func (c *Catalog) Fit() ([]FamilyFit, error) {
	if c == catalog {
		fitOnce.Do(func() { fitResult, fitErr = c.fit() })
		return fitResult, fitErr
	}
	return c.fit()
}

func (c *Catalog) fit() ([]FamilyFit, error) {
	byFam := map[string][]rowModel{}
	var all []rowModel
	for _, m := range c.Measurements {
		r, err := c.rowModel(m)
		if err != nil {
			return nil, fmt.Errorf("measurement %s %s %s %s: %w", m.GPU, m.Model, m.Quant, m.Test, err)
		}
		byFam[r.family] = append(byFam[r.family], r)
		all = append(all, r)
	}
	set := fitFamilies(byFam)
	pooled, fams := set.pooled, set.fams
	loso := c.leaveOneSourceOut(all)

	names := make([]string, 0, len(byFam))
	for f := range byFam {
		names = append(names, f)
	}
	sort.Strings(names)
	var out []FamilyFit
	for _, fam := range names {
		rows, eff := byFam[fam], fams[fam]
		ff := FamilyFit{Family: fam}
		for i, r := range rows {
			re := RowError{Measurement: r.m, Predicted: r.predictAged(eff)}
			re.Err = relErr(re.Predicted, r.m.Value())
			loo := eff
			if r.m.GPUs <= 1 {
				rest := append(append([]rowModel(nil), rows[:i]...), rows[i+1:]...)
				prior := set.groups[r.group]
				loo = fitFactors(singleGPU(rest), &eff, &prior)
			}
			re.PredictedLOO = r.predictAged(loo)
			re.ErrLOO = relErr(re.PredictedLOO, r.m.Value())
			var le Efficiency
			le, re.LOSOFamily = loso[r.m.Origin].factorsFor(fam, r.group)
			re.PredictedLOSO = r.predictAged(le)
			re.ErrLOSO = relErr(re.PredictedLOSO, r.m.Value())
			ff.Rows = append(ff.Rows, re)
		}
		ff.Eff = summarize(fam, eff, ff.Rows)
		out = append(out, ff)
	}
	groups := make([]string, 0, len(set.groups))
	for g := range set.groups {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	for _, g := range groups {
		out = append(out, FamilyFit{Family: GroupPrefix + g, Eff: summarize(GroupPrefix+g, set.groups[g], nil)})
	}
	out = append(out, FamilyFit{Family: PooledFamily, Eff: summarize(PooledFamily, pooled, nil)})
	return out, nil
}

// leaveOneSourceOut fits every level without each origin's rows in turn.
func (c *Catalog) leaveOneSourceOut(all []rowModel) map[string]fitSet {
	origins := map[string]bool{}
	for _, r := range all {
		origins[r.m.Origin] = true
	}
	out := make(map[string]fitSet, len(origins))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for o := range origins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			byFam := map[string][]rowModel{}
			for _, r := range all {
				if r.m.Origin != o {
					byFam[r.family] = append(byFam[r.family], r)
				}
			}
			set := fitFamilies(byFam)
			mu.Lock()
			out[o] = set
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

func relErr(pred, meas float64) float64 { return (pred - meas) / meas }

// summarize rounds a family's factors and records its errors per kind.
func summarize(fam string, eff Efficiency, rows []RowError) Efficiency {
	eff.Bandwidth = roundTo(eff.Bandwidth, 4)
	eff.Compute = roundTo(eff.Compute, 4)
	eff.NoOverlap = roundTo(eff.NoOverlap, 4)
	eff.AttentionCompute = roundTo(eff.AttentionCompute, 4)
	eff.OverheadPerLayerUs = roundTo(eff.OverheadPerLayerUs, 2)
	eff.OverheadPerSeqUs = roundTo(eff.OverheadPerSeqUs, 2)
	eff.APILatencyMs = roundTo(eff.APILatencyMs, 2)
	eff.CachedContextUsPerToken = roundTo(eff.CachedContextUsPerToken, 3)
	eff.DequantCompute = roundTo(eff.DequantCompute, 4)
	eff.ExpertCompute = roundTo(eff.ExpertCompute, 4)
	eff.OverheadPerExpertUs = roundTo(eff.OverheadPerExpertUs, 2)
	eff.AgeSlowdownPerYear = roundTo(eff.AgeSlowdownPerYear, 4)
	eff.OverheadMs = 0
	var sources []string
	seen := map[string]bool{}
	counts := map[string]int{}
	for _, r := range rows {
		counts[r.Kind]++
		if !seen[r.Source] {
			seen[r.Source] = true
			sources = append(sources, r.Source)
		}
	}
	if fam == PooledFamily {
		eff.Method = "least squares on the log error over every row of measurements.json, all families together; the prior of every kernel group's fit"
		return eff
	}
	if strings.HasPrefix(fam, GroupPrefix) {
		eff.Method = fmt.Sprintf("least squares on the log error over the rows of every family of kernel group %s (engines sharing their GEMM and attention kernels), pulled towards the pooled factors; the prior of each of its families and the stand-in where a family has no rows", strings.TrimPrefix(fam, GroupPrefix))
		return eff
	}
	eff.Method = fmt.Sprintf("least squares on the log error over the %d rows of measurements.json in family %s, pulled towards its kernel group's factors", len(rows), fam)
	eff.DecodeRows, eff.PrefillRows = counts["decode"], counts["prefill"]
	eff.DecodeMedianErr = roundTo(MedianAbs(rows, "decode", false), 4)
	eff.DecodeLOOErr = roundTo(MedianAbs(rows, "decode", true), 4)
	eff.PrefillMedianErr = roundTo(MedianAbs(rows, "prefill", false), 4)
	eff.PrefillLOOErr = roundTo(MedianAbs(rows, "prefill", true), 4)
	eff.Errors = map[string]KindError{}
	for _, k := range Kinds {
		if counts[k] == 0 {
			continue
		}
		eff.Errors[k] = KindError{Rows: counts[k], InSample: roundTo(MedianAbs(rows, k, false), 4),
			LOO: roundTo(MedianAbs(rows, k, true), 4), LOSO: roundTo(MedianAbsLOSO(rows, k), 4)}
	}
	eff.FittedFromSources = sources
	return eff
}

func roundTo(v float64, digits int) float64 {
	if math.IsNaN(v) {
		return 0
	}
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// MedianAbs is the median absolute relative error of the rows of one kind, in-sample
// or leave-one-out.
func MedianAbs(rows []RowError, kind string, loo bool) float64 {
	if loo {
		return medianAbsOf(rows, kind, func(r RowError) float64 { return r.ErrLOO })
	}
	return medianAbsOf(rows, kind, func(r RowError) float64 { return r.Err })
}

// MedianAbsLOSO is the median absolute leave-one-source-out error of the rows of one
// kind.
func MedianAbsLOSO(rows []RowError, kind string) float64 {
	return medianAbsOf(rows, kind, func(r RowError) float64 { return r.ErrLOSO })
}

// medianAbsOf is the median of |err| over the rows of one kind that have one.
func medianAbsOf(rows []RowError, kind string, err func(RowError) float64) float64 {
	var errs []float64
	for _, r := range rows {
		if e := err(r); r.Kind == kind && !math.IsNaN(e) {
			errs = append(errs, math.Abs(e))
		}
	}
	return median(errs)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
