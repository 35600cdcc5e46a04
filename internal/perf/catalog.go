// Package perf owns the performance model: the GPU, model, quantization and engine
// catalogs (embedded data files, every figure with its source), the published
// measurements its efficiency factors are fitted to and judged against, in-sample,
// leave-one-out and leave-one-source-out (evidence.go, fit.go), and the predictions
// built from them — weight bytes, KV bytes per token, KV cache capacity for a memory
// budget, decode step time as a roofline, prefill time, and the whole speed test
// matrix as a predicted run document — with the dated price and board-power catalogs
// and each predicted cell's energy estimate (energy.go). A setup as people type it
// (a Query: names as tools print them, or figures) is resolved in one place
// (query.go), for calc and the site's calculator alike, and the catalogs are listed
// as calc's --list shows them (listing.go). calc, sim and the site's calculator all
// use it.
package perf

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

//go:embed data/*.json
var dataFS embed.FS

// GiB is 2^30 bytes.
const GiB = 1 << 30

// GPU is one accelerator's published peak figures.
type GPU struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	Vendor        string   `json:"vendor"`
	Aliases       []string `json:"aliases,omitempty"`
	VRAMGiB       float64  `json:"vram_gib"`
	BandwidthGBps float64  `json:"bandwidth_gbps"`
	FP16TFLOPS    float64  `json:"fp16_tflops"`
	FP8TFLOPS     float64  `json:"fp8_tflops"`
	INT8TOPS      float64  `json:"int8_tops"`
	// Interconnect names the GPU-to-GPU link in interconnects.json; empty for a GPU
	// that has none (Apple) or is described on the command line.
	Interconnect string `json:"interconnect,omitempty"`
	// LinkGBps (one direction, per GPU) and AllReduceLatencyUs (a small-message
	// all-reduce) are the interconnect's figures, filled in when the catalog loads;
	// they drive the tensor-parallel communication penalty.
	LinkGBps           float64 `json:"link_gbps,omitempty"`
	AllReduceLatencyUs float64 `json:"allreduce_latency_us,omitempty"`
	// CUDATotalGiB is the memory the driver reports to CUDA (cudaMemGetInfo's total,
	// what PyTorch and vLLM see): less than the card's size, by what the driver keeps
	// for itself. vLLM's --gpu-memory-utilization is a share of this figure. 0 where
	// no published report was found; the card's size is used then.
	CUDATotalGiB    float64 `json:"cuda_total_gib,omitempty"`
	CUDATotalSource string  `json:"cuda_total_source,omitempty"`
	// TensorTileRows is the fewest rows (tokens) a tensor-core matrix multiply computes
	// at once: 64 for Hopper's warpgroup MMA (wgmma's M), 16 for the mma.sync of other
	// NVIDIA generations and for AMD's and Apple's matrix units; 0 means 16. A decode
	// step of fewer tokens still pays for a whole tile on an engine whose small-batch
	// GEMMs run on tensor cores (Engine.SmallBatchGEMM), which matters where compute is
	// scarce next to bandwidth (an H20's 148 TFLOPS against 4 TB/s).
	TensorTileRows int `json:"tensor_tile_rows,omitempty"`
	// SMCount and BoostClockMHz are the streaming multiprocessors and the boost clock
	// the datasheet's tensor rates are quoted at (FP16TFLOPS = SMs × clock × the SM's
	// FLOPs per clock: 1,024 on GA102/AD102/GB202 SMs, 2,048 on the A100's, 4,096 on
	// Hopper's). NVIDIA parts only; 0 where not given. They cap the GEMM rate of
	// engines whose kernels are sized for GeForce-class SMs (ggmlSMFLOPsPerClock).
	SMCount       int     `json:"sm_count,omitempty"`
	BoostClockMHz float64 `json:"boost_clock_mhz,omitempty"`
	Source        string  `json:"source"`
}

// ggmlSMFLOPsPerClock is the dense FP16 tensor FLOPs per SM and clock that
// llama.cpp's (ggml's) CUDA kernels reach at most: a GA102/AD102 SM's rate. Its
// mma.sync tiles and per-SM data movement are sized for those SMs and do not use the
// doubled tensor units of an A100's SM or Hopper's warpgroup MMA: published llama.cpp
// prefill on an A100 matches an RTX A6000 of the same SMs × clock (XiongjieDai's Dec
// 2023 tables: 3,444 against 2,992 tok/s on Llama 2 7B Q4_0; gparemsky/48gb4090,
// Ollama, Sep 2025: 1,017 against 934 on Qwen2.5 32B Q4_K_M) where the datasheets
// give it twice the tensor rate, and an H100 PCIe is 1.4 times an A100, not 2.4.
const ggmlSMFLOPsPerClock = 1024

// kernelPeakTFLOPS is the tensor rate a GEMM of the engine's kernels can reach for a
// compute kind: the datasheet's, capped for ggml-style ("vector") engines at
// ggmlSMFLOPsPerClock per SM and clock where the GPU's SMs and clock are known.
func (g GPU) kernelPeakTFLOPS(compute, smallBatchGEMM string) float64 {
	peak := g.TFLOPSFor(compute)
	if smallBatchGEMM == "vector" && g.SMCount > 0 && g.BoostClockMHz > 0 {
		peak = math.Min(peak, float64(g.SMCount)*g.BoostClockMHz*1e6*ggmlSMFLOPsPerClock/1e12)
	}
	return peak
}

// TileRows is TensorTileRows with its default.
func (g GPU) TileRows() int {
	if g.TensorTileRows > 0 {
		return g.TensorTileRows
	}
	return 16
}

// Interconnect is a GPU-to-GPU link with its published bandwidth and NCCL
// small-message all-reduce latency.
type Interconnect struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Kind is "pcie", "nvlink" or "infinity-fabric".
	Kind string `json:"kind"`
	// LinkGBps is the per-GPU bandwidth in one direction, GB/s.
	LinkGBps float64 `json:"link_gbps"`
	// AllReduceLatencyUs is the fixed time of one all-reduce, whatever its size.
	AllReduceLatencyUs float64 `json:"allreduce_latency_us"`
	Source             string  `json:"source"`
}

// WithInterconnect is the GPU joined by link instead of its catalog interconnect
// (a GeForce pair on an NVLink bridge, a PCIe slot of another generation).
func (g GPU) WithInterconnect(link Interconnect) GPU {
	g.Interconnect, g.LinkGBps, g.AllReduceLatencyUs = link.ID, link.LinkGBps, link.AllReduceLatencyUs
	return g
}

// VRAMBytes is the GPU's memory in bytes.
func (g GPU) VRAMBytes() int64 { return int64(g.VRAMGiB * GiB) }

// CUDATotalBytes is the memory an engine on this GPU can see: the driver's reported
// total where it is known, else the card's size.
func (g GPU) CUDATotalBytes() int64 {
	if g.CUDATotalGiB > 0 {
		return int64(g.CUDATotalGiB * GiB)
	}
	return g.VRAMBytes()
}

// nativeCompute says whether the GPU has a tensor unit for the compute kind, so that
// a format computing at that kind runs natively instead of being dequantized.
func (g GPU) nativeCompute(compute string) bool {
	switch compute {
	case "fp8":
		return g.FP8TFLOPS > 0
	case "int8":
		return g.INT8TOPS > 0
	}
	return true
}

// TFLOPSFor returns the dense tensor rate for a compute kind ("fp16", "fp8",
// "int8"), falling back to FP16 when the GPU has no such unit.
func (g GPU) TFLOPSFor(compute string) float64 {
	switch compute {
	case "fp8":
		if g.FP8TFLOPS > 0 {
			return g.FP8TFLOPS
		}
	case "int8":
		if g.INT8TOPS > 0 {
			return g.INT8TOPS
		}
	}
	return g.FP16TFLOPS
}

// LinearState sizes the fixed per-sequence recurrent state of a hybrid model's
// linear-attention (Gated DeltaNet / Mamba-style) layers. Each layer keeps two states,
// as vLLM's MambaSpec does (vllm/v1/kv_cache_interface.py): the convolution window of
// the q/k/v channels, in the model dtype (vLLM's mamba_cache_dtype "auto"; the KV cache
// dtype does not change it), and the temporal value-by-key state of every value head,
// in mamba_ssm_dtype (float32 for Qwen3.5-style models).
type LinearState struct {
	Layers       int `json:"layers"`
	KeyHeads     int `json:"key_heads"`
	ValueHeads   int `json:"value_heads"`
	KeyHeadDim   int `json:"key_head_dim"`
	ValueHeadDim int `json:"value_head_dim"`
	ConvKernel   int `json:"conv_kernel"`
	// StateBytes is the bytes per temporal-state element (mamba_ssm_dtype); 0 means 2.
	StateBytes int `json:"state_bytes"`
	// ConvBytes is the bytes per convolution-window element (the model dtype); 0 means 2.
	ConvBytes int `json:"conv_bytes,omitempty"`
}

// PageBytes is one linear layer's recurrent state for one sequence on one of tp
// tensor-parallel GPUs (heads split evenly, rounded up): vLLM's
// MambaSpec.page_size_bytes, the sum over its state shapes of elements × dtype size.
// The conv window is (2·key_heads·key_head_dim + value_heads·value_head_dim)/tp
// channels × (conv_kernel − 1); the temporal state value_heads/tp × key_head_dim ×
// value_head_dim (vLLM's MambaStateShapeCalculator.gated_delta_net_state_shape).
func (s LinearState) PageBytes(tp int) int64 {
	tp = max(tp, 1)
	stateBytes, convBytes := int64(s.StateBytes), int64(s.ConvBytes)
	if stateBytes == 0 {
		stateBytes = 2
	}
	if convBytes == 0 {
		convBytes = 2
	}
	keyHeads, valueHeads := cdiv(s.KeyHeads, tp), cdiv(s.ValueHeads, tp)
	convChannels := int64(2*keyHeads*s.KeyHeadDim + valueHeads*s.ValueHeadDim)
	conv := convChannels * int64(max(s.ConvKernel-1, 0)) * convBytes
	temporal := int64(valueHeads) * int64(s.KeyHeadDim) * int64(s.ValueHeadDim) * stateBytes
	return conv + temporal
}

// BytesPerSequence is the recurrent state one sequence keeps across all linear
// layers, all GPUs together (PageBytes of every layer, unpadded).
func (s LinearState) BytesPerSequence() int64 {
	return int64(s.Layers) * s.PageBytes(1)
}

// cdiv is a/b rounded up, for positive b.
func cdiv(a, b int) int { return (a + b - 1) / b }

// Model is a model's architecture facts.
type Model struct {
	ID               string   `json:"id"`
	Name             string   `json:"name"`
	HFID             string   `json:"hf_id,omitempty"`
	Aliases          []string `json:"aliases,omitempty"`
	ParamsB          float64  `json:"params_b"`
	ActiveParamsB    float64  `json:"active_params_b,omitempty"`
	EmbeddingParamsB float64  `json:"embedding_params_b"`
	Layers           int      `json:"layers"`
	Hidden           int      `json:"hidden"`
	Intermediate     int      `json:"intermediate,omitempty"`
	Heads            int      `json:"heads"`
	KVHeads          int      `json:"kv_heads"`
	HeadDim          int      `json:"head_dim"`
	Vocab            int      `json:"vocab,omitempty"`
	Context          int      `json:"context,omitempty"`
	// Attention is full, sliding, linear (hybrid with recurrent layers) or mla.
	Attention           string       `json:"attention"`
	SlidingWindow       int          `json:"sliding_window,omitempty"`
	SlidingLayers       int          `json:"sliding_layers,omitempty"`
	FullAttentionLayers int          `json:"full_attention_layers,omitempty"`
	LinearState         *LinearState `json:"linear_state,omitempty"`
	KVLoraRank          int          `json:"kv_lora_rank,omitempty"`
	QKRopeHeadDim       int          `json:"qk_rope_head_dim,omitempty"`
	Experts             int          `json:"experts,omitempty"`
	ExpertsPerToken     int          `json:"experts_per_token,omitempty"`
	ExpertParamsB       float64      `json:"expert_params_b,omitempty"`
	// RoutingUnknown says Experts and ExpertsPerToken are a stand-in (calc's
	// --active-params without --experts): they split the weights into what a token
	// reads, and the work per routed expert (Efficiency.OverheadPerExpertUs), which the
	// number of experts decides, is not counted.
	RoutingUnknown bool   `json:"-"`
	Source         string `json:"source"`
}

// Active is the parameters that compute for one token (all of them for a dense model).
func (m Model) Active() float64 {
	if m.ActiveParamsB > 0 {
		return m.ActiveParamsB * 1e9
	}
	return m.ParamsB * 1e9
}

// Quant is a weight format.
type Quant struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	Aliases       []string `json:"aliases,omitempty"`
	Bits          float64  `json:"bits"`
	EmbeddingBits float64  `json:"embedding_bits"`
	Compute       string   `json:"compute"`
	Source        string   `json:"source"`
	// Explicit marks bits per weight given as a number (--weight-bits), not a named
	// format: it describes any mix (a GGUF Q4_K_M is about 4.8), so no engine's list of
	// formats refuses it.
	Explicit bool `json:"-"`
}

// KVDtype is a KV cache element type.
type KVDtype struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Aliases []string `json:"aliases,omitempty"`
	Bits    float64  `json:"bits"`
	Source  string   `json:"source"`
}

// Engine is a serving engine's memory reserve and the efficiency family per GPU vendor.
type Engine struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	Aliases       []string          `json:"aliases,omitempty"`
	Reserve       Reserve           `json:"reserve"`
	Families      map[string]string `json:"families"`
	ReserveSource string            `json:"reserve_source"`
	// ReserveSingleGPUSource says where Reserve.SingleGPU comes from.
	ReserveSingleGPUSource string `json:"reserve_single_gpu_source,omitempty"`
	// SmallBatchGEMM is how the engine multiplies a decode step's few tokens by the
	// weights: "tensor" (cuBLAS/CUTLASS/Marlin tensor-core GEMMs, padded to the GPU's
	// TensorTileRows: vLLM, SGLang) or "vector" (matrix-vector kernels without padding:
	// llama.cpp's MMVQ); empty means vector.
	SmallBatchGEMM string `json:"small_batch_gemm,omitempty"`
	// FamilySource says why the engine has families of its own where it shares
	// another engine's kernels.
	FamilySource string `json:"family_source,omitempty"`
	// Quants are the weight formats the engine loads (quants.json ids) and KVDtypes the
	// KV cache dtypes it offers; a setup with any other is refused (Setup.Validate), as
	// the server would refuse it. Empty means any. QuantsSource says where they are
	// from.
	Quants       []string `json:"quants,omitempty"`
	KVDtypes     []string `json:"kv_dtypes,omitempty"`
	QuantsSource string   `json:"quants_source,omitempty"`
	// Eras are the engine's builds by date, oldest first: --engine-version picks one
	// by release or build number, and its date ages the fitted factors
	// (Efficiency.aged). The newest evidence is the current era.
	Eras []Era `json:"eras,omitempty"`
}

// vectorKernels says the engine multiplies small batches with matrix-vector kernels
// (llama.cpp's ggml, and Ollama on it): it also prefills in 512-token micro-batches.
func (e Engine) vectorKernels() bool { return e.SmallBatchGEMM != "tensor" }

// Reserve is the per-GPU memory an engine keeps beyond weights and KV cache: a fixed
// part (CUDA context, graphs) and an activation peak measured for one model, scaled by
// the MLP width of the model at hand. The peak does not shrink with tensor
// parallelism (vLLM's profiling reports the same peak at TP 1 and 2).
type Reserve struct {
	FixedGiB           float64 `json:"fixed_gib"`
	ActivationGiB      float64 `json:"activation_gib,omitempty"`
	ActivationRefWidth int     `json:"activation_ref_width,omitempty"`
	// SingleGPU replaces the reserve on one GPU, where no tensor-parallel
	// communication buffers are allocated and the published reports differ.
	SingleGPU *Reserve `json:"single_gpu,omitempty"`
	// SamplerBytesPerLogit is what vLLM's sampler warm-up holds per logit: it runs on
	// one row per sequence it may batch (min(max_num_seqs, max_num_batched_tokens)) over
	// the whole vocabulary, so the activation peak grows with both. 0 leaves it out.
	SamplerBytesPerLogit float64 `json:"sampler_bytes_per_logit,omitempty"`
}

// GiBFor is the reserve per GPU for a model on gpus tensor-parallel GPUs whose engine
// warms its sampler up on samplerRows rows.
func (r Reserve) GiBFor(m Model, gpus, samplerRows int) float64 {
	if gpus <= 1 && r.SingleGPU != nil {
		return r.SingleGPU.GiBFor(m, gpus, samplerRows)
	}
	g := r.FixedGiB
	if r.SamplerBytesPerLogit > 0 {
		g += float64(samplerRows) * float64(m.Vocab) * r.SamplerBytesPerLogit / GiB
	}
	if r.ActivationGiB > 0 && r.ActivationRefWidth > 0 {
		width := max(m.Intermediate, 4*m.Hidden)
		g += r.ActivationGiB * float64(width) / float64(r.ActivationRefWidth)
	}
	return g
}

// Family returns the efficiency family for a GPU vendor (nvidia, amd, apple, intel);
// an unknown vendor gets the NVIDIA family.
func (e Engine) Family(vendor string) string {
	if f, ok := e.Families[vendor]; ok {
		return f
	}
	return e.Families["nvidia"]
}

// Efficiency are the fitted factors of one engine family: the share of peak memory
// bandwidth a step reaches (bounded by what memory achieves, MaxBandwidthEfficiency),
// the share of peak tensor throughput, how much of the smaller of the two a step fails
// to hide under the larger, a per-step overhead that grows with the layers (kernel
// launches) and with the sequences in the step (scheduling, sampling), and a fixed
// latency per request (the API server's path to the first token).
type Efficiency struct {
	Bandwidth float64 `json:"bandwidth"`
	// OverheadMs is a fixed per-step overhead; the fit leaves it at 0 and models the
	// overhead per layer instead, callers may still set it.
	OverheadMs float64 `json:"overhead_ms"`
	Compute    float64 `json:"compute"`
	// AttentionCompute is the share of peak tensor throughput attention over the
	// context reaches (flash-attention kernels run below the weight GEMMs' rate); 0
	// means Compute.
	AttentionCompute float64 `json:"attention_compute,omitempty"`
	// OverheadPerLayerUs is the per-step overhead of each layer (kernel launches and
	// the gaps between them), µs.
	OverheadPerLayerUs float64 `json:"overhead_per_layer_us,omitempty"`
	// OverheadPerSeqUs is the per-step overhead of each sequence in the step beyond the
	// first (the scheduler's bookkeeping, sampling, detokenizing), µs.
	OverheadPerSeqUs float64 `json:"overhead_per_seq_us,omitempty"`
	// NoOverlap is the share of the smaller of memory and compute time that the step
	// does not hide under the larger: 0 is the ideal roofline max(m, c), 1 their sum.
	NoOverlap float64 `json:"no_overlap,omitempty"`
	// APILatencyMs is the server's fixed work on a request before its first engine
	// step (parsing, the chat template, scheduling), one request after the other: of N
	// requests sent together the median waits for (N+1)/2 of them.
	APILatencyMs float64 `json:"api_latency_ms,omitempty"`
	// CachedContextUsPerToken is the time per cached context token a warm request
	// spends before its first token beyond the GPU terms, µs, serial like
	// APILatencyMs: the seed's warm TTFTs grow ~21 µs per context token, where the attention
	// over the cache accounts for well under 1 µs. What it is (host-side prompt
	// processing — tokenizing the text prompt, the prefix-cache lookup — or an attention
	// kernel that re-reads the cache per query head) the evidence does not say.
	CachedContextUsPerToken float64 `json:"cached_context_us_per_token,omitempty"`
	// DequantCompute is the share of the native-format GEMM rate (Compute) that GEMMs
	// reach whose weights the kernel dequantizes as it goes (GGUF k-quants and Q4_0/Q8_0
	// through llama.cpp's MMQ kernels, GPTQ/AWQ/W4A16 through Marlin, FP8 on a GPU
	// without FP8 units): a different kernel from the F16/BF16 (cuBLAS, hipBLASLt,
	// Metal) or FP8/INT8 W8A8 one, with its own efficiency. 0 means 1.
	DequantCompute float64 `json:"dequant_compute,omitempty"`
	// ExpertCompute is the share of the dense GEMM rate that an MoE model's expert
	// GEMMs reach: a step's tokens are split over the experts they route to, so each
	// expert multiplies a few rows (512 tokens × 8 of 128 experts: 32 rows each), in a
	// grouped or looped kernel that runs below a dense GEMM's rate. 0 means 1. It does
	// not apply where a vector-kernel engine multiplies the step's few tokens with its
	// matrix-vector kernels (StepTerms.ExpertSeconds): there an expert's weights are
	// read by the same kernel as a dense weight's, one row per token.
	ExpertCompute float64 `json:"expert_compute,omitempty"`
	// OverheadPerExpertUs is the per-step time of each routed expert an MoE layer
	// runs, µs, beyond its weights' bytes and FLOPs: every expert the step's tokens
	// route to is its own weight matrix, with its own work to gather its tokens' rows,
	// schedule its tiles (or launch its kernels, in llama.cpp's per-expert loops) and
	// scatter and sum its outputs (llama.cpp adds the k experts' outputs one by one).
	// A batch-1 decode runs k experts per layer, a 512-token prefill chunk nearly all E,
	// so it grows with the experts a step touches, not with the layer count alone nor
	// with the step's FLOPs. Quoted at the reference clock and scaled like
	// OverheadPerLayerUs.
	OverheadPerExpertUs float64 `json:"overhead_per_expert_us,omitempty"`
	// AgeSlowdownPerYear is how much slower an engine build runs its own work (GEMMs,
	// attention, the per-step overheads; not the memory traffic, which the hardware
	// bounds) for each year it is older than EvidenceThrough: a build a years older takes
	// 1 + AgeSlowdownPerYear × a times as long for it. Engines get faster release by
	// release (CUDA graphs, fused kernels, better GEMM tiles); an older build's factors
	// are predicted from its date instead of being fitted per source.
	AgeSlowdownPerYear float64 `json:"age_slowdown_per_year,omitempty"`
	// EvidenceThrough is the newest engine build ("YYYY-MM") among the rows the factors
	// were fitted to: they describe builds of that date, and calc predicts with them
	// as they are.
	EvidenceThrough string `json:"evidence_through,omitempty"`
	// Errors is the fit's median |error| per kind of evidence: in-sample, leave-one-
	// out and leave-one-source-out.
	Errors map[string]KindError `json:"errors,omitempty"`
	// How the values were obtained, and the fit's error on its own rows.
	Method            string   `json:"method"`
	DecodeRows        int      `json:"decode_rows"`
	PrefillRows       int      `json:"prefill_rows"`
	DecodeMedianErr   float64  `json:"decode_median_abs_err"`
	DecodeLOOErr      float64  `json:"decode_loo_median_abs_err"`
	PrefillMedianErr  float64  `json:"prefill_median_abs_err"`
	PrefillLOOErr     float64  `json:"prefill_loo_median_abs_err"`
	FittedFromSources []string `json:"sources,omitempty"`
}

// KindError is a family's median |relative error| on one kind of evidence.
type KindError struct {
	Rows     int     `json:"rows"`
	InSample float64 `json:"in_sample"`
	LOO      float64 `json:"loo"`
	LOSO     float64 `json:"loso"`
}

// MaxBandwidthEfficiency bounds the share of peak memory bandwidth any step reaches:
// the best stream-like figures published are ~92% (7.35 of 8 TB/s of HBM on a GB200,
// Azure's ND GB200 v6 measurements) and ~84% of LPDDR5X (215 of 256 GB/s on a Strix
// Halo, lhl/strix-halo-testing). The fit holds every family's factor at or below it.
const MaxBandwidthEfficiency = 0.92

// Catalog holds every embedded table.
type Catalog struct {
	GPUs          []GPU
	Models        []Model
	Quants        []Quant
	KVDtypes      []KVDtype
	Engines       []Engine
	Interconnects []Interconnect
	Efficiencies  map[string]Efficiency
	Measurements  []Measurement
	// MemoryReports are published engine boot logs: the KV cache each setup got.
	MemoryReports []MemoryReport
}

var (
	catalogOnce sync.Once
	catalog     *Catalog
	catalogErr  error
)

// Load returns the embedded catalog (parsed once).
func Load() (*Catalog, error) {
	catalogOnce.Do(func() { catalog, catalogErr = loadCatalog() })
	return catalog, catalogErr
}

// MustLoad is Load for callers that cannot proceed without the embedded data, which
// the package's tests check parses.
func MustLoad() *Catalog {
	c, err := Load()
	if err != nil {
		panic(err)
	}
	return c
}

func readJSON(name string, v any) error {
	b, err := dataFS.ReadFile("data/" + name)
	if err != nil {
		return fmt.Errorf("reading embedded %s: %w", name, err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("parsing embedded %s: %w", name, err)
	}
	return nil
}

func loadCatalog() (*Catalog, error) {
	var gpus struct {
		About string   `json:"_about"`
		GPUs  []GPU    `json:"gpus"`
		Notes []string `json:"notes"`
	}
	var models struct {
		About  string  `json:"_about"`
		Models []Model `json:"models"`
	}
	var quants struct {
		About    string    `json:"_about"`
		Quants   []Quant   `json:"quants"`
		KVDtypes []KVDtype `json:"kv_dtypes"`
	}
	var engines struct {
		About   string   `json:"_about"`
		Engines []Engine `json:"engines"`
	}
	var links struct {
		About         string         `json:"_about"`
		Interconnects []Interconnect `json:"interconnects"`
	}
	var eff struct {
		About    string                `json:"_about"`
		Families map[string]Efficiency `json:"families"`
	}
	var meas struct {
		About        string        `json:"_about"`
		Measurements []Measurement `json:"measurements"`
	}
	var memory struct {
		About   string         `json:"_about"`
		Reports []MemoryReport `json:"reports"`
	}
	for name, v := range map[string]any{
		"gpus.json": &gpus, "models.json": &models, "quants.json": &quants,
		"engines.json": &engines, "efficiency.json": &eff, "measurements.json": &meas,
		"interconnects.json": &links, "memory.json": &memory,
	} {
		if err := readJSON(name, v); err != nil {
			return nil, err
		}
	}
	c := &Catalog{
		GPUs: gpus.GPUs, Models: models.Models, Quants: quants.Quants, KVDtypes: quants.KVDtypes,
		Engines: engines.Engines, Interconnects: links.Interconnects, Efficiencies: eff.Families, Measurements: meas.Measurements,
		MemoryReports: memory.Reports,
	}
	for i, g := range c.GPUs {
		if g.Interconnect == "" {
			continue
		}
		link, err := c.Interconnect(g.Interconnect)
		if err != nil {
			return nil, fmt.Errorf("gpus.json: %s: %w", g.ID, err)
		}
		c.GPUs[i] = g.WithInterconnect(link)
	}
	return c, nil
}

// Interconnect finds a GPU-to-GPU link by id or name.
func (c *Catalog) Interconnect(name string) (Interconnect, error) {
	return lookup("interconnect", name, c.Interconnects, func(l Interconnect) (string, []string) {
		return l.ID, []string{l.Name}
	})
}

// defaultInterconnect is the link assumed for a GPU without one in the catalog (one
// described on the command line): a PCIe 4.0 x16 slot, the commonest today.
const defaultInterconnect = "pcie-gen4-x16"

// normalizeName folds the ways people write a name: case, spaces, dashes,
// underscores, dots between letters, "nvidia"/"geforce"/"apple" prefixes.
func normalizeName(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"nvidia ", "nvidia-", "geforce ", "geforce-", "apple ", "apple-", "amd "} {
		s = strings.TrimPrefix(s, p)
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// NotFoundError says a name is not in a catalog, with the closest names.
type NotFoundError struct {
	Kind    string
	Name    string
	Closest []string
}

func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("unknown %s %q", e.Kind, e.Name)
	if len(e.Closest) > 0 {
		msg += " (did you mean " + strings.Join(e.Closest, ", ") + "?)"
	}
	return msg + fmt.Sprintf("; see llmbench calc --list %ss", e.Kind)
}

// lookup finds the entry whose id or alias matches name after normalization.
func lookup[T any](kind, name string, items []T, keys func(T) (string, []string)) (T, error) {
	it, _, err := lookupKey(kind, name, items, keys)
	return it, err
}

// lookupKey is lookup that also says which of the entry's keys matched.
func lookupKey[T any](kind, name string, items []T, keys func(T) (string, []string)) (T, string, error) {
	var zero T
	n := normalizeName(name)
	if n == "" {
		return zero, "", fmt.Errorf("empty %s name", kind)
	}
	for _, it := range items {
		id, aliases := keys(it)
		if normalizeName(id) == n {
			return it, id, nil
		}
		for _, a := range aliases {
			if a != "" && normalizeName(a) == n {
				return it, a, nil
			}
		}
	}
	return zero, "", notFound(kind, name, n, items, keys)
}

// notFound is the error for a name no entry has, with the closest entries' ids.
func notFound[T any](kind, name, n string, items []T, keys func(T) (string, []string)) error {
	type scored struct {
		id string
		d  int
	}
	var cands []scored
	for _, it := range items {
		id, aliases := keys(it)
		best := levenshtein(n, normalizeName(id))
		for _, a := range aliases {
			if d := levenshtein(n, normalizeName(a)); d < best {
				best = d
			}
		}
		if strings.Contains(normalizeName(id), n) || strings.Contains(n, normalizeName(id)) {
			best = min(best, 1)
		}
		cands = append(cands, scored{id, best})
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].d < cands[j].d })
	var closest []string
	for _, c := range cands {
		if len(closest) == 3 || c.d > max(3, len(n)/2) {
			break
		}
		closest = append(closest, c.id)
	}
	return &NotFoundError{Kind: kind, Name: name, Closest: closest}
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// GPU finds a GPU by id, name or alias ("rtx-3090", "RTX 3090", "h100-sxm"), also
// labelled with its memory ("RTX 4090 24 GB": gpuKey).
func (c *Catalog) GPU(name string) (GPU, error) {
	g, _, err := c.gpuKey(name)
	return g, err
}

// Model finds a model by id, Hugging Face id or alias, or by the name's family as
// ResolveModel reads it (an Ollama tag, a GGUF file name, a repo id with a format).
func (c *Catalog) Model(name string) (Model, error) {
	m, err := c.ResolveModel(name)
	return m.Model, err
}

// Quant finds a weight format. A name that says only a width ("4bit", "4-bit",
// MLX's and bitsandbytes' words) is not one format: the error offers those of that
// width.
func (c *Catalog) Quant(name string) (Quant, error) {
	q, err := lookup("quant", name, c.Quants, quantKeys)
	var nf *NotFoundError
	if m := bitWidth.FindStringSubmatch(strings.ToLower(strings.TrimSpace(name))); m != nil && errors.As(err, &nf) {
		bits, _ := strconv.Atoi(m[1])
		nf.Closest = nil
		for _, q := range c.Quants {
			if int(q.Bits) == bits {
				nf.Closest = append(nf.Closest, q.ID)
			}
		}
	}
	return q, err
}

// bitWidth is a weight format named by its width alone.
var bitWidth = regexp.MustCompile(`^([0-9]+)[ _-]?bits?$`)

// KVDtype finds a KV cache dtype.
func (c *Catalog) KVDtype(name string) (KVDtype, error) {
	return lookup("kv-dtype", name, c.KVDtypes, func(k KVDtype) (string, []string) {
		return k.ID, append([]string{k.Name}, k.Aliases...)
	})
}

// Engine finds a serving engine.
func (c *Catalog) Engine(name string) (Engine, error) {
	return lookup("engine", name, c.Engines, func(e Engine) (string, []string) {
		return e.ID, append([]string{e.Name}, e.Aliases...)
	})
}

// Efficiency returns the fitted factors of a family, or an error when none were fitted.
func (c *Catalog) Efficiency(family string) (Efficiency, error) {
	e, ok := c.Efficiencies[family]
	if !ok {
		return Efficiency{}, fmt.Errorf("no efficiency factors for engine family %q", family)
	}
	return e, nil
}
