package wire

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/perf"
	"github.com/llmbench/llmbench/internal/site"
)

// Perf is the site's view of internal/perf: catalog specs for hardware and model
// pages, and the decode calculator's predictions.
type Perf struct {
	c *perf.Catalog
	// ids caches name → catalog id ("" when not in the catalog): a miss costs the
	// catalog an edit-distance search for suggestions, and the calculator page asks
	// about every GPU and model name runs use.
	ids    sync.Map
	cached atomic.Int64 // entries in ids, bounded so that typed names cannot grow it forever
}

// NewPerf loads the embedded performance catalog.
func NewPerf() (*Perf, error) {
	c, err := perf.Load()
	if err != nil {
		return nil, fmt.Errorf("loading the performance catalog: %w", err)
	}
	return &Perf{c: c}, nil
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
	key := kind + "\x00" + name
	if v, ok := p.ids.Load(key); ok {
		return v.(string)
	}
	var id string
	if kind == "gpu" {
		if g, err := p.c.GPU(name); err == nil {
			id = g.ID
		}
	} else if m, err := p.c.Model(name); err == nil {
		id = m.ID
	}
	if p.cached.Load() < 10000 {
		p.ids.Store(key, id)
		p.cached.Add(1)
	}
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

// Predict runs the calculator the way "llmbench calc" does by default: one GPU, vLLM,
// 90% memory utilisation, the seed's plan; the weight format defaults to bf16 and the
// KV cache to fp16.
func (p *Perf) Predict(ctx context.Context, in site.CalcInput) (*bench.Run, error) {
	var s perf.Setup
	var err error
	if s.GPU, err = p.c.GPU(in.GPU); err != nil {
		return nil, err
	}
	if s.Model, err = p.c.Model(in.Model); err != nil {
		return nil, err
	}
	quant, kv := cmp.Or(in.Quant, "bf16"), cmp.Or(in.KVDtype, "fp16")
	if s.Quant, err = p.c.Quant(quant); err != nil {
		return nil, err
	}
	if s.KV, err = p.c.KVDtype(kv); err != nil {
		return nil, err
	}
	if s.Engine, err = p.c.Engine("vllm"); err != nil {
		return nil, err
	}
	if s.Eff, err = p.c.Efficiency(s.Engine.Family(s.GPU.Vendor)); err != nil {
		return nil, err
	}
	s.GPUs, s.MemoryUtilization = 1, 0.9
	run, err := s.PredictRun(perf.DefaultPlan(), time.Now())
	if err != nil {
		return nil, err
	}
	run.Tool = bench.Tool{Name: "llmbench", Version: "site"}
	return run, nil
}

func num(v float64, unit string) string {
	return strconv.FormatFloat(v, 'f', -1, 64) + unit
}

// GPUSpecs lists a catalog GPU's published figures.
func (p *Perf) GPUSpecs(name string) ([]site.Spec, bool) {
	g, err := p.c.GPU(name)
	if err != nil {
		return nil, false
	}
	specs := []site.Spec{{Label: "Catalog name", Value: g.Name}, {Label: "Vendor", Value: g.Vendor},
		{Label: "VRAM", Value: num(g.VRAMGiB, " GB")}, {Label: "Memory bandwidth", Value: num(g.BandwidthGBps, " GB/s")},
		{Label: "FP16 tensor", Value: num(g.FP16TFLOPS, " TFLOPS")}}
	if g.FP8TFLOPS > 0 {
		specs = append(specs, site.Spec{Label: "FP8 tensor", Value: num(g.FP8TFLOPS, " TFLOPS")})
	}
	if g.INT8TOPS > 0 {
		specs = append(specs, site.Spec{Label: "INT8 tensor", Value: num(g.INT8TOPS, " TOPS")})
	}
	if g.LinkGBps > 0 {
		specs = append(specs, site.Spec{Label: "GPU link", Value: num(g.LinkGBps, " GB/s")})
	}
	if g.Source != "" {
		specs = append(specs, site.Spec{Label: "Source", Value: g.Source})
	}
	return specs, true
}

// ModelSpecs lists a catalog model's architecture.
func (p *Perf) ModelSpecs(name string) ([]site.Spec, bool) {
	m, err := p.c.Model(name)
	if err != nil {
		return nil, false
	}
	specs := []site.Spec{{Label: "Catalog name", Value: m.Name}}
	if m.HFID != "" {
		specs = append(specs, site.Spec{Label: "Hugging Face", Value: m.HFID})
	}
	specs = append(specs, site.Spec{Label: "Parameters", Value: num(m.ParamsB, "B")})
	if m.ActiveParamsB > 0 {
		specs = append(specs, site.Spec{Label: "Active parameters", Value: num(m.ActiveParamsB, "B")})
	}
	specs = append(specs,
		site.Spec{Label: "Layers", Value: strconv.Itoa(m.Layers)},
		site.Spec{Label: "Hidden size", Value: strconv.Itoa(m.Hidden)},
		site.Spec{Label: "Attention heads / KV heads", Value: strconv.Itoa(m.Heads) + " / " + strconv.Itoa(m.KVHeads)},
		site.Spec{Label: "Attention", Value: m.Attention})
	if m.Context > 0 {
		specs = append(specs, site.Spec{Label: "Context length", Value: bench.FormatTokens(m.Context)})
	}
	if m.Experts > 0 {
		specs = append(specs, site.Spec{Label: "Experts (per token)", Value: strconv.Itoa(m.Experts) + " (" + strconv.Itoa(m.ExpertsPerToken) + ")"})
	}
	if m.Source != "" {
		specs = append(specs, site.Spec{Label: "Source", Value: m.Source})
	}
	return specs, true
}
