package calc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/llmbench/llmbench/internal/memo"
	"github.com/llmbench/llmbench/internal/perf"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// Perf is the site's view of internal/perf: catalog specs for hardware and model
// pages, and the decode calculator's predictions.
type Perf struct {
	c *perf.Catalog
	// ids caches name → catalog id ("" when not in the catalog): a miss costs the
	// catalog an edit-distance search for suggestions, and the calculator page asks
	// about every GPU and model name runs use.
	ids *memo.Cache[string]
	// specs caches GPUSpecs and ModelSpecs by name, for the same reason.
	specs *memo.Cache[specEntry]
}

// maxCached bounds each of Perf's caches: names typed into addresses must not grow
// them forever.
const maxCached = 10000

// NewPerf loads the embedded performance catalog.
func NewPerf() (*Perf, error) {
	c, err := perf.Load()
	if err != nil {
		return nil, fmt.Errorf("loading the performance catalog: %w", err)
	}
	return &Perf{c: c, ids: memo.New[string](maxCached, 0), specs: memo.New[specEntry](maxCached, 0)}, nil
}

// GPUs names the catalog's GPUs.
func (p *Perf) GPUs() []string {
	var out []string
	for _, g := range p.c.GPUs {
		out = append(out, g.Name)
	}
	return out
}

// Models names the catalog's models by their Hugging Face id where they have one,
// the name runs usually carry.
func (p *Perf) Models() []string {
	var out []string
	for _, m := range p.c.Models {
		if m.HFID != "" {
			out = append(out, m.HFID)
		} else {
			out = append(out, m.Name)
		}
	}
	return out
}

func (p *Perf) id(kind, name string) string {
	id, _ := p.ids.Get(kind+"\x00"+name, func() (string, bool) {
		if kind == "gpu" {
			if g, err := p.c.GPU(name); err == nil {
				return g.ID, true
			}
		} else if mm, err := p.c.ResolveModel(name); err == nil && !mm.StandIn {
			// A stand-in (llama-3-8b for Llama 3.1 8B) is another model: its
			// measured runs are not this one's.
			return mm.Model.ID, true
		}
		return "", true
	})
	return id
}

// SameGPU reports whether two names are the same catalog GPU ("RTX 3090", "rtx-3090").
func (p *Perf) SameGPU(a, b string) bool {
	ia := p.id("gpu", a)
	return ia != "" && ia == p.id("gpu", b)
}

// SameModel reports whether two names are the same catalog model.
func (p *Perf) SameModel(a, b string) bool {
	ia := p.id("model", a)
	return ia != "" && ia == p.id("model", b)
}

// Choices names the catalog's weight formats, KV cache dtypes and engines.
func (p *Perf) Choices() Choices {
	var c Choices
	for _, q := range p.c.Quants {
		c.Quants = append(c.Quants, q.ID)
	}
	for _, k := range p.c.KVDtypes {
		c.KVDtypes = append(c.KVDtypes, k.ID)
	}
	for _, e := range p.c.Engines {
		c.Engines = append(c.Engines, e.ID)
	}
	return c
}

// setup resolves an input into the model's Setup and plan through perf.Resolve, as
// "llmbench calc" does with the same flags: one GPU, vLLM (Ollama for an Ollama tag), 90% memory utilisation, the
// weight format the model's name states else bf16, and an fp16 KV cache unless asked
// otherwise.
func (p *Perf) setup(in Input) (perf.Setup, perf.Plan, error) {
	if in.GPU == "" || in.Model == "" {
		return perf.Setup{}, perf.Plan{}, p.unnamed(in)
	}
	r, err := p.c.Resolve(perf.Query{GPU: in.GPU, GPUs: max(in.GPUs, 1), Model: in.Model, Quant: in.Quant, DefaultQuant: "bf16",
		KVDtype: cmp.Or(in.KVDtype, "fp16"), Engine: in.Engine, PipelineStages: 1,
		MemoryUtilization: cmp.Or(in.MemoryUtilization, 0.9), MaxNumSeqs: in.MaxNumSeqs, NoPrefixCaching: in.NoPrefixCaching,
		MaxModelLen: in.MaxModelLen})
	if err != nil {
		return perf.Setup{}, perf.Plan{}, perfError(err)
	}
	return r.Setup, planOf(in), nil
}

// validSetup is setup, refused with its reason where the engine would refuse it at
// startup (rather than given a memory split).
func (p *Perf) validSetup(in Input) (perf.Setup, perf.Plan, error) {
	s, plan, err := p.setup(in)
	if err != nil {
		return s, plan, err
	}
	if err := s.Validate(); err != nil {
		return s, plan, &Error{Reason: err.Error()}
	}
	return s, plan, nil
}

// unnamed is the error of an input without a GPU or a model name (a run's page for a
// run that names none): the catalog's for the empty name, after the GPU's if that is
// unknown, where perf.Resolve would ask for calc's flags or figures instead.
func (p *Perf) unnamed(in Input) error {
	if _, err := p.c.GPU(in.GPU); err != nil {
		return perfError(&perf.QueryError{Field: "gpu", Value: in.GPU, Err: err})
	}
	_, err := p.c.ResolveModel(in.Model)
	return perfError(&perf.QueryError{Field: "model", Value: in.Model, Err: err})
}

// perfError is a resolution error as the site shows it: an unknown name in the field
// it was typed in, with the closest names; anything else in the calculator's words.
func perfError(err error) *Error {
	var qe *perf.QueryError
	if !errors.As(err, &qe) {
		return &Error{Reason: err.Error()}
	}
	var nf *perf.NotFoundError
	if errors.As(qe.Err, &nf) {
		return &Error{Field: qe.Field, Value: qe.Value, Unknown: true, Closest: nf.Closest}
	}
	return &Error{Field: qe.Field, Value: qe.Value, Reason: qe.Err.Error()}
}

// planOf is the input's matrix: the seed's plan where the input leaves a part out.
func planOf(in Input) perf.Plan {
	plan := perf.DefaultPlan()
	if len(in.Contexts) > 0 {
		plan.Contexts = in.Contexts
	}
	if len(in.Concurrency) > 0 {
		plan.Concurrency = in.Concurrency
	}
	if in.PrefillContexts != nil {
		plan.PrefillContexts = in.PrefillContexts
	}
	if in.MaxOutputTokens > 0 {
		plan.MaxOutputTokens = in.MaxOutputTokens
	}
	if in.DurationS > 0 {
		plan.DurationS = in.DurationS
	}
	plan.MaxModelLen = in.MaxModelLen
	return plan
}

// Predict predicts the matrix of an input (see setup), as "llmbench calc" would.
func (p *Perf) Predict(ctx context.Context, in Input) (*Prediction, error) {
	s, plan, err := p.validSetup(in)
	if err != nil {
		return nil, err
	}
	mem, err := p.memory(s, in)
	if err != nil {
		return nil, err
	}
	run, err := s.PredictRun(plan, time.Now())
	if err != nil {
		return nil, &Error{Reason: err.Error()}
	}
	// The same estimate as "llmbench calc": the GPU's board power × the predicted
	// utilization, priced at the catalog's reference price; the run says it is one.
	if err := s.EstimateEnergy(run, plan, s.CatalogPrice()); err != nil {
		return nil, &Error{Reason: err.Error()}
	}
	run.Tool = rundoc.Tool{Name: "llmbench", Version: "site"}
	return &Prediction{Run: run, Memory: mem}, nil
}

// Capacity is the memory split of an input, without predicting the matrix.
func (p *Perf) Capacity(ctx context.Context, in Input) (Memory, error) {
	s, _, err := p.setup(in)
	if err != nil {
		return Memory{}, err
	}
	return p.memory(s, in)
}

func (p *Perf) memory(s perf.Setup, in Input) (Memory, error) {
	const gib = 1 << 30
	mb, err := s.Memory()
	m := Memory{GPUGiB: float64(s.GPU.CUDATotalBytes()) / gib, Utilization: s.MemoryUtilization,
		BudgetGiB: mb.BudgetBytes / gib, WeightsGiB: mb.WeightBytes / gib, ReserveGiB: mb.ReserveBytes / gib,
		KVGiB: mb.KVBytes / gib, KVTokens: mb.KVTokens, MaxModelLen: in.MaxModelLen}
	if m.MaxModelLen == 0 {
		m.MaxModelLen = int64(s.Model.Context)
	}
	if s.Engine.ID == "vllm" {
		m.MaxNumSeqs = s.MaxSeqsFor()
	}
	if errors.Is(err, perf.ErrNoRoom) {
		m.NoRoom, m.KVGiB, m.KVTokens = true, 0, 0
		return m, &Error{NoRoom: true, Memory: m, Reason: err.Error()}
	}
	if err != nil {
		return m, &Error{Reason: err.Error()}
	}
	return m, nil
}

func num(v float64, unit string) string {
	return strconv.FormatFloat(v, 'f', -1, 64) + unit
}

// specs caches name → specs: a name not in the catalog costs an edit-distance search
// for suggestions, and hardware and model pages ask on every view.
type specEntry struct {
	specs []wire.Spec
	ok    bool
}

func (p *Perf) cachedSpecs(kind, name string, look func(string) ([]wire.Spec, bool)) ([]wire.Spec, bool) {
	e, _ := p.specs.Get(kind+"\x00"+name, func() (specEntry, bool) {
		specs, ok := look(name)
		return specEntry{specs, ok}, true
	})
	return e.specs, e.ok
}

// GPUSpecs lists a catalog GPU's published figures.
func (p *Perf) GPUSpecs(name string) ([]wire.Spec, bool) {
	return p.cachedSpecs("gpu", name, p.gpuSpecs)
}

// ModelSpecs lists a catalog model's architecture.
func (p *Perf) ModelSpecs(name string) ([]wire.Spec, bool) {
	return p.cachedSpecs("model", name, p.modelSpecs)
}

func (p *Perf) gpuSpecs(name string) ([]wire.Spec, bool) {
	g, err := p.c.GPU(name)
	if err != nil {
		return nil, false
	}
	specs := []wire.Spec{{Key: "catalog_name", Label: "Catalog name", Value: g.Name}, {Key: "vendor", Label: "Vendor", Value: g.Vendor},
		{Key: "vram", Label: "VRAM", Value: num(g.VRAMGiB, " GB")}, {Key: "bandwidth", Label: "Memory bandwidth", Value: num(g.BandwidthGBps, " GB/s")},
		{Key: "fp16", Label: "FP16 tensor", Value: num(g.FP16TFLOPS, " TFLOPS")}}
	if g.FP8TFLOPS > 0 {
		specs = append(specs, wire.Spec{Key: "fp8", Label: "FP8 tensor", Value: num(g.FP8TFLOPS, " TFLOPS")})
	}
	if g.INT8TOPS > 0 {
		specs = append(specs, wire.Spec{Key: "int8", Label: "INT8 tensor", Value: num(g.INT8TOPS, " TOPS")})
	}
	if g.LinkGBps > 0 {
		specs = append(specs, wire.Spec{Key: "link", Label: "GPU link", Value: num(g.LinkGBps, " GB/s")})
	}
	if g.Source != "" {
		specs = append(specs, wire.Spec{Key: "source", Label: "Source", Value: g.Source})
	}
	return specs, true
}

func (p *Perf) modelSpecs(name string) ([]wire.Spec, bool) {
	m, err := p.c.Model(name)
	if err != nil {
		return nil, false
	}
	specs := []wire.Spec{{Key: "catalog_name", Label: "Catalog name", Value: m.Name}}
	if m.HFID != "" {
		specs = append(specs, wire.Spec{Key: "hf", Label: "Hugging Face", Value: m.HFID})
	}
	specs = append(specs, wire.Spec{Key: "params", Label: "Parameters", Value: num(m.ParamsB, "B")})
	if m.ActiveParamsB > 0 {
		specs = append(specs, wire.Spec{Key: "active_params", Label: "Active parameters", Value: num(m.ActiveParamsB, "B")})
	}
	specs = append(specs,
		wire.Spec{Key: "layers", Label: "Layers", Value: strconv.Itoa(m.Layers)},
		wire.Spec{Key: "hidden", Label: "Hidden size", Value: strconv.Itoa(m.Hidden)},
		wire.Spec{Key: "heads", Label: "Attention heads / KV heads", Value: strconv.Itoa(m.Heads) + " / " + strconv.Itoa(m.KVHeads)},
		wire.Spec{Key: "attention", Label: "Attention", Value: m.Attention})
	if m.Context > 0 {
		specs = append(specs, wire.Spec{Key: "context", Label: "Context length", Value: rundoc.FormatTokens(m.Context)})
	}
	if m.Experts > 0 {
		specs = append(specs, wire.Spec{Key: "experts", Label: "Experts (per token)", Value: strconv.Itoa(m.Experts) + " (" + strconv.Itoa(m.ExpertsPerToken) + ")"})
	}
	if m.Source != "" {
		specs = append(specs, wire.Spec{Key: "source", Label: "Source", Value: m.Source})
	}
	return specs, true
}
