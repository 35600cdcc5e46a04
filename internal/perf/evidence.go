package perf

import (
	"fmt"
	"regexp"
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
	// Kind is "decode" (batch-1 generation tok/s), "prefill" (prompt tok/s),
	// "request" (one request's (input + output) tok/s), "batch" (total tok/s of
	// Concurrency streams), "ttft" (time to first token after a cached context, TTFTMs)
	// or "throughput" (output tok/s of Requests requests, Concurrency at once).
	Kind string `json:"kind"`
	// Test is the benchmark's own name for the figure (llama-bench's tg512, pp512...).
	Test string `json:"test"`
	// Context is the prompt already in the cache for decode, the prompt length for prefill.
	Context int     `json:"context"`
	TokS    float64 `json:"tok_s,omitempty"`
	// TTFTMs is the measured figure of a ttft row.
	TTFTMs float64 `json:"ttft_ms,omitempty"`
	// Generated is the tokens each request generates, where the test name does not say.
	Generated int `json:"generated,omitempty"`
	// Concurrency is the requests in flight at once; Requests the requests of a
	// throughput run.
	Concurrency int `json:"concurrency,omitempty"`
	Requests    int `json:"requests,omitempty"`
	// KVCacheTokens, PrefillChunk and MaxNumSeqs are the engine's, from the run's own
	// log, where the source gives them.
	KVCacheTokens int64 `json:"kv_cache_tokens,omitempty"`
	PrefillChunk  int   `json:"prefill_chunk,omitempty"`
	MaxNumSeqs    int   `json:"max_num_seqs,omitempty"`
	// Generation marks rows of an engine build the source dates as older than the
	// family's current one; they are fitted as their own family, family@generation,
	// and, left out, predicted from the current family aged to their EngineDate.
	Generation string `json:"generation,omitempty"`
	// EngineDate is the engine build the source ran, "YYYY-MM": its release where
	// the source names a version or build, else the date the source ran it. A build
	// older than its family's newest evidence is predicted slower by the family's
	// AgeSlowdownPerYear (Efficiency.aged).
	EngineDate string `json:"engine_date,omitempty"`
	// EngineBuild is the build the source names: a llama.cpp build number (b6413) or
	// commit, an engine version (0.10.1); "" where it names none.
	EngineBuild string `json:"engine_build,omitempty"`
	Source      string `json:"source"`
	// Origin is the publication the row comes from; leave-one-source-out holds out one
	// origin at a time.
	Origin string `json:"origin"`
}

// Value is the row's measured figure: tok/s, or milliseconds for a ttft row.
func (m Measurement) Value() float64 {
	if m.Kind == "ttft" {
		return m.TTFTMs
	}
	return m.TokS
}

var tgLength = regexp.MustCompile(`^tg(\d+)`)

// generated is how many tokens a decode measurement generates (llama-bench tgN, or the
// row's Generated), so that the prediction uses the mean context over the run; 128
// when not stated.
func (m Measurement) generated() int {
	if m.Generated > 0 {
		return m.Generated
	}
	if g := tgLength.FindStringSubmatch(m.Test); g != nil {
		n, _ := strconv.Atoi(g[1])
		return n
	}
	return 128
}

// concurrency is the row's requests at once, 1 when not stated.
func (m Measurement) concurrency() int { return max(m.Concurrency, 1) }

// measurementSetup builds the configuration a measurement ran, with the given
// efficiency factors, and the efficiency family its rows are fitted in (the engine's
// family for the GPU's vendor, with @generation for an older engine build).
func (c *Catalog) measurementSetup(m Measurement, eff Efficiency) (Setup, string, error) {
	kvName := m.KVDtype
	if kvName == "" {
		kvName = "fp16"
	}
	s, err := c.byName(m.GPU, m.Model, m.Quant, kvName, m.Engine, false)
	if err != nil {
		return Setup{}, "", err
	}
	s.GPUs, s.Eff, s.MemoryUtilization = max(m.GPUs, 1), eff, 0.9
	s.PrefillChunk, s.MaxNumSeqs = m.PrefillChunk, m.MaxNumSeqs
	if m.Kind == "prefill" && s.Engine.vectorKernels() {
		s.PrefillChunk = 512
	}
	fam := s.Engine.Family(s.GPU.Vendor)
	if m.Generation != "" {
		fam += "@" + m.Generation
	}
	return s, fam, nil
}

// weighted is a step's ideal terms and how many times a measurement runs it.
type weighted struct {
	t StepTerms
	w float64
}

func seconds(eff Efficiency, steps []weighted) float64 {
	var t float64
	for _, st := range steps {
		t += st.w * eff.Seconds(st.t)
	}
	return t
}

// prefillSteps are the chunks of a cold prompt of context tokens.
func (s Setup) prefillSteps(context int) []weighted {
	chunk := s.ChunkFor()
	var out []weighted
	for start := 0; start < context; start += chunk {
		out = append(out, weighted{s.Terms([]Chunk{{Start: start, Tokens: min(chunk, context-start)}}, nil), 1})
	}
	return out
}

// decodeSamples are gen decode steps of batch sequences starting at context, as
// decodeSamplePoints steps at the midpoints of equal spans, each weighted by its span
// (the step time is close to linear in the context, so this is near exact).
func (s Setup) decodeSamples(context, gen, batch int) []weighted {
	const decodeSamplePoints = 8
	n := min(decodeSamplePoints, max(gen, 1))
	span := float64(gen) / float64(n)
	out := make([]weighted, 0, n)
	for k := range n {
		ctx := context + int((float64(k)+0.5)*span)
		ctxs := make([]int, batch)
		for i := range ctxs {
			ctxs[i] = ctx
		}
		out = append(out, weighted{s.Terms(nil, ctxs), span})
	}
	return out
}

// packedPrefill are the steps that prefill requests prompts of prompt tokens each,
// packed into the engine's budget per step as continuous batching does; identical
// steps are merged into one with their count as weight.
func (s Setup) packedPrefill(requests, prompt int) []weighted {
	budget := s.ChunkFor()
	var out []weighted
	var step []Chunk
	room := budget
	flush := func() {
		if len(step) == 0 {
			return
		}
		t := s.Terms(step, nil)
		if k := len(out) - 1; k >= 0 && out[k].t == t {
			out[k].w++
		} else {
			out = append(out, weighted{t, 1})
		}
		step, room = nil, budget
	}
	for range requests {
		at, left := 0, prompt
		for left > 0 {
			n := min(left, room)
			step = append(step, Chunk{Start: at, Tokens: n})
			at, left, room = at+n, left-n, room-n
			if room == 0 {
				flush()
			}
		}
	}
	flush()
	return out
}

// throughputSteps are the steps of a throughput run of requests requests of prompt
// tokens in and gen out. Sent all at once (requests ≤ concurrency), they run in waves
// of as many as the engine holds at a time (its max_num_seqs, its KV cache in whole
// requests): each wave prefills its prompts, then decodes them together, since
// requests of equal lengths finish together. Kept at concurrency in flight by the
// client (requests > concurrency), they desynchronize: each new request's prompt is
// prefilled in chunks that share their steps with the others' decoding (chunked
// prefill), and the rest of the tokens come from decode-only steps.
func (s Setup) throughputSteps(m Measurement) []weighted {
	gen := m.generated()
	hold := m.concurrency()
	if seqs := s.MaxSeqsFor(); seqs > 0 {
		hold = min(hold, seqs)
	}
	if kv := m.KVCacheTokens; kv > 0 {
		hold = min(hold, max(int(kv/int64(m.Context+gen)), 1))
	}
	requests := max(m.Requests, hold)
	var out []weighted
	add := func(steps []weighted, times float64) {
		for _, st := range steps {
			out = append(out, weighted{st.t, st.w * times})
		}
	}
	if m.Requests > m.concurrency() && hold > 1 {
		others := hold - 1
		chunk := max(s.ChunkFor()-others, 1)
		ctxs := make([]int, others)
		for i := range ctxs {
			ctxs[i] = m.Context + gen/2
		}
		mixed := 0
		for at := 0; at < m.Context; at += chunk {
			add([]weighted{{s.Terms([]Chunk{{Start: at, Tokens: min(chunk, m.Context-at)}}, ctxs), 1}}, float64(requests))
			mixed++
		}
		decodeOnly := (float64(requests*gen) - float64(requests*mixed*others)) / float64(hold)
		if decodeOnly > 0 {
			add(s.decodeSamples(m.Context, gen, hold), decodeOnly/float64(gen))
		}
		return out
	}
	wave := func(b int, times float64) {
		add(append(s.packedPrefill(b, m.Context), s.decodeSamples(m.Context, gen, b)...), times)
	}
	wave(hold, float64(requests/hold))
	if rest := requests % hold; rest > 0 {
		wave(rest, 1)
	}
	return out
}

// rowModel predicts one measurement from efficiency factors; the ideal terms are
// computed once, only the factors vary while fitting.
type rowModel struct {
	m      Measurement
	family string
	// group is the engine's kernel group (groupOf), whose fit is the family's prior.
	group string
	// dequantized and moe say what the row's GEMMs are (dequantizing kernels, MoE
	// expert GEMMs), so the fit knows which factors the row can identify.
	dequantized, moe bool
	// year is the engine build's date in years (EngineDate), 0 when not given.
	year float64
	// predict is the row's figure from factors of a build of the row's own date;
	// predictAged ages the factors first.
	predict func(Efficiency) float64
}

// predictAged is the row's figure from factors describing builds as of their
// EvidenceThrough date: a row of an older build gets them aged by the difference.
func (r rowModel) predictAged(e Efficiency) float64 {
	return r.predict(e.aged(r.year))
}

func (c *Catalog) rowModel(m Measurement) (rowModel, error) {
	s, fam, err := c.measurementSetup(m, Efficiency{})
	if err != nil {
		return rowModel{}, err
	}
	year, err := monthYear(m.EngineDate)
	if err != nil {
		return rowModel{}, fmt.Errorf("engine_date: %w", err)
	}
	r := rowModel{m: m, family: fam, group: groupOf(s.Engine), dequantized: s.Dequantized(), moe: s.Model.activeExpertParams() > 0, year: year}
	gen := m.generated()
	switch m.Kind {
	case "decode":
		t := s.Terms(nil, []int{m.Context + gen/2})
		r.predict = func(e Efficiency) float64 { return 1 / e.Seconds(t) }
	case "prefill":
		steps := s.prefillSteps(m.Context)
		r.predict = func(e Efficiency) float64 { return float64(m.Context) / seconds(e, steps) }
	case "request":
		steps := append(s.prefillSteps(m.Context), s.decodeSamples(m.Context, gen, 1)...)
		r.predict = func(e Efficiency) float64 { return float64(m.Context+gen) / seconds(e, steps) }
	case "throughput":
		steps := s.throughputSteps(m)
		out := float64(max(m.Requests, m.concurrency()) * gen)
		r.predict = func(e Efficiency) float64 { return out / seconds(e, steps) }
	case "batch":
		p := DefaultPlan()
		r.predict = func(e Efficiency) float64 {
			st := s // a copy: fits run in parallel
			st.Eff = e
			return float64(m.concurrency()) / st.SustainedStepSeconds(m.Context, m.concurrency(), p)
		}
	case "ttft":
		p := DefaultPlan()
		r.predict = func(e Efficiency) float64 {
			st := s
			st.Eff = e
			return 1000 * st.WarmTTFTSeconds(m.Context, m.concurrency(), p.TailTokens)
		}
	default:
		return rowModel{}, fmt.Errorf("measurement kind %q is not one of decode, prefill, request, batch, ttft, throughput", m.Kind)
	}
	return r, nil
}

// Predict returns the model's figure for a measurement with the given factors: tok/s,
// or milliseconds for a ttft row. Factors with an EvidenceThrough date are aged to the
// measurement's EngineDate.
func (c *Catalog) Predict(m Measurement, eff Efficiency) (float64, error) {
	r, err := c.rowModel(m)
	if err != nil {
		return 0, err
	}
	return r.predictAged(eff), nil
}

// monthYear reads "YYYY-MM" as a year with the month's middle as fraction (2025-08 is
// 2025.625); "" is 0, no date.
func monthYear(s string) (float64, error) {
	if s == "" {
		return 0, nil
	}
	// Parsed by hand: the fit reads a factor set's date on every prediction.
	if len(s) != 7 || s[4] != '-' {
		return 0, fmt.Errorf("%q is not YYYY-MM", s)
	}
	y, m := 0, 0
	for i, c := range []byte(s) {
		switch {
		case i == 4:
		case c < '0' || c > '9':
			return 0, fmt.Errorf("%q is not YYYY-MM", s)
		case i < 4:
			y = 10*y + int(c-'0')
		default:
			m = 10*m + int(c-'0')
		}
	}
	if m < 1 || m > 12 {
		return 0, fmt.Errorf("%q is not YYYY-MM", s)
	}
	return float64(y) + (float64(m)-0.5)/12, nil
}
