package gguf

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Token ids of the special tokens in the tiny vocabulary, as in Llama 1/2's
// SentencePiece vocabulary.
const (
	UnknownTokenID = 0
	BOSTokenID     = 1
	EOSTokenID     = 2
	// firstByteTokenID is the id of "<0x00>"; the 256 byte tokens follow in order.
	firstByteTokenID = 3
)

// SentencePiece token types, as llama.cpp numbers them (tokenizer.ggml.token_type).
const (
	TokenNormal  int32 = 1
	TokenUnknown int32 = 2
	TokenControl int32 = 3
	TokenByte    int32 = 6
)

// spaceMarker is SentencePiece's visible space: "▁the" is " the".
const spaceMarker = "▁"

// Vocabulary is a byte-level SentencePiece ("llama") vocabulary.
type Vocabulary struct {
	Tokens []string
	Scores []float32
	Types  []int32
}

// commonWords become whole-word pieces ("▁the"), each with all its "▁"-prefixes so
// that SentencePiece's bigram merges can reach it. Text of other words falls back to
// single characters and bytes, so every string tokenizes.
var commonWords = strings.Fields(`
the of and to in is was for that on as with by he at from his it an were are which
this be or has had not but first one their its also after new who they two her she
been other when there all during into school time may years more most only over
city some world would where later up such used many can state about national out
known university united then made could year between both these under three them
people most what will your you we our how so each make like him into than call
who oil its now find long down day did get come made may part over new sound take
only little work know place year live me back give most very after thing our just
name good sentence man think say great where help through much before line right
too mean old any same tell boy follow came want show also around form three small
set put end does another well large must big even such because turn here why ask
went men read need land different home us move try kind hand picture again change
off play spell air away animal house point page letter mother answer found study
still learn should world high every near add food between own below country plant
last school father keep tree never start city earth eye light thought head under
story saw left few while along might close something seem next hard open example
begin life always those both paper together got group often run important until
children side feet car mile night walk white sea began grow took river four carry
state once book hear stop without second later miss idea enough eat face watch far
really almost let above girl sometimes mountain cut young talk soon list song being
leave family benchmark token model server cache prefill decode speed`)

// TinyVocabulary returns the test vocabulary: <unk>, <s>, </s>, the 256 byte-fallback
// tokens <0x00>..<0xFF>, "▁", every printable ASCII character, and the common words
// above with their prefixes. Scores favour longer pieces, as a trained model's do.
func TinyVocabulary() Vocabulary {
	v := Vocabulary{}
	add := func(tok string, score float32, typ int32) {
		v.Tokens = append(v.Tokens, tok)
		v.Scores = append(v.Scores, score)
		v.Types = append(v.Types, typ)
	}
	add("<unk>", 0, TokenUnknown)
	add("<s>", 0, TokenControl)
	add("</s>", 0, TokenControl)
	for b := 0; b < 256; b++ {
		add(fmt.Sprintf("<0x%02X>", b), 0, TokenByte)
	}
	seen := map[string]bool{}
	normal := func(piece string) {
		if seen[piece] {
			return
		}
		seen[piece] = true
		// SentencePiece merges the highest-scoring bigram first; a longer piece gets
		// the higher score so that whole words win over their fragments.
		add(piece, -100+float32(len([]rune(piece))), TokenNormal)
	}
	normal(spaceMarker)
	for c := '!'; c <= '~'; c++ {
		normal(string(c))
	}
	for _, w := range commonWords {
		for k := 1; k <= len(w); k++ {
			normal(spaceMarker + w[:k])
		}
	}
	return v
}

// LlamaConfig sizes a random-weight llama model.
type LlamaConfig struct {
	Name          string
	Embedding     int // n_embd
	Layers        int
	Heads         int
	KVHeads       int
	FeedForward   int // n_ff
	ContextLength int // what the model says it was trained for (llama.context_length)
	Seed          uint64
	// OutputScale is the standard deviation of the lm head's rows for normal tokens.
	// The final hidden state is RMS-normalised (norm ≈ √n_embd), so logits spread with
	// a deviation of about OutputScale·√n_embd. The special and byte tokens' rows are
	// zero, so their logit is 0, the median of the normal pieces' logits: far outside
	// the top 40 that engines sample from by default, and, even with no top-k,
	// e^(-σ²/2)/n_normal ≈ 4e-7 per token at σ = 4. The spread must not be much larger:
	// a near-greedy model falls into loops of one token, and Ollama aborts a stream
	// after 30 identical tokens in a row (llm/server.go), which a client sees as a
	// stream cut short. At OutputScale 1 (σ ≈ 16) runs of 10 occurred; at 0.25 none
	// longer than 3 in 30 generations of 1,024 tokens.
	OutputScale float64
	// Multibyte makes the model write non-ASCII text, whole pieces and byte-fallback
	// characters, as real models do (see multibyte.go); false keeps it to whole
	// printable pieces, one streamed chunk per token.
	Multibyte bool
}

// DefaultTinyLlama is the model the end-to-end tests serve: about 3 million
// parameters, small enough that a 2-core CPU prefills 2K tokens in well under a second.
func DefaultTinyLlama() LlamaConfig {
	return LlamaConfig{
		Name:          "llmbench-tiny",
		Embedding:     256,
		Layers:        4,
		Heads:         4,
		KVHeads:       4,
		FeedForward:   512,
		ContextLength: 32768,
		Seed:          20261130,
		OutputScale:   0.25,
	}
}

// MultibyteTinyLlama is DefaultTinyLlama writing non-ASCII text: about one character
// in six spelled in byte-fallback tokens, so that an engine streams some chunks of
// two or three tokens.
func MultibyteTinyLlama() LlamaConfig {
	c := DefaultTinyLlama()
	c.Name = "llmbench-tiny-multibyte"
	c.Multibyte = true
	return c
}

// vocabulary is the model's vocabulary.
func (c LlamaConfig) vocabulary() Vocabulary {
	if c.Multibyte {
		return MultibyteVocabulary()
	}
	return TinyVocabulary()
}

func (c LlamaConfig) validate() error {
	switch {
	case c.Embedding <= 0 || c.Layers <= 0 || c.Heads <= 0 || c.KVHeads <= 0 || c.FeedForward <= 0:
		return fmt.Errorf("gguf: llama config %+v: sizes must be positive", c)
	case c.Embedding%c.Heads != 0:
		return fmt.Errorf("gguf: llama config: embedding %d is not a multiple of heads %d", c.Embedding, c.Heads)
	case c.Heads%c.KVHeads != 0:
		return fmt.Errorf("gguf: llama config: heads %d is not a multiple of kv heads %d", c.Heads, c.KVHeads)
	case (c.Embedding/c.Heads)%2 != 0:
		return fmt.Errorf("gguf: llama config: head size %d must be even for RoPE", c.Embedding/c.Heads)
	case c.ContextLength <= 0:
		return fmt.Errorf("gguf: llama config: context length must be positive")
	case c.Multibyte && c.Embedding <= 4*grammarStates:
		return fmt.Errorf("gguf: llama config: embedding %d is too small for the multibyte grammar", c.Embedding)
	}
	return nil
}

// TinyLlama builds the GGUF file of a random-weight llama model with the tiny
// vocabulary. Weights are drawn from a fixed seed, so the same config always gives the
// same bytes. Matrices are F16, norms F32 (general.file_type 1, "mostly F16").
func TinyLlama(c LlamaConfig) (*File, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	v := c.vocabulary()
	f := &File{KV: llamaKV(c, v)}
	// One generator draws every weight, in this order: the file is the same for the
	// same seed.
	g := &weights{c: c, rng: rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15))}
	nVocab, nEmbd := uint64(len(v.Tokens)), uint64(c.Embedding)
	nKV, nFF := uint64(c.Embedding/c.Heads*c.KVHeads), uint64(c.FeedForward)
	embd := g.normal(nEmbd*nVocab, 1)
	if c.Multibyte {
		for t := range v.Tokens {
			setStateEmbedding(embd[uint64(t)*nEmbd:uint64(t+1)*nEmbd], v, t)
		}
	}
	f.Tensors = append(f.Tensors, NewF16("token_embd.weight", []uint64{nEmbd, nVocab}, embd))
	for l := 0; l < c.Layers; l++ {
		p := fmt.Sprintf("blk.%d.", l)
		f.Tensors = append(f.Tensors,
			NewF32(p+"attn_norm.weight", []uint64{nEmbd}, ones(nEmbd)),
			g.matrix(p+"attn_q.weight", nEmbd, nEmbd),
			g.matrix(p+"attn_k.weight", nEmbd, nKV),
			g.matrix(p+"attn_v.weight", nEmbd, nKV),
			g.output(p+"attn_output.weight", nEmbd, nEmbd),
			NewF32(p+"ffn_norm.weight", []uint64{nEmbd}, ones(nEmbd)),
			g.matrix(p+"ffn_gate.weight", nEmbd, nFF),
			g.output(p+"ffn_down.weight", nFF, nEmbd),
			g.matrix(p+"ffn_up.weight", nEmbd, nFF),
		)
	}
	f.Tensors = append(f.Tensors, NewF32("output_norm.weight", []uint64{nEmbd}, ones(nEmbd)))
	f.Tensors = append(f.Tensors, NewF16("output.weight", []uint64{nEmbd, nVocab}, g.head(v)))
	return f, nil
}

// llamaKV is the file's metadata: llama's architecture keys and the tokenizer.
func llamaKV(c LlamaConfig, v Vocabulary) []KV {
	headDim := c.Embedding / c.Heads
	nVocab := uint64(len(v.Tokens))
	return []KV{
		{"general.architecture", "llama"},
		{"general.name", c.Name},
		{"general.file_type", uint32(1)},
		{"general.quantization_version", uint32(2)},
		{"llama.context_length", uint32(c.ContextLength)},
		{"llama.embedding_length", uint32(c.Embedding)},
		{"llama.block_count", uint32(c.Layers)},
		{"llama.feed_forward_length", uint32(c.FeedForward)},
		{"llama.attention.head_count", uint32(c.Heads)},
		{"llama.attention.head_count_kv", uint32(c.KVHeads)},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)},
		{"llama.rope.dimension_count", uint32(headDim)},
		{"llama.rope.freq_base", float32(10000)},
		{"llama.vocab_size", uint32(nVocab)},
		{"tokenizer.ggml.model", "llama"},
		{"tokenizer.ggml.tokens", v.Tokens},
		{"tokenizer.ggml.scores", v.Scores},
		{"tokenizer.ggml.token_type", v.Types},
		{"tokenizer.ggml.bos_token_id", uint32(BOSTokenID)},
		{"tokenizer.ggml.eos_token_id", uint32(EOSTokenID)},
		{"tokenizer.ggml.unknown_token_id", uint32(UnknownTokenID)},
		{"tokenizer.ggml.add_bos_token", true},
		{"tokenizer.ggml.add_eos_token", false},
	}
}

// weights draws a model's random weights.
type weights struct {
	c   LlamaConfig
	rng *rand.Rand
}

func (g *weights) normal(n uint64, std float64) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(g.rng.NormFloat64() * std)
	}
	return out
}

func ones(n uint64) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

// matrix is a weight mapping in inputs to out outputs, scaled so that activations keep
// roughly unit size through the layers.
func (g *weights) matrix(name string, in, out uint64) Tensor {
	return NewF16(name, []uint64{in, out}, g.normal(in*out, 1/math.Sqrt(float64(in))))
}

// output is a layer's output projection: in the multibyte model, scaled down so that
// the embedding decides the next token (multibyte.go).
func (g *weights) output(name string, in, out uint64) Tensor {
	std := 1 / math.Sqrt(float64(in))
	if g.c.Multibyte {
		std *= residualScale
	}
	return NewF16(name, []uint64{in, out}, g.normal(in*out, std))
}

// head is the lm head: row t gives token t's logit. Ollama cannot ignore EOS, so EOS
// must (practically) never be sampled: its row is zero, the normal pieces' rows are
// not (see OutputScale). The byte tokens' rows are zero too, so that the model only
// ever emits whole printable pieces: a lone byte ≥ 0x80 is invalid UTF-8, which the
// engine holds back and merges with later tokens, and then one streamed chunk would
// not be one token. In the multibyte model the bytes of its grammar's characters have
// rows too, and every row has the state part that spells characters correctly
// (multibyte.go): the tokens outside the grammar, EOS among them, are forbidden in
// every state.
func (g *weights) head(v Vocabulary) []float32 {
	c := g.c
	nEmbd, nVocab := uint64(c.Embedding), uint64(len(v.Tokens))
	head := g.normal(nEmbd*nVocab, c.OutputScale)
	for t := range v.Tokens {
		row := head[uint64(t)*nEmbd : uint64(t+1)*nEmbd]
		if !c.Multibyte && v.Types[t] != TokenNormal || c.Multibyte && !inGrammar(v, t) {
			clear(row)
		}
		if c.Multibyte {
			setStateHead(row, v, t)
		}
	}
	return head
}

// Parameters is the number of weights in the model the file holds.
func (f *File) Parameters() uint64 {
	var n uint64
	for i := range f.Tensors {
		n += f.Tensors[i].Elements()
	}
	return n
}
