package perf

import (
	"errors"
	"fmt"
	"math"
)

// Setup is one configuration to predict: hardware, model, formats, engine and the
// memory share the engine is given.
type Setup struct {
	GPU  GPU
	GPUs int // tensor-parallel degree; 0 means 1
	// PipelineStages splits the layers over this many groups of GPUs (vLLM's
	// --pipeline-parallel-size); 0 means 1. Each stage holds its share of the weights
	// and KV cache; a token passes the stages one after another.
	PipelineStages int
	// HostExpertLayers is how many layers keep their routed experts in host memory,
	// where the CPU computes them (llama.cpp's --n-cpu-moe); HostBandwidthGBps is the
	// host memory's bandwidth the CPU reads them at. 0 keeps every expert resident.
	HostExpertLayers  int
	HostBandwidthGBps float64
	Model             Model
	Quant             Quant
	KV                KVDtype
	// Engine supplies the runtime reserve and the efficiency family; Eff the factors.
	Engine Engine
	Eff    Efficiency
	// MemoryUtilization is the share of each GPU's memory the engine may use
	// (vLLM's --gpu-memory-utilization).
	MemoryUtilization float64
	// ReserveGiB overrides the engine's runtime reserve when > 0.
	ReserveGiB float64
	// PrefillChunk is the most prompt tokens one step computes (chunked prefill);
	// 0 means the engine default (ChunkFor).
	PrefillChunk int
	// MaxModelLen is the engine's max_model_len (vLLM --max-model-len); 0 means the
	// model's context. vLLM reports a hybrid model's cache in requests of this length
	// (HybridKV); PredictRun fills it from the plan when it is 0.
	MaxModelLen int64
	// NoPrefixCaching is an engine run with prefix caching off (vLLM
	// --no-enable-prefix-caching); vLLM V1 turns it on by default. It changes how many
	// blocks a hybrid model's recurrent state takes per request.
	NoPrefixCaching bool
	// MambaSSMBytes overrides the bytes per element of a hybrid model's recurrent
	// (temporal) state, as vLLM's --mamba-ssm-cache-dtype does (float16 = 2 instead of
	// a Qwen3.5-style model's float32); 0 keeps the model's own.
	MambaSSMBytes int
	// LoadedWeightsGiB is the weights per GPU as the engine loaded them (vLLM logs
	// "Model loading took X GiB"), when known; it replaces the bits-per-weight formula
	// in the memory split, not in the speed model.
	LoadedWeightsGiB float64
	// MaxNumSeqs is the engine's max_num_seqs; 0 means vLLM's default (MaxSeqsFor). vLLM
	// warms its sampler up on that many rows of logits, which sizes part of its reserve.
	MaxNumSeqs int
}

// MaxSeqsFor is max_num_seqs: the setup's own, else vLLM's default for the OpenAI
// server — 1024 on GPUs with ≥ 70 GiB, 256 below (EngineArgs._set_default_args).
func (s Setup) MaxSeqsFor() int {
	if s.MaxNumSeqs > 0 {
		return s.MaxNumSeqs
	}
	if s.GPU.VRAMGiB >= 70 {
		return 1024
	}
	return 256
}

// linearState is the model's recurrent state with the setup's dtype override applied.
func (s Setup) linearState() *LinearState {
	ls := s.Model.LinearState
	if ls == nil || s.MambaSSMBytes <= 0 {
		return ls
	}
	c := *ls
	c.StateBytes = s.MambaSSMBytes
	return &c
}

// pp is the pipeline stages, at least 1.
func (s Setup) pp() int { return max(s.PipelineStages, 1) }

func (s Setup) n() int {
	if s.GPUs < 1 {
		return 1
	}
	return s.GPUs
}

// WeightBytes is the size of the model's weights in this format, all GPUs together.
func (s Setup) WeightBytes() float64 {
	emb := s.Model.EmbeddingParamsB * 1e9
	rest := s.Model.ParamsB*1e9 - emb
	return rest*s.Quant.Bits/8 + emb*s.Quant.EmbeddingBits/8
}

// attentionLayers is how many layers cache K/V for every token of the context.
func (m Model) attentionLayers() int {
	switch m.Attention {
	case "linear":
		return m.FullAttentionLayers
	case "sliding":
		return m.Layers - m.SlidingLayers
	default:
		return m.Layers
	}
}

// kvElementsPerTokenPerLayer is how many values one layer caches per token.
func (m Model) kvElementsPerTokenPerLayer() float64 {
	if m.Attention == "mla" {
		return float64(m.KVLoraRank + m.QKRopeHeadDim)
	}
	return float64(2 * m.KVHeads * m.HeadDim)
}

// KVBytesPerToken is the KV cache one more token of context costs, all GPUs together:
// layers that cache every token × K and V × KV heads × head dim × dtype size. Sliding-
// window layers and recurrent layers do not grow with the context (see
// KVBytesPerSequence); an MLA layer caches one latent of kv_lora_rank + rope dims.
func (s Setup) KVBytesPerToken() float64 {
	return float64(s.Model.attentionLayers()) * s.Model.kvElementsPerTokenPerLayer() * s.KV.Bits / 8
}

// KVBytesPerSequence is what a sequence holds regardless of its length: the sliding
// window of local layers (once the context exceeds it) and the recurrent state of
// linear-attention layers.
func (s Setup) KVBytesPerSequence() float64 {
	m := s.Model
	var b float64
	if m.Attention == "sliding" {
		b += float64(m.SlidingLayers*m.SlidingWindow) * m.kvElementsPerTokenPerLayer() * s.KV.Bits / 8
	}
	if ls := s.linearState(); ls != nil {
		b += float64(ls.BytesPerSequence())
	}
	return b
}

// kvShards is how many ways the KV cache splits across tensor-parallel GPUs: KV heads
// split up to their number and are replicated beyond it; an MLA latent is replicated.
func (s Setup) kvShards() float64 {
	if s.Model.Attention == "mla" {
		return 1
	}
	return float64(min(s.n(), max(s.Model.KVHeads, 1)))
}

// ReserveBytes is the per-GPU memory the engine keeps beyond weights and KV cache.
func (s Setup) ReserveBytes() float64 {
	if s.ReserveGiB > 0 {
		return s.ReserveGiB * GiB
	}
	return s.Engine.Reserve.GiBFor(s.Model, s.n(), min(s.MaxSeqsFor(), s.ChunkFor())) * GiB
}

// ErrNoRoom says the weights and runtime reserve leave no memory for a KV cache.
var ErrNoRoom = errors.New("the weights and the runtime reserve leave no room for a KV cache")

// MemoryBreakdown is where each GPU's memory goes.
type MemoryBreakdown struct {
	BudgetBytes  float64 // utilization × the memory CUDA reports (GPU.CUDATotalBytes)
	WeightBytes  float64 // per GPU
	ReserveBytes float64
	KVBytes      float64 // what is left for the KV cache, per GPU
	KVTokens     int64   // the cache in tokens (engine-reported style)
	// Hybrid is vLLM's layout of a hybrid attention + recurrent-state model's cache,
	// which KVTokens then comes from; nil where the bytes-per-token rule applies.
	Hybrid *HybridKV
}

// Memory splits the per-GPU budget: utilization × CUDA-visible memory − weights/N − reserve is the KV
// cache, which holds KVBytes / (KVBytesPerToken / shards) tokens. That is how vLLM sizes
// and reports a pure-attention model's cache ("GPU KV cache size: N tokens"). For a
// hybrid model under the vLLM profile, the tokens are vLLM's hybrid count instead (see
// HybridKV): pages sized to the recurrent state, shared by layer groups, reported as
// max_model_len requests.
func (s Setup) Memory() (MemoryBreakdown, error) {
	util := s.MemoryUtilization
	if util <= 0 || util > 1 {
		return MemoryBreakdown{}, fmt.Errorf("memory utilization %.3g is not in (0, 1]", util)
	}
	mb := MemoryBreakdown{
		// vLLM's requested memory is the utilization × the total cudaMemGetInfo reports
		// (Worker.init_device, vllm/v1/worker/gpu_worker.py), not the card's size.
		BudgetBytes:  util * float64(s.GPU.CUDATotalBytes()),
		WeightBytes:  s.WeightBytes() / float64(s.n()*s.pp()),
		ReserveBytes: s.ReserveBytes(),
	}
	if s.LoadedWeightsGiB > 0 {
		mb.WeightBytes = s.LoadedWeightsGiB * GiB
	}
	mb.WeightBytes -= s.hostExpertBytes() / float64(s.n()*s.pp())
	mb.KVBytes = mb.BudgetBytes - mb.WeightBytes - mb.ReserveBytes
	perToken := s.KVBytesPerToken() / s.kvShards() / float64(s.pp())
	if mb.KVBytes <= 0 || perToken <= 0 {
		return mb, fmt.Errorf("%s at %s needs %.1f GiB per GPU for weights and %.1f GiB reserve, %.0f%% of %.0f GiB is %.1f GiB: %w",
			s.Model.Name, s.Quant.Name, mb.WeightBytes/GiB, mb.ReserveBytes/GiB, util*100, float64(s.GPU.CUDATotalBytes())/GiB, mb.BudgetBytes/GiB, ErrNoRoom)
	}
	mb.KVTokens, mb.Hybrid = s.kvLayout(mb.KVBytes)
	return mb, nil
}

// kvLayout is the capacity an engine reports for a KV cache of kvBytes per GPU: vLLM's
// hybrid count (with its layout) where it applies, else the bytes per token.
func (s Setup) kvLayout(kvBytes float64) (int64, *HybridKV) {
	if h := s.hybridKV(kvBytes); h != nil {
		return h.Tokens, h
	}
	perToken := s.KVBytesPerToken() / s.kvShards() / float64(s.pp())
	if perToken <= 0 {
		return 0, nil
	}
	tokens := int64(kvBytes / perToken)
	if s.Engine.ID == "vllm" {
		// vLLM allocates whole blocks of 16 tokens and reports blocks × 16.
		tokens -= tokens % vllmBlockSize
	}
	return tokens, nil
}

// vllmBlockSize is vLLM's default KV block size for attention-only models.
const vllmBlockSize = 16

// KVCacheTokens is the KV cache size in tokens (see Memory).
func (s Setup) KVCacheTokens() (int64, error) {
	mb, err := s.Memory()
	return mb.KVTokens, err
}

// Chunk is one piece of prompt computed in a step: Tokens new tokens on top of Start
// cached ones.
type Chunk struct{ Start, Tokens int }

// StepTerms are a step's ideal times at 100% efficiency, before the fitted factors,
// and the counts its overheads scale with.
type StepTerms struct {
	MemorySeconds  float64 // bytes moved / peak bandwidth, per GPU
	ComputeSeconds float64 // FLOPs / peak tensor rate, per GPU
	// AttentionSeconds is the part of ComputeSeconds that is attention (QKᵀ and PV over
	// the context), which runs at Efficiency.AttentionCompute rather than Compute.
	AttentionSeconds float64
	// ExpertSeconds is the part of ComputeSeconds that is an MoE model's expert GEMMs,
	// which run at Efficiency.ExpertCompute of the dense rate; 0 where the engine
	// multiplies the step with matrix-vector kernels (matVecTokens), which read an
	// expert's weights as they read a dense weight's.
	ExpertSeconds float64
	// Dequantized says the step's weight GEMMs dequantize their weights in the kernel
	// (Setup.Dequantized), so they run at Efficiency.DequantCompute of the native rate.
	Dequantized bool
	CommSeconds float64 // tensor-parallel all-reduces
	// HostSeconds is the CPU's reading of host-resident experts (HostExpertLayers) at
	// the host's bandwidth, after which the GPU goes on: it adds to the step.
	HostSeconds float64
	// Layers is the model's layers: each launches its kernels once per step.
	Layers int
	// MoELayers is the layers that route to experts and RoutedExperts the experts one
	// such layer runs separately in the step (Setup.routedExperts), each with its own
	// work (Efficiency.OverheadPerExpertUs).
	MoELayers     int
	RoutedExperts float64
	// ClockScale stretches the per-layer overhead for a GPU clocked below the
	// reference (its small kernels take cycles, not time); 0 means 1.
	ClockScale float64
	// Seqs is the sequences the step computes (decoding ones and prefill chunks).
	Seqs int
}

// hostExpertShare is the share of the routed experts kept in host memory.
func (s Setup) hostExpertShare() float64 {
	l := s.Model.moeLayers()
	if l == 0 || s.HostExpertLayers <= 0 {
		return 0
	}
	return float64(min(s.HostExpertLayers, l)) / float64(l)
}

// hostExpertBytes is the routed-expert weights kept in host memory.
func (s Setup) hostExpertBytes() float64 {
	return s.Model.ExpertParamsB * 1e9 * s.Quant.Bits / 8 * s.hostExpertShare()
}

// streamedExpertBytes splits a step's routed-expert traffic of tokens tokens into what
// the GPU reads and what the CPU reads from host memory.
func (s Setup) streamedExpertBytes(tokens int) (gpu, host float64) {
	m := s.Model
	if m.Experts == 0 || m.ExpertsPerToken == 0 || m.ExpertParamsB == 0 {
		return 0, 0
	}
	expertBytes := m.ExpertParamsB * 1e9 * s.Quant.Bits / 8
	touched := expertBytes * (1 - math.Pow(1-float64(m.ExpertsPerToken)/float64(m.Experts), float64(max(tokens, 1))))
	share := s.hostExpertShare()
	return touched * (1 - share), touched * share
}

// weightBytesRead is the weight traffic of a step that computes tokens tokens: every
// dense weight once; for an MoE model, each expert that at least one token routes to
// (tokens routed independently, k of E experts each).
func (s Setup) weightBytesRead(tokens int) float64 {
	total := s.WeightBytes() - s.Model.lookupOnlyParams()*1e9*s.Quant.EmbeddingBits/8
	m := s.Model
	if m.Experts == 0 || m.ExpertsPerToken == 0 || m.ExpertParamsB == 0 {
		return total
	}
	gpu, _ := s.streamedExpertBytes(tokens)
	return total - m.ExpertParamsB*1e9*s.Quant.Bits/8 + gpu
}

// lookupOnlyParams is the parameters (billions) a step reads only a few rows of: the
// input embedding of a model with an untied output head (embedding_params_b is then
// twice vocab × hidden). A step looks up one row per token; the output head, tied or
// not, is a full matrix multiply.
func (m Model) lookupOnlyParams() float64 {
	table := float64(m.Vocab) * float64(m.Hidden) / 1e9
	if table > 0 && m.EmbeddingParamsB > 1.5*table {
		return table
	}
	return 0
}

// attentionFLOPs is the attention math of one query token against ctx cached tokens:
// QKᵀ and PV, 2 FLOPs per multiply-add, over the layers that attend to them.
func (m Model) attentionFLOPs(ctx float64) float64 {
	per := 4 * float64(m.Heads*m.HeadDim)
	switch m.Attention {
	case "sliding":
		w := math.Min(ctx, float64(m.SlidingWindow))
		return per * (float64(m.Layers-m.SlidingLayers)*ctx + float64(m.SlidingLayers)*w)
	default:
		return per * float64(m.attentionLayers()) * ctx
	}
}

// kvBytesRead is the cache a decode token reads at context ctx (plus its recurrent
// state, read and written).
func (s Setup) kvBytesRead(ctx float64) float64 {
	m := s.Model
	b := s.KVBytesPerToken() * ctx
	if m.Attention == "sliding" {
		b += float64(m.SlidingLayers) * math.Min(ctx, float64(m.SlidingWindow)) * m.kvElementsPerTokenPerLayer() * s.KV.Bits / 8
	}
	if m.LinearState != nil {
		b += 2 * float64(m.LinearState.BytesPerSequence())
	}
	return b
}

// Terms computes a step's ideal times: prefill chunks and decode sequences (by their
// current context) processed together, as a continuous-batching engine does.
func (s Setup) Terms(chunks []Chunk, decodeContexts []int) StepTerms {
	n := float64(s.n())
	tokens := len(decodeContexts)
	var attn, kvBytes float64
	for _, c := range decodeContexts {
		attn += s.Model.attentionFLOPs(float64(c))
		kvBytes += s.kvBytesRead(float64(c))
	}
	for _, ch := range chunks {
		tokens += ch.Tokens
		// Each new token attends to the cached start plus, causally, half the chunk.
		attn += float64(ch.Tokens) * s.Model.attentionFLOPs(float64(ch.Start)+float64(ch.Tokens)/2)
		kvBytes += s.KVBytesPerToken() * float64(ch.Start+ch.Tokens)
	}
	rows := float64(s.gemmRows(tokens))
	expert := 2 * s.Model.activeExpertParams() * rows
	if s.Engine.vectorKernels() && tokens <= matVecTokens {
		// llama.cpp multiplies a step this small with its matrix-vector kernels, an
		// expert's weights (MUL_MAT_ID) as a dense weight's: one row per token, no tile
		// to fill, no grouped GEMM. Its expert FLOPs run at the dense rate.
		expert = 0
	}
	flops := attn + 2*(s.Model.Active()-s.Model.lookupOnlyParams()*1e9)*rows
	bytes := s.weightBytesRead(tokens) + kvBytes
	compute := s.GPU.kernelPeakTFLOPS(s.Quant.Compute, s.Engine.SmallBatchGEMM) * 1e12
	t := StepTerms{
		MemorySeconds:    bytes / n / (s.GPU.BandwidthGBps * 1e9),
		ComputeSeconds:   flops / n / compute,
		AttentionSeconds: attn / n / compute,
		ExpertSeconds:    expert / n / compute,
		Dequantized:      s.Dequantized(),
		Layers:           s.Model.Layers,
		MoELayers:        s.Model.moeLayers(),
		RoutedExperts:    s.routedExperts(tokens),
		ClockScale:       s.GPU.clockScale(),
		Seqs:             len(decodeContexts) + len(chunks),
	}
	if s.n() > 1 && tokens > 0 {
		t.CommSeconds = 2 * float64(s.Model.Layers) * s.allReduceSeconds(float64(tokens*s.Model.Hidden)*activationBytes)
	}
	if _, host := s.streamedExpertBytes(tokens); host > 0 && s.HostBandwidthGBps > 0 {
		t.HostSeconds = host / (s.HostBandwidthGBps * 1e9)
	}
	if pp := s.pp(); pp > 1 && tokens > 0 {
		// The stages run one after another for a step's tokens (no overlap of
		// micro-batches is modelled): their times add up to the whole model's, plus one
		// hand-over of the hidden states between consecutive stages.
		bw, lat := s.linkFigures()
		t.CommSeconds += float64(pp-1) * (lat*1e-6 + float64(tokens*s.Model.Hidden)*activationBytes/(bw*1e9))
	}
	return t
}

// Dequantized says the setup's weight GEMMs dequantize their weights in the kernel:
// a format of fewer than 16 bits that computes in FP16 (GGUF, GPTQ/AWQ, W4A16, W8A16)
// or whose compute kind the GPU lacks (FP8 on an Ampere card runs as a weight-only
// Marlin GEMM).
func (s Setup) Dequantized() bool {
	return s.Quant.Bits < 16 && (s.Quant.Compute == "fp16" || s.Quant.Compute == "" || !s.GPU.nativeCompute(s.Quant.Compute))
}

// matVecTokens is the most tokens a step of a vector-kernel engine multiplies with
// matrix-vector kernels: llama.cpp's MMVQ_MAX_BATCH_SIZE (ggml/src/ggml-cuda/mmvq.cuh),
// above which it runs its tiled MMQ GEMMs.
const matVecTokens = 8

// routedExperts is the experts one MoE layer runs separately in a step of tokens
// tokens: those the tokens route to, E × (1 − (1 − k/E)^T) (tokens routed
// independently, k of E each), k at batch 1 and nearly all E for a long chunk. A
// vector-kernel engine's matrix-vector step (matVecTokens) runs k: llama.cpp's
// MUL_MAT_ID reads every token's k experts in one kernel per projection and sums the k
// outputs with k − 1 additions over all the step's tokens. 0 for a dense model, or
// where the routing is a stand-in (Model.RoutingUnknown).
func (s Setup) routedExperts(tokens int) float64 {
	m := s.Model
	if m.activeExpertParams() == 0 || m.RoutingUnknown || tokens <= 0 {
		return 0
	}
	k, e := float64(m.ExpertsPerToken), float64(m.Experts)
	if s.Engine.vectorKernels() && tokens <= matVecTokens {
		return k
	}
	return e * (1 - math.Pow(1-k/e, float64(tokens)))
}

// moeLayers is the layers that route to experts: all of an MoE model's (DeepSeek's
// leading dense layers are counted as routed), none of a dense one's.
func (m Model) moeLayers() int {
	if m.activeExpertParams() > 0 {
		return m.Layers
	}
	return 0
}

// activeExpertParams is the expert parameters one token multiplies in an MoE model:
// k of E experts' share of the expert weights.
func (m Model) activeExpertParams() float64 {
	if m.Experts == 0 || m.ExpertsPerToken == 0 || m.ExpertParamsB == 0 {
		return 0
	}
	return m.ExpertParamsB * 1e9 * float64(m.ExpertsPerToken) / float64(m.Experts)
}

// gemmRows is the rows a step's weight GEMMs compute for tokens tokens: a tensor-core
// GEMM computes whole tiles, so an engine that runs small batches on tensor cores pays
// for at least the GPU's tile (Hopper's wgmma: 64 rows), however few tokens decode.
func (s Setup) gemmRows(tokens int) int {
	if s.Engine.SmallBatchGEMM == "tensor" {
		return max(tokens, s.GPU.TileRows())
	}
	return tokens
}

// activationBytes is the size of one hidden-state value on the wire: engines all-reduce
// the residual stream in the model dtype (BF16/FP16) whatever the weight format.
const activationBytes = 2

// allReduceSeconds is one all-reduce of msg bytes over the setup's GPUs in the α–β
// model of a ring all-reduce: a fixed latency α (the interconnect's published
// small-message NCCL time) plus 2(N−1)/N of the message over the per-direction link
// bandwidth β, since every GPU sends and receives that share at the same time.
//
// Megatron-style tensor parallelism (vLLM, SGLang, TensorRT-LLM) all-reduces the
// hidden state twice per layer and step, after the attention (or linear-attention)
// block and after the MLP, so a step pays 2 × layers of these, each carrying every
// token the step computes: one per decoding sequence, a whole chunk in prefill.
func (s Setup) allReduceSeconds(msg float64) float64 {
	n := float64(s.n())
	if n <= 1 {
		return 0
	}
	bw, lat := s.linkFigures()
	return lat*1e-6 + 2*(n-1)/n*msg/(bw*1e9)
}

// linkFigures are the GPU-to-GPU link's bandwidth (GB/s, one direction) and
// all-reduce latency (µs). A GPU with no catalog interconnect (Apple, or one given on
// the command line) is assumed to sit in a PCIe 4.0 x16 slot; figures it does give are
// kept.
func (s Setup) linkFigures() (gbps, latencyUs float64) {
	gbps, latencyUs = s.GPU.LinkGBps, s.GPU.AllReduceLatencyUs
	if gbps > 0 && latencyUs > 0 {
		return gbps, latencyUs
	}
	link, err := MustLoad().Interconnect(defaultInterconnect)
	if err != nil {
		panic(err) // the embedded catalog is checked by the package's tests
	}
	if gbps <= 0 {
		gbps = link.LinkGBps
	}
	if latencyUs <= 0 {
		latencyUs = link.AllReduceLatencyUs
	}
	return gbps, latencyUs
}

// Seconds turns ideal terms into a step time with the fitted efficiency factors: the
// slower of memory and compute (a roofline) plus the share NoOverlap of the faster
// that the step does not hide, the per-step overheads (fixed, per layer, per routed
// expert of each MoE layer, per sequence beyond the first) and the communication.
func (e Efficiency) Seconds(t StepTerms) float64 {
	bw, cp := e.Bandwidth, e.Compute
	if bw <= 0 {
		bw = 1
	}
	if cp <= 0 {
		cp = 1
	}
	ca := e.AttentionCompute
	if ca <= 0 {
		ca = cp
	}
	gemm := cp
	if t.Dequantized && e.DequantCompute > 0 {
		gemm *= e.DequantCompute
	}
	ex := 1.0
	if e.ExpertCompute > 0 {
		ex = e.ExpertCompute
	}
	dense := t.ComputeSeconds - t.AttentionSeconds - t.ExpertSeconds
	m, c := t.MemorySeconds/bw, dense/gemm+t.ExpertSeconds/(gemm*ex)+t.AttentionSeconds/ca
	kernels := float64(t.Layers)*e.OverheadPerLayerUs + float64(t.MoELayers)*t.RoutedExperts*e.OverheadPerExpertUs
	return math.Max(m, c) + e.NoOverlap*math.Min(m, c) + e.OverheadMs/1000 +
		(kernels*orOneF(t.ClockScale)+float64(max(t.Seqs-1, 0))*e.OverheadPerSeqUs)/1e6 + t.CommSeconds + t.HostSeconds
}

// aged are the factors for an engine build of the given date (years; 0 is none):
// the engine's own work takes 1 + AgeSlowdownPerYear × age as long, age being the
// years from the build to EvidenceThrough. A build newer than the evidence gets the
// factors as they are: the model does not extrapolate speedups.
func (e Efficiency) aged(year float64) Efficiency {
	ref, err := monthYear(e.EvidenceThrough)
	if err != nil || ref == 0 || year == 0 || year >= ref || e.AgeSlowdownPerYear <= 0 {
		return e
	}
	f := 1 + e.AgeSlowdownPerYear*(ref-year)
	cp := e.Compute
	if cp <= 0 {
		cp = 1
	}
	if e.AttentionCompute <= 0 {
		e.AttentionCompute = cp
	}
	e.Compute = cp / f
	e.AttentionCompute /= f
	e.OverheadMs *= f
	e.OverheadPerLayerUs *= f
	e.OverheadPerExpertUs *= f
	e.OverheadPerSeqUs *= f
	return e
}

// StepSeconds is the wall time of one engine step.
func (s Setup) StepSeconds(chunks []Chunk, decodeContexts []int) float64 {
	if len(chunks) == 0 && len(decodeContexts) == 0 {
		return 0
	}
	return s.Eff.Seconds(s.Terms(chunks, decodeContexts))
}

// ChunkFor is the prefill chunk size: the setup's own, else vLLM's default
// max_num_batched_tokens (8192 on GPUs with ≥ 70 GiB, 2048 below), or llama.cpp's
// 512-token micro-batch.
func (s Setup) ChunkFor() int {
	if s.PrefillChunk > 0 {
		return s.PrefillChunk
	}
	if s.Engine.vectorKernels() {
		return 512
	}
	if s.GPU.VRAMGiB >= 70 {
		return 8192
	}
	return 2048
}

// PrefillSeconds is the time to compute a cold prompt of context tokens alone, chunk by
// chunk: the time to first token of a request with nothing cached.
func (s Setup) PrefillSeconds(context int) float64 {
	chunk := s.ChunkFor()
	var total float64
	for start := 0; start < context; start += chunk {
		total += s.StepSeconds([]Chunk{{Start: start, Tokens: min(chunk, context-start)}}, nil)
	}
	return total
}

// DecodeStepSeconds is one decode step of batch sequences, each at context ctx.
func (s Setup) DecodeStepSeconds(ctx, batch int) float64 {
	ctxs := make([]int, batch)
	for i := range ctxs {
		ctxs[i] = ctx
	}
	return s.StepSeconds(nil, ctxs)
}

func orOneF(v float64) float64 {
	if v <= 0 {
		return 1
	}
	return v
}

// referenceClockMHz is the clock the per-layer overhead is quoted at.
const referenceClockMHz = 2000

func (g GPU) clockScale() float64 {
	if g.BoostClockMHz <= 0 {
		return 1
	}
	return referenceClockMHz / g.BoostClockMHz
}
