package perf

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
)

// Measurement is one published figure the model is checked against.
type Measurement struct {
	GPU     string `json:"gpu"`
	GPUs    int    `json:"gpus,omitempty"`
	Model   string `json:"model"`
	Quant   string `json:"quant"`
	KVDtype string `json:"kv_dtype,omitempty"`
	Engine  string `json:"engine"`
	// Kind is "decode" (batch-1 generation tok/s) or "prefill" (prompt tok/s).
	Kind string `json:"kind"`
	// Test is the benchmark's own name for the figure (llama-bench's tg512, pp512...).
	Test string `json:"test"`
	// Context is the prompt already in the cache for decode, the prompt length for prefill.
	Context int     `json:"context"`
	TokS    float64 `json:"tok_s"`
	Source  string  `json:"source"`
}

var tgLength = regexp.MustCompile(`^tg(\d+)`)

// generated is how many tokens a decode measurement generates (llama-bench tgN), so
// that the prediction uses the mean context over the run; 128 when not stated.
func (m Measurement) generated() int {
	if g := tgLength.FindStringSubmatch(m.Test); g != nil {
		n, _ := strconv.Atoi(g[1])
		return n
	}
	return 128
}

// Setup builds the configuration a measurement ran, with the given efficiency factors.
func (c *Catalog) measurementSetup(m Measurement, eff Efficiency) (Setup, string, error) {
	gpu, err := c.GPU(m.GPU)
	if err != nil {
		return Setup{}, "", err
	}
	model, err := c.Model(m.Model)
	if err != nil {
		return Setup{}, "", err
	}
	q, err := c.Quant(m.Quant)
	if err != nil {
		return Setup{}, "", err
	}
	kvName := m.KVDtype
	if kvName == "" {
		kvName = "fp16"
	}
	kv, err := c.KVDtype(kvName)
	if err != nil {
		return Setup{}, "", err
	}
	eng, err := c.Engine(m.Engine)
	if err != nil {
		return Setup{}, "", err
	}
	s := Setup{GPU: gpu, GPUs: max(m.GPUs, 1), Model: model, Quant: q, KV: kv, Engine: eng, Eff: eff, MemoryUtilization: 0.9}
	if m.Kind == "prefill" && eng.ID == "llama.cpp" {
		s.PrefillChunk = 512
	}
	return s, eng.Family(gpu.Vendor), nil
}

// terms are a measurement's ideal times for one token (decode) or the whole prompt
// (prefill), before efficiency.
func (c *Catalog) terms(m Measurement) (StepTerms, int, string, error) {
	s, fam, err := c.measurementSetup(m, Efficiency{})
	if err != nil {
		return StepTerms{}, 0, "", err
	}
	switch m.Kind {
	case "decode":
		return s.Terms(nil, []int{m.Context + m.generated()/2}), 1, fam, nil
	case "prefill":
		chunk := s.ChunkFor()
		var t StepTerms
		steps := 0
		for start := 0; start < m.Context; start += chunk {
			st := s.Terms([]Chunk{{Start: start, Tokens: min(chunk, m.Context-start)}}, nil)
			t.MemorySeconds += st.MemorySeconds
			t.ComputeSeconds += st.ComputeSeconds
			t.CommSeconds += st.CommSeconds
			steps++
		}
		return t, steps, fam, nil
	}
	return StepTerms{}, 0, "", fmt.Errorf("measurement kind %q is neither decode nor prefill", m.Kind)
}

// Predict returns the model's figure for a measurement with the given factors.
func (c *Catalog) Predict(m Measurement, eff Efficiency) (float64, error) {
	s, _, err := c.measurementSetup(m, eff)
	if err != nil {
		return 0, err
	}
	switch m.Kind {
	case "decode":
		return 1 / s.DecodeStepSeconds(m.Context+m.generated()/2, 1), nil
	default:
		return float64(m.Context) / s.PrefillSeconds(m.Context), nil
	}
}

// fitDecode fits bandwidth efficiency e and per-step overhead o to batch-1 decode
// rows, t = M/e + o, by least squares on the relative error (each row counts the same
// whatever its speed): minimise Σ (a·M/t + o/t − 1)² with a = 1/e. With a negative
// overhead the fit is redone with o = 0; with e > 1 (faster than peak) e is held at 1.
func fitDecode(mem, measured []float64) (bandwidth, overheadMs float64) {
	var suu, suv, svv, su, sv float64
	for i := range mem {
		t := 1 / measured[i]
		u, v := mem[i]/t, 1/t
		suu += u * u
		suv += u * v
		svv += v * v
		su += u
		sv += v
	}
	det := suu*svv - suv*suv
	a, o := 0.0, 0.0
	if det > 0 {
		a = (su*svv - sv*suv) / det
		o = (suu*sv - suv*su) / det
	}
	if det <= 0 || o < 0 || a <= 0 {
		a, o = su/suu, 0
	}
	if a < 1 {
		// No engine moves bytes faster than the memory's peak: hold the efficiency at
		// 100% and put the rest in the overhead, o = Σv(1−u)/Σv².
		a, o = 1, max((sv-suv)/svv, 0)
	}
	return 1 / a, o * 1000
}

// fitCompute fits the compute efficiency e of prefill rows, t = C/e + rest (overhead
// and communication already known), by least squares on the relative error: with
// b = 1/e, minimise Σ (b·C/t − (1 − rest/t))², so b = Σwy/Σw² and e = Σw²/Σwy.
func fitCompute(comp, rest, measuredSeconds []float64) float64 {
	var sww, sw float64
	for i := range comp {
		// (b·C + rest)/t − 1 = 0  →  b·(C/t) = 1 − rest/t
		w := comp[i] / measuredSeconds[i]
		y := 1 - rest[i]/measuredSeconds[i]
		sww += w * w
		sw += w * y
	}
	if sww == 0 || sw <= 0 {
		return 1
	}
	return sww / sw
}

// FamilyFit is the fit of one engine family and the error of every row.
type FamilyFit struct {
	Family string
	Eff    Efficiency
	Rows   []RowError
}

// RowError is a measurement beside the model's prediction: in-sample (fitted with the
// row) and leave-one-out (fitted without it).
type RowError struct {
	Measurement
	Predicted    float64
	Err          float64 // (predicted − measured) / measured
	PredictedLOO float64
	ErrLOO       float64
}

type prepared struct {
	m     Measurement
	terms StepTerms
	steps int
}

func fitRows(decode, prefill []prepared) Efficiency {
	var eff Efficiency
	if len(decode) > 0 {
		mem := make([]float64, len(decode))
		meas := make([]float64, len(decode))
		for i, r := range decode {
			mem[i] = r.terms.MemorySeconds + r.terms.CommSeconds
			meas[i] = r.m.TokS
		}
		eff.Bandwidth, eff.OverheadMs = fitDecode(mem, meas)
	} else {
		eff.Bandwidth, eff.OverheadMs = 0.7, 0
	}
	if len(prefill) > 0 {
		comp := make([]float64, len(prefill))
		rest := make([]float64, len(prefill))
		secs := make([]float64, len(prefill))
		for i, r := range prefill {
			comp[i] = r.terms.ComputeSeconds
			rest[i] = float64(r.steps)*eff.OverheadMs/1000 + r.terms.CommSeconds
			secs[i] = float64(r.m.Context) / r.m.TokS
		}
		eff.Compute = fitCompute(comp, rest, secs)
	} else {
		eff.Compute = 0.5
	}
	return eff
}

// Fit fits every engine family's efficiency factors to the catalog's measurements and
// reports each row's error in-sample and leave-one-out.
func (c *Catalog) Fit() ([]FamilyFit, error) {
	byFam := map[string][]prepared{}
	for _, m := range c.Measurements {
		t, steps, fam, err := c.terms(m)
		if err != nil {
			return nil, fmt.Errorf("measurement %s %s %s %s: %w", m.GPU, m.Model, m.Quant, m.Test, err)
		}
		byFam[fam] = append(byFam[fam], prepared{m, t, steps})
	}
	fams := make([]string, 0, len(byFam))
	for f := range byFam {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	var out []FamilyFit
	for _, fam := range fams {
		rows := byFam[fam]
		// Factors are fitted on single-GPU rows: they describe the kernels. Multi-GPU
		// rows are predicted with them and so test the tensor-parallel penalty out of
		// sample.
		split := func(skip int) (dec, pre []prepared) {
			for i, r := range rows {
				if i == skip || r.m.GPUs > 1 {
					continue
				}
				if r.m.Kind == "decode" {
					dec = append(dec, r)
				} else {
					pre = append(pre, r)
				}
			}
			return dec, pre
		}
		dec, pre := split(-1)
		eff := fitRows(dec, pre)
		ff := FamilyFit{Family: fam}
		var sources []string
		seen := map[string]bool{}
		for i, r := range rows {
			p, err := c.Predict(r.m, eff)
			if err != nil {
				return nil, err
			}
			re := RowError{Measurement: r.m, Predicted: p, Err: (p - r.m.TokS) / r.m.TokS}
			d, pr := split(i)
			if (r.m.Kind == "decode" && len(d) > 0) || (r.m.Kind == "prefill" && len(pr) > 0) {
				loo := fitRows(d, pr)
				pl, err := c.Predict(r.m, loo)
				if err != nil {
					return nil, err
				}
				re.PredictedLOO, re.ErrLOO = pl, (pl-r.m.TokS)/r.m.TokS
			} else {
				re.PredictedLOO, re.ErrLOO = math.NaN(), math.NaN()
			}
			ff.Rows = append(ff.Rows, re)
			if !seen[r.m.Source] {
				seen[r.m.Source] = true
				sources = append(sources, r.m.Source)
			}
		}
		eff.Method = fmt.Sprintf("least squares on relative error over the %d decode and %d prefill single-GPU rows of measurements.json (family %s)", len(dec), len(pre), fam)
		eff.DecodeRows, eff.PrefillRows = len(dec), len(pre)
		eff.DecodeMedianErr = roundTo(MedianAbs(ff.Rows, "decode", false), 4)
		eff.DecodeLOOErr = roundTo(MedianAbs(ff.Rows, "decode", true), 4)
		eff.PrefillMedianErr = roundTo(MedianAbs(ff.Rows, "prefill", false), 4)
		eff.PrefillLOOErr = roundTo(MedianAbs(ff.Rows, "prefill", true), 4)
		eff.Bandwidth = roundTo(eff.Bandwidth, 4)
		eff.Compute = roundTo(eff.Compute, 4)
		eff.OverheadMs = roundTo(eff.OverheadMs, 3)
		eff.FittedFromSources = sources
		ff.Eff = eff
		out = append(out, ff)
	}
	return out, nil
}

func roundTo(v float64, digits int) float64 {
	if math.IsNaN(v) {
		return 0
	}
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// MedianAbs is the median absolute relative error of the rows of one kind.
func MedianAbs(rows []RowError, kind string, loo bool) float64 {
	var errs []float64
	for _, r := range rows {
		if r.Kind != kind {
			continue
		}
		e := r.Err
		if loo {
			e = r.ErrLOO
		}
		if !math.IsNaN(e) {
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
