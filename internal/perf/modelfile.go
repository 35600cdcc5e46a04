package perf

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	gguf "github.com/gpustack/gguf-parser-go"
)

// hfConfig is the part of a Hugging Face config.json the model needs. Multimodal
// configs nest the language model under text_config.
type hfConfig struct {
	ModelType             string          `json:"model_type"`
	TextConfig            json.RawMessage `json:"text_config"`
	NumHiddenLayers       int             `json:"num_hidden_layers"`
	HiddenSize            int             `json:"hidden_size"`
	IntermediateSize      int             `json:"intermediate_size"`
	NumAttentionHeads     int             `json:"num_attention_heads"`
	NumKeyValueHeads      int             `json:"num_key_value_heads"`
	HeadDim               int             `json:"head_dim"`
	VocabSize             int             `json:"vocab_size"`
	TieWordEmbeddings     *bool           `json:"tie_word_embeddings"`
	MaxPositionEmbeddings int             `json:"max_position_embeddings"`
	SlidingWindow         *int            `json:"sliding_window"`
	SlidingWindowPattern  int             `json:"sliding_window_pattern"`
	LayerTypes            []string        `json:"layer_types"`
	FullAttentionInterval int             `json:"full_attention_interval"`
	// MLA (DeepSeek).
	KVLoraRank      int `json:"kv_lora_rank"`
	QLoraRank       int `json:"q_lora_rank"`
	QKRopeHeadDim   int `json:"qk_rope_head_dim"`
	QKNopeHeadDim   int `json:"qk_nope_head_dim"`
	VHeadDim        int `json:"v_head_dim"`
	FirstKDense     int `json:"first_k_dense_replace"`
	NSharedExperts  int `json:"n_shared_experts"`
	NRoutedExperts  int `json:"n_routed_experts"`
	NumExperts      int `json:"num_experts"`
	NumLocalExperts int `json:"num_local_experts"`
	ExpertsPerToken int `json:"num_experts_per_tok"`
	MoEIntermediate int `json:"moe_intermediate_size"`
	// Gated DeltaNet (Qwen3-Next / Qwen3.5 hybrids).
	LinearNumKeyHeads   int    `json:"linear_num_key_heads"`
	LinearNumValueHeads int    `json:"linear_num_value_heads"`
	LinearKeyHeadDim    int    `json:"linear_key_head_dim"`
	LinearValueHeadDim  int    `json:"linear_value_head_dim"`
	LinearConvKernel    int    `json:"linear_conv_kernel_dim"`
	MambaSSMDtype       string `json:"mamba_ssm_dtype"`
}

// ModelFromHFConfig reads a Hugging Face config.json. Parameter counts are computed
// from the tensor shapes the config implies (the file does not state them).
func ModelFromHFConfig(path string) (Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Model{}, fmt.Errorf("reading model config: %w", err)
	}
	m, err := parseHFConfig(b)
	if err != nil {
		return Model{}, fmt.Errorf("model config %s: %w", path, err)
	}
	m.ID = strings.TrimSuffix(filepath.Base(filepath.Dir(path)), "/")
	if m.ID == "" || m.ID == "." {
		m.ID = "config"
	}
	m.Name = m.ID
	m.Source = path
	return m, nil
}

func parseHFConfig(b []byte) (Model, error) {
	var c hfConfig
	if err := json.Unmarshal(b, &c); err != nil {
		return Model{}, fmt.Errorf("parsing config.json: %w", err)
	}
	if len(c.TextConfig) > 0 && c.NumHiddenLayers == 0 {
		var t hfConfig
		if err := json.Unmarshal(c.TextConfig, &t); err != nil {
			return Model{}, fmt.Errorf("parsing text_config: %w", err)
		}
		if t.TieWordEmbeddings == nil {
			t.TieWordEmbeddings = c.TieWordEmbeddings
		}
		c = t
	}
	if c.NumHiddenLayers <= 0 || c.HiddenSize <= 0 || c.NumAttentionHeads <= 0 {
		return Model{}, fmt.Errorf("config lacks num_hidden_layers, hidden_size or num_attention_heads")
	}
	m := Model{
		Layers: c.NumHiddenLayers, Hidden: c.HiddenSize, Intermediate: c.IntermediateSize,
		Heads: c.NumAttentionHeads, KVHeads: c.NumKeyValueHeads, HeadDim: c.HeadDim,
		Vocab: c.VocabSize, Context: c.MaxPositionEmbeddings, Attention: "full",
	}
	if m.KVHeads == 0 {
		m.KVHeads = m.Heads
	}
	if m.HeadDim == 0 {
		m.HeadDim = m.Hidden / m.Heads
	}
	if m.KVHeads <= 0 || m.HeadDim <= 0 || m.Vocab < 0 || m.Intermediate < 0 {
		return Model{}, fmt.Errorf("config has a non-positive num_key_value_heads, head_dim, vocab_size or intermediate_size")
	}
	experts := max(c.NRoutedExperts, c.NumExperts, c.NumLocalExperts)
	if experts > 0 && c.ExpertsPerToken > 0 {
		m.Experts, m.ExpertsPerToken = experts, c.ExpertsPerToken
	}
	switch {
	case c.KVLoraRank > 0:
		m.Attention, m.KVLoraRank, m.QKRopeHeadDim = "mla", c.KVLoraRank, c.QKRopeHeadDim
		m.HeadDim = c.QKNopeHeadDim + c.QKRopeHeadDim
		m.KVHeads = m.Heads
	case c.LinearNumValueHeads > 0:
		full := 0
		for _, t := range c.LayerTypes {
			if t == "full_attention" {
				full++
			}
		}
		if full == 0 && c.FullAttentionInterval > 0 {
			full = m.Layers / c.FullAttentionInterval
		}
		stateBytes := 2
		if c.MambaSSMDtype == "float32" {
			stateBytes = 4
		}
		m.Attention, m.FullAttentionLayers = "linear", full
		m.LinearState = &LinearState{
			Layers: m.Layers - full, KeyHeads: c.LinearNumKeyHeads, ValueHeads: c.LinearNumValueHeads,
			KeyHeadDim: c.LinearKeyHeadDim, ValueHeadDim: c.LinearValueHeadDim, ConvKernel: c.LinearConvKernel,
			// The conv window is kept in the model dtype, BF16 for these checkpoints.
			StateBytes: stateBytes, ConvBytes: 2,
		}
	case c.SlidingWindow != nil && *c.SlidingWindow > 0:
		sliding := 0
		for _, t := range c.LayerTypes {
			if t == "sliding_attention" {
				sliding++
			}
		}
		if sliding == 0 && c.SlidingWindowPattern > 1 {
			sliding = m.Layers - m.Layers/c.SlidingWindowPattern
		}
		if sliding > 0 {
			m.Attention, m.SlidingWindow, m.SlidingLayers = "sliding", *c.SlidingWindow, sliding
		}
	}
	tied := c.TieWordEmbeddings != nil && *c.TieWordEmbeddings
	countParams(&m, c, tied)
	return m, nil
}

// countParams estimates the parameters from the shapes: embeddings, attention
// projections, MLPs (dense or routed + shared experts) and linear-attention layers.
// Norms and biases are left out (well under 0.1%).
func countParams(m *Model, c hfConfig, tied bool) {
	h := float64(m.Hidden)
	emb := float64(m.Vocab) * h
	if !tied {
		emb *= 2
	}
	attnLayers := float64(m.attentionLayers())
	if m.Attention == "sliding" {
		attnLayers = float64(m.Layers)
	}
	var attn float64
	switch m.Attention {
	case "mla":
		q := h * float64(m.Heads*m.HeadDim)
		if c.QLoraRank > 0 {
			q = h*float64(c.QLoraRank) + float64(c.QLoraRank*m.Heads*m.HeadDim)
		}
		kv := h*float64(c.KVLoraRank+c.QKRopeHeadDim) + float64(c.KVLoraRank*m.Heads*(c.QKNopeHeadDim+c.VHeadDim))
		o := float64(m.Heads*c.VHeadDim) * h
		attn = q + kv + o
	default:
		attn = h*float64(m.Heads*m.HeadDim)*2 + h*float64(m.KVHeads*m.HeadDim)*2
	}
	total := emb + attnLayers*attn
	if ls := m.LinearState; ls != nil {
		keyDim := float64(ls.KeyHeads * ls.KeyHeadDim)
		valDim := float64(ls.ValueHeads * ls.ValueHeadDim)
		perLayer := h*(2*keyDim+2*valDim) + h*float64(2*ls.ValueHeads) + valDim*h
		total += float64(ls.Layers) * perLayer
		total += attnLayers * h * float64(m.Heads*m.HeadDim) // gated attention's output gate
	}
	dense := 3 * h * float64(m.Intermediate)
	if m.Experts > 0 {
		moeInter := float64(c.MoEIntermediate)
		if moeInter == 0 {
			moeInter = float64(m.Intermediate)
		}
		perExpert := 3 * h * moeInter
		moeLayers := float64(m.Layers - c.FirstKDense)
		experts := moeLayers * float64(m.Experts) * perExpert
		shared := moeLayers * float64(c.NSharedExperts) * perExpert
		total += float64(c.FirstKDense)*dense + experts + shared
		m.ExpertParamsB = experts / 1e9
		active := total - experts + moeLayers*float64(m.ExpertsPerToken)*perExpert
		m.ActiveParamsB = active / 1e9
		m.Intermediate = int(moeInter)
	} else {
		total += float64(m.Layers) * dense
	}
	m.ParamsB = total / 1e9
	m.EmbeddingParamsB = emb / 1e9
}

// ggufQuantIDs maps a GGUF file type to the catalog's weight format.
var ggufQuantIDs = map[gguf.GGUFFileType]string{
	gguf.GGUFFileTypeMostlyF16: "f16", gguf.GGUFFileTypeMostlyBF16: "bf16", gguf.GGUFFileTypeMostlyQ8_0: "q8_0",
	gguf.GGUFFileTypeMostlyQ6_K: "q6_k", gguf.GGUFFileTypeMostlyQ5_K_M: "q5_k_m", gguf.GGUFFileTypeMostlyQ4_0: "q4_0",
	gguf.GGUFFileTypeMostlyQ4_K_M: "q4_k_m",
}

// ModelFromGGUF reads a GGUF file's header (metadata and tensor index, not the
// weights) with gguf-parser-go. The returned Quant carries the file's own bits per
// weight (its size over its parameter count), so weight bytes match the file.
func ModelFromGGUF(path string) (Model, Quant, error) {
	f, err := gguf.ParseGGUFFile(path, gguf.SkipLargeMetadata())
	if err != nil {
		return Model{}, Quant{}, fmt.Errorf("reading GGUF %s: %w", path, err)
	}
	a := f.Architecture()
	md := f.Metadata()
	if a.BlockCount == 0 || a.EmbeddingLength == 0 || a.AttentionHeadCount == 0 {
		return Model{}, Quant{}, fmt.Errorf("GGUF %s: not a language model (architecture %q)", path, a.Architecture)
	}
	m := Model{
		ID: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), Layers: int(a.BlockCount), Hidden: int(a.EmbeddingLength),
		Heads: int(a.AttentionHeadCount), KVHeads: int(a.AttentionHeadCountKV), HeadDim: int(a.AttentionKeyLength),
		Vocab: int(a.VocabularyLength), Context: int(a.MaximumContextLength), Attention: "full",
		ParamsB: float64(md.Parameters) / 1e9, Source: path,
	}
	m.Name = m.ID
	if md.Name != "" {
		m.Name = md.Name
	}
	if len(a.FeedForwardLength) > 0 {
		m.Intermediate = int(a.FeedForwardLength[0])
	}
	if m.KVHeads == 0 {
		m.KVHeads = m.Heads
	}
	if m.HeadDim == 0 {
		m.HeadDim = m.Hidden / m.Heads
	}
	m.EmbeddingParamsB = float64(m.Vocab) * float64(m.Hidden) * 2 / 1e9
	if a.ExpertCount > 0 && a.ExpertUsedCount > 0 {
		m.Experts, m.ExpertsPerToken = int(a.ExpertCount), int(a.ExpertUsedCount)
		perExpert := 3 * float64(m.Hidden) * float64(a.ExpertFeedForwardLength)
		m.ExpertParamsB = float64(m.Layers) * float64(m.Experts) * perExpert / 1e9
		m.ActiveParamsB = m.ParamsB - m.ExpertParamsB + float64(m.Layers*m.ExpertsPerToken)*perExpert/1e9
	}
	if a.AttentionKeyValueLORARank > 0 {
		m.Attention, m.KVLoraRank = "mla", int(a.AttentionKeyValueLORARank)
		m.QKRopeHeadDim = int(a.RoPEDimensionCount)
	}
	if a.AttentionSlidingWindow > 0 && len(a.AttentionSlidingWindowLayers) > 0 {
		n := 0
		for _, swa := range a.AttentionSlidingWindowLayers {
			if swa {
				n++
			}
		}
		if n > 0 && n < m.Layers {
			m.Attention, m.SlidingWindow, m.SlidingLayers = "sliding", int(a.AttentionSlidingWindow), n
		}
	}
	bpw := float64(md.BitsPerWeight)
	q := Quant{ID: "gguf", Name: "GGUF " + md.FileTypeDescriptor, Bits: bpw, EmbeddingBits: bpw, Compute: "fp16",
		Source: fmt.Sprintf("%s: %d bytes of tensors over %d parameters", path, md.Size, md.Parameters)}
	if id, ok := ggufQuantIDs[md.FileType]; ok {
		q.ID = id
	}
	return m, q, nil
}
