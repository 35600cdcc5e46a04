package perf

import "fmt"

// MemoryReport is one published engine boot: the setup it ran, from the engine's own log
// of its arguments, and the KV cache the engine then reported. It checks the memory
// model (how many bytes are left for the cache) and, where the engine also logged its
// token count, the layout that turns bytes into tokens.
type MemoryReport struct {
	ID    string `json:"id"`
	GPU   string `json:"gpu"`
	GPUs  int    `json:"gpus,omitempty"`
	Model string `json:"model"`
	// Quant is a catalog weight format; empty for a checkpoint whose format the catalog
	// lacks, which then needs LoadedWeightsGiB (QuantLabel names it).
	Quant      string `json:"quant,omitempty"`
	QuantLabel string `json:"quant_label,omitempty"`
	// LoadedWeightsGiB is the log's "Model loading took X GiB": when set, the check
	// uses it instead of the weight formula, so it tests the reserve alone.
	LoadedWeightsGiB float64 `json:"loaded_weights_gib,omitempty"`
	KVDtype          string  `json:"kv_dtype"`
	Engine           string  `json:"engine"`
	// EngineVersion is the engine's version as the log prints it.
	EngineVersion string  `json:"engine_version"`
	Utilization   float64 `json:"gpu_memory_utilization"`
	MaxModelLen   int64   `json:"max_model_len"`
	MaxNumSeqs    int     `json:"max_num_seqs"`
	// MambaSSMBytes is --mamba-ssm-cache-dtype's element size where the launch set it.
	MambaSSMBytes   int  `json:"mamba_ssm_bytes,omitempty"`
	NoPrefixCaching bool `json:"no_prefix_caching,omitempty"`
	// KVGiB is the cache the engine reported ("Available KV cache memory").
	KVGiB float64 `json:"kv_gib"`
	// KVTokens is the capacity it reported ("GPU KV cache size"), 0 when not logged.
	KVTokens int64 `json:"kv_tokens,omitempty"`
	// Fitted marks a report the engine's reserve was fitted to: its memory error is
	// in-sample, not a check.
	Fitted bool   `json:"fitted,omitempty"`
	Note   string `json:"note,omitempty"`
	Source string `json:"source"`
}

// MemoryCheck is a report beside the model's prediction for its setup.
type MemoryCheck struct {
	Report MemoryReport
	// PredictedGiB is the KV cache the model leaves for the setup; Err its relative
	// error against the report.
	PredictedGiB, Err float64
	// LayoutTokens is the capacity the model's layout gives for the reported bytes
	// (checks bytes → tokens alone); PredictedTokens the capacity of the predicted
	// bytes (the whole prediction). Both 0 when the report logged no token count.
	LayoutTokens, PredictedTokens int64
}

// reportSetup builds the configuration a report ran.
func (c *Catalog) reportSetup(r MemoryReport) (Setup, error) {
	s, err := c.byName(r.GPU, r.Model, r.Quant, r.KVDtype, r.Engine, true)
	if err != nil {
		return s, err
	}
	if r.Quant == "" {
		if r.LoadedWeightsGiB <= 0 {
			return s, fmt.Errorf("neither a catalog quant nor the loaded weights")
		}
		s.Quant = Quant{ID: "as-loaded", Name: r.QuantLabel, Bits: 16, EmbeddingBits: 16}
	}
	s.LoadedWeightsGiB = r.LoadedWeightsGiB
	s.GPUs, s.MemoryUtilization, s.MaxModelLen = max(r.GPUs, 1), r.Utilization, r.MaxModelLen
	s.MambaSSMBytes, s.NoPrefixCaching, s.MaxNumSeqs = r.MambaSSMBytes, r.NoPrefixCaching, r.MaxNumSeqs
	return s, nil
}

// CheckMemory predicts a report's KV cache and compares.
func (c *Catalog) CheckMemory(r MemoryReport) (MemoryCheck, error) {
	s, err := c.reportSetup(r)
	if err != nil {
		return MemoryCheck{}, fmt.Errorf("memory report %s: %w", r.ID, err)
	}
	mem, err := s.Memory()
	if err != nil {
		return MemoryCheck{}, fmt.Errorf("memory report %s: %w", r.ID, err)
	}
	chk := MemoryCheck{Report: r, PredictedGiB: mem.KVBytes / GiB}
	chk.Err = chk.PredictedGiB/r.KVGiB - 1
	if r.KVTokens > 0 {
		chk.PredictedTokens = mem.KVTokens
		chk.LayoutTokens, _ = s.kvLayout(r.KVGiB * GiB)
	}
	return chk, nil
}
