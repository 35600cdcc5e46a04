package perf

// vLLM sizes the cache of a hybrid model — full-attention layers plus Gated DeltaNet /
// Mamba-style recurrent layers — differently from a pure-attention one: every layer's
// block ("page") has one size, the recurrent state of one sequence fills one page, and
// the capacity it reports is the number of max_model_len requests the pool holds, in
// tokens. This file follows vLLM's source, function by function (docs/calc.md, "What
// vLLM's own hybrid accounting gives").

// kernelBlockAlignment is the multiple vLLM rounds a hybrid model's attention block size
// to: FlashAttention's kernel block size, 16 tokens
// (HybridAttentionMambaModelConfig.verify_and_update_config in
// vllm/model_executor/models/config.py; Platform._align_hybrid_block_size in
// vllm/platforms/interface.py in newer releases).
const kernelBlockAlignment = 16

// HybridKV is vLLM's cache layout for a hybrid attention + recurrent-state model on one
// GPU, and the capacity it reports.
type HybridKV struct {
	// MambaPageBytes is one linear layer's recurrent state for one sequence
	// (MambaSpec.page_size_bytes, vllm/v1/kv_cache_interface.py), before padding.
	MambaPageBytes int64
	// AttentionBytesPerToken is one token of one attention layer: K and V of this
	// GPU's KV heads in the KV cache dtype.
	AttentionBytesPerToken int64
	// BlockSize is the attention block in tokens, raised so that an attention page
	// holds a mamba page.
	BlockSize int
	// PageBytes is every layer's page: BlockSize × AttentionBytesPerToken; the mamba
	// page is padded up to it.
	PageBytes int64
	// GroupSize is the layers per KV cache group, and so the number of pool tensors
	// the groups share (_get_kv_cache_groups_uniform_page_size,
	// vllm/v1/core/kv_cache_utils.py).
	GroupSize int
	// AttentionGroups and LinearGroups are how many groups each layer type makes.
	AttentionGroups, LinearGroups int
	// NumBlocks is available bytes // PageBytes // GroupSize (get_num_blocks).
	NumBlocks int64
	// MaxModelLen is the request length the capacity is counted in.
	MaxModelLen int64
	// PrefixCaching selects the recurrent state's "align" mode: 2 blocks per linear
	// group and request instead of 1.
	PrefixCaching bool
	// StateBlocksPerRequest is what a request's recurrent state takes: 1 or 2 blocks
	// per linear group, whatever its length.
	StateBlocksPerRequest int64
	// BlocksPerRequest is what one max_model_len request takes: cdiv(MaxModelLen,
	// BlockSize) per attention group plus StateBlocksPerRequest.
	BlocksPerRequest int64
	// Tokens is the capacity vLLM reports ("GPU KV cache size", kv_cache_size_tokens):
	// int(NumBlocks / BlocksPerRequest × MaxModelLen).
	Tokens int64
}

// hybridApplies says whether the cache is sized the vLLM hybrid way: a vLLM-profile
// engine and a model with both attention layers and recurrent layers. Other engines and
// pure-attention models keep the bytes-per-token rule of Memory.
func (s Setup) hybridApplies() bool {
	m := s.Model
	return s.Engine.ID == "vllm" && m.Attention == "linear" && m.LinearState != nil &&
		m.LinearState.Layers > 0 && m.attentionLayers() > 0
}

// maxModelLen is the engine's max_model_len: the setup's, else the model's context.
func (s Setup) maxModelLen() int64 {
	if s.MaxModelLen > 0 {
		return s.MaxModelLen
	}
	return int64(s.Model.Context)
}

// hybridKV lays out availableBytes per GPU the way vLLM does for a hybrid model. It
// returns nil when the hybrid rule does not apply or the inputs leave nothing to count.
func (s Setup) hybridKV(availableBytes float64) *HybridKV {
	if !s.hybridApplies() || availableBytes <= 0 {
		return nil
	}
	m, tp := s.Model, s.n()
	maxLen := s.maxModelLen()
	if maxLen <= 0 {
		return nil
	}
	h := HybridKV{
		MambaPageBytes: s.linearState().PageBytes(tp),
		// FullAttentionSpec(block_size=1).page_size_bytes: 2 (K, V) × KV heads per
		// GPU × head size × dtype size.
		AttentionBytesPerToken: int64(float64(2*cdiv(max(m.KVHeads, 1), tp)*m.HeadDim) * s.KV.Bits / 8),
		MaxModelLen:            maxLen,
		PrefixCaching:          !s.NoPrefixCaching,
	}
	if h.AttentionBytesPerToken <= 0 || h.MambaPageBytes <= 0 {
		return nil
	}
	// verify_and_update_config: attn_block_size = alignment × cdiv(mamba_page,
	// alignment × attn_page_1_token); the mamba page is padded to the attention page.
	h.BlockSize = kernelBlockAlignment * int(cdiv64(h.MambaPageBytes, kernelBlockAlignment*h.AttentionBytesPerToken))
	h.PageBytes = int64(h.BlockSize) * h.AttentionBytesPerToken

	// _get_kv_cache_groups_uniform_page_size: the group size is the fewest layers of
	// one type, or the most when that is under 1.25 × the fewest (less padding); each
	// type then splits into groups of that size.
	attn, lin := m.attentionLayers(), m.LinearState.Layers
	fewest, most := min(attn, lin), max(attn, lin)
	h.GroupSize = fewest
	if float64(most) < float64(fewest)*1.25 {
		h.GroupSize = most
	}
	h.AttentionGroups, h.LinearGroups = cdiv(attn, h.GroupSize), cdiv(lin, h.GroupSize)

	// get_kv_cache_config_from_groups / get_num_blocks: the groups share GroupSize
	// tensors, each of num_blocks pages.
	h.NumBlocks = int64(availableBytes) / h.PageBytes / int64(h.GroupSize)

	// get_max_concurrency_for_kv_cache_config: a max_model_len request takes
	// cdiv(max_model_len, block) blocks per attention group (FullAttentionSpec.
	// max_memory_usage_bytes) and, per linear group, 2 blocks in the "align" mode
	// prefix caching uses or 1 without (MambaSpec.max_memory_usage_bytes). The capacity
	// label is int(max_concurrency × max_model_len) (get_kv_cache_capacity /
	// update_kv_cache_capacity).
	statePerGroup := int64(1)
	if h.PrefixCaching {
		statePerGroup = 2
	}
	h.StateBlocksPerRequest = int64(h.LinearGroups) * statePerGroup
	h.BlocksPerRequest = int64(h.AttentionGroups)*cdiv64(maxLen, int64(h.BlockSize)) + h.StateBlocksPerRequest
	h.Tokens = h.NumBlocks * maxLen / h.BlocksPerRequest
	return &h
}

func cdiv64(a, b int64) int64 { return (a + b - 1) / b }
