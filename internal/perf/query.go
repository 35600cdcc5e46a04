package perf

import (
	"errors"
	"fmt"
	"strings"

	"github.com/llmbench/llmbench/internal/names"
)

// Query is a setup as a person types it, to "llmbench calc" or the site's calculator:
// names as tools print them (resolved through internal/names), or figures where no
// name is given. Resolve turns it into a Setup; nothing here is defaulted except
// where a field says so, so a caller states its own defaults (calc's flags, the
// site's form).
type Query struct {
	// The GPU: a catalog name, or one given by its figures (BandwidthGBps, TFLOPS and
	// VRAMGiB, with SMCount and BoostClockMHz for llama.cpp's GEMM cap), whose vendor
	// GPUFamily names ("" is nvidia). Interconnect overrides the catalog's link.
	GPU, GPUFamily, Interconnect   string
	GPUs                           int
	BandwidthGBps, TFLOPS, VRAMGiB float64
	SMCount                        int
	BoostClockMHz                  float64
	// The model: exactly one of a catalog name, a Hugging Face config.json, a GGUF
	// file or its figures (Specs).
	Model, HFConfig, GGUF string
	Specs                 ModelSpecs
	// The weights: a catalog format (Quant) or bits per weight; else the format the
	// model's name or GGUF file states; else DefaultQuant, where "" makes it an error.
	Quant        string
	WeightBits   float64
	DefaultQuant string
	// The engine ("" the one the model's name implies — Ollama for an Ollama tag,
	// names.OllamaTag — else vLLM), its build ("" the current one) and its limits.
	KVDtype, Engine, EngineVersion                  string
	PipelineStages, HostExpertLayers                int
	HostBandwidthGBps                               float64
	MemoryUtilization, ReserveGiB, LoadedWeightsGiB float64
	MaxNumSeqs                                      int
	NoPrefixCaching                                 bool
	// MambaSSMDtype is vLLM's --mamba-ssm-cache-dtype: "" or auto keeps the model's.
	MambaSSMDtype string
	// MaxModelLen is the engine's max_model_len, 0 the model's context (PredictRun
	// also takes it from the plan).
	MaxModelLen int64
}

// ModelSpecs is a model given by its figures: parameters in billions (ActiveParamsB,
// Experts and ExpertsPerToken make it a mixture of experts), its shapes. KVHeads,
// HeadDim and Intermediate default to Heads, Hidden/Heads and 4 × Hidden.
type ModelSpecs struct {
	ParamsB, ActiveParamsB                                float64
	Layers, Hidden, Heads, KVHeads, HeadDim, Intermediate int
	Vocab, Experts, ExpertsPerToken                       int
}

// Resolved is a query's setup and what a prediction should say about how it was read.
type Resolved struct {
	Setup Setup
	// Era is the engine build the factors describe (EraChoice.Note).
	Era EraChoice
	// NameNote says how the model's name was read ("" when it is the model's own).
	NameNote string
}

// QueryError is a name of a query that the catalog does not resolve, with the field
// it was typed in (gpu, model, quant, kv_dtype, engine, interconnect: the site's
// names for calc's flags) so that a form can point at it. Its text is the cause's;
// where calc says more, the QueryError is wrapped in calc's words (errors.As finds it).
type QueryError struct {
	Field, Value string
	Err          error
}

func (e *QueryError) Error() string { return e.Err.Error() }
func (e *QueryError) Unwrap() error { return e.Err }

// named looks a typed name up, its error a *QueryError for field.
func named[T any](field, value string, find func(string) (T, error)) (T, error) {
	v, err := find(value)
	if err != nil {
		return v, &QueryError{Field: field, Value: value, Err: err}
	}
	return v, nil
}

// byName is a setup of catalog entries named as a published measurement or boot log
// names them: the GPU, the model (as ResolveModel reads it; a weight format its name
// states is not taken), the weight format, the KV cache dtype and the engine, looked
// up in that order with Resolve's errors. An empty quant is left unset where
// quantOptional (a boot log's weights as loaded), else it is the lookup's error.
func (c *Catalog) byName(gpu, model, quant, kv, engine string, quantOptional bool) (s Setup, err error) {
	if s.GPU, err = named("gpu", gpu, c.GPU); err != nil {
		return s, err
	}
	if s.Model, err = named("model", model, c.Model); err != nil {
		return s, err
	}
	if quant != "" || !quantOptional {
		if s.Quant, err = named("quant", quant, c.Quant); err != nil {
			return s, err
		}
	}
	if s.KV, err = named("kv_dtype", kv, c.KVDtype); err != nil {
		return s, err
	}
	s.Engine, err = named("engine", engine, c.Engine)
	return s, err
}

// Resolve turns a query into the setup it means: the GPU and its link, the model and
// its weight format, the engine, its build's factors and its limits, in that order,
// each with the error calc has always given (its flags' names in it).
func (c *Catalog) Resolve(q Query) (Resolved, error) {
	var r Resolved
	if err := c.resolveGPU(q, &r.Setup); err != nil {
		return r, err
	}
	var err error
	if r.NameNote, err = c.resolveModel(q, &r.Setup); err != nil {
		return r, err
	}
	if r.Era, err = c.resolveEngine(q, &r.Setup); err != nil {
		return r, err
	}
	r.Setup.MaxModelLen = q.MaxModelLen
	return r, nil
}

// resolveGPU sets the setup's GPU (the catalog's, or one given by its figures), its
// interconnect and count.
func (c *Catalog) resolveGPU(q Query, s *Setup) error {
	var err error
	explicitGPU := q.BandwidthGBps > 0 || q.TFLOPS > 0 || q.VRAMGiB > 0
	switch {
	case q.GPU != "" && explicitGPU:
		return errors.New("give --gpu or --bandwidth/--tflops/--vram, not both")
	case q.GPU != "":
		if q.SMCount != 0 || q.BoostClockMHz != 0 {
			return errors.New("--sm-count and --boost-clock-mhz are for a GPU given by --bandwidth/--tflops/--vram; the catalog's GPUs carry their own")
		}
		if s.GPU, err = named("gpu", q.GPU, c.GPU); err != nil {
			return err
		}
		if v, err := GPUFamilyVendor(q.GPUFamily); err != nil {
			return err
		} else if q.GPUFamily != "" && v != s.GPU.Vendor {
			return fmt.Errorf("--gpu-family %s: the catalog's %s is %s (--gpu-family is for GPUs given by --bandwidth/--tflops/--vram)", q.GPUFamily, s.GPU.Name, s.GPU.Vendor)
		}
	case explicitGPU:
		if s.GPU, err = explicitGPUFrom(q); err != nil {
			return err
		}
	default:
		return errors.New("name a GPU with --gpu (see --list gpus) or give --bandwidth, --tflops and --vram")
	}
	if q.Interconnect != "" {
		link, err := named("interconnect", q.Interconnect, c.Interconnect)
		if err != nil {
			return err
		}
		s.GPU = s.GPU.WithInterconnect(link)
	}
	if q.GPUs < 1 {
		return fmt.Errorf("--gpus %d: need at least one", q.GPUs)
	}
	s.GPUs = q.GPUs
	return nil
}

// explicitGPUFrom is the GPU a query gives by its figures.
func explicitGPUFrom(q Query) (GPU, error) {
	if q.BandwidthGBps <= 0 || q.TFLOPS <= 0 || q.VRAMGiB <= 0 {
		return GPU{}, errors.New("an explicit GPU needs all of --bandwidth (GB/s), --tflops and --vram (GiB)")
	}
	vendor, err := GPUFamilyVendor(q.GPUFamily)
	if err != nil {
		return GPU{}, err
	}
	if q.SMCount < 0 || q.BoostClockMHz < 0 || (q.SMCount > 0) != (q.BoostClockMHz > 0) {
		return GPU{}, errors.New("--sm-count and --boost-clock-mhz go together, both positive")
	}
	return GPU{ID: "custom", Name: "Custom GPU", Vendor: vendor, VRAMGiB: q.VRAMGiB, BandwidthGBps: q.BandwidthGBps,
		FP16TFLOPS: q.TFLOPS, SMCount: q.SMCount, BoostClockMHz: q.BoostClockMHz, Source: "command line"}, nil
}

// GPUFamilyVendor checks a GPU family as typed (--gpu-family) and returns the vendor
// it names (nvidia by default).
func GPUFamilyVendor(v string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "nvidia", "cuda":
		return "nvidia", nil
	case "amd", "rocm":
		return "amd", nil
	case "apple", "metal":
		return "apple", nil
	case "intel":
		return "intel", nil
	}
	return "", fmt.Errorf("--gpu-family %q: nvidia, amd, apple or intel", v)
}

// resolveEngine sets the KV dtype, the engine and its era's factors, and the serving
// limits.
func (c *Catalog) resolveEngine(q Query, s *Setup) (era EraChoice, err error) {
	if s.KV, err = named("kv_dtype", q.KVDtype, c.KVDtype); err != nil {
		return era, err
	}
	if s.Engine, err = named("engine", q.engine(), c.Engine); err != nil {
		return era, err
	}
	if s.Eff, era, err = c.EraEfficiency(s.Engine, s.GPU.Vendor, q.EngineVersion); err != nil {
		return era, fmt.Errorf("--engine-version: %w", &QueryError{Field: "engine", Value: q.engine(), Err: err})
	}
	if q.PipelineStages < 1 {
		return era, fmt.Errorf("--pipeline-parallel-size %d: at least 1", q.PipelineStages)
	}
	s.PipelineStages = q.PipelineStages
	if q.HostExpertLayers < 0 || q.HostBandwidthGBps < 0 {
		return era, errors.New("--n-cpu-moe and --host-bandwidth cannot be negative")
	}
	s.HostExpertLayers, s.HostBandwidthGBps = q.HostExpertLayers, q.HostBandwidthGBps
	s.MemoryUtilization = q.MemoryUtilization
	if q.MemoryUtilization <= 0 || q.MemoryUtilization > 1 {
		return era, fmt.Errorf("--gpu-memory-utilization %g: must be in (0, 1]", q.MemoryUtilization)
	}
	s.ReserveGiB = q.ReserveGiB
	if q.LoadedWeightsGiB < 0 || q.ReserveGiB < 0 {
		return era, fmt.Errorf("--weights-gib and --reserve cannot be negative")
	}
	s.LoadedWeightsGiB = q.LoadedWeightsGiB
	if q.MaxNumSeqs < 0 {
		return era, fmt.Errorf("--max-num-seqs %d: a positive count, or 0 for vLLM's default", q.MaxNumSeqs)
	}
	s.MaxNumSeqs, s.NoPrefixCaching = q.MaxNumSeqs, q.NoPrefixCaching
	s.MambaSSMBytes, err = mambaSSMBytes(q.MambaSSMDtype)
	return era, err
}

// engine is the engine the query names, else the one its model's name implies: an
// Ollama tag ("qwen3:32b") is served by Ollama; anything else by vLLM.
func (q Query) engine() string {
	switch {
	case q.Engine != "":
		return q.Engine
	case q.Model != "" && names.OllamaTag(q.Model):
		return "ollama"
	}
	return "vllm"
}

// mambaSSMBytes is the element size --mamba-ssm-cache-dtype names (0: the model's).
func mambaSSMBytes(dtype string) (int, error) {
	switch strings.ToLower(dtype) {
	case "", "auto":
		return 0, nil
	case "float32", "fp32":
		return 4, nil
	case "float16", "fp16", "bfloat16", "bf16":
		return 2, nil
	}
	return 0, fmt.Errorf("--mamba-ssm-cache-dtype %q: auto, float32, float16 or bfloat16", dtype)
}
