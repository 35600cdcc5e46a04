// Package sim owns the emulated inference engine: an OpenAI-compatible (vLLM-flavoured)
// HTTP server backed by a continuous-batching scheduler with a paged KV cache, a prefix
// cache, chunked prefill and preemption. Step times come from a CostModel.
//
// Its tokenizer is exact and needs no server call: every white-space-separated word is
// one token (no BOS is added), and the chat template adds 2 + words(role) tokens per
// message plus 2 for the generation prompt, so one user message of N words is N + 5
// prompt tokens. A completions prompt may also be a list of token ids (0 ≤ id <
// VocabSize). docs/sim.md has the details.
package sim

import (
	"math"
	"time"
)

// Step is what one engine step processes: the prefill chunks scheduled in it and the
// sequences that each decode one token. The cost model turns it into a duration.
type Step struct {
	// PrefillChunks are the prompt chunks computed in this step.
	PrefillChunks []PrefillChunk
	// DecodeContexts holds, for every sequence decoding one token in this step, its
	// current context length (prompt + generated so far). len(DecodeContexts) is the
	// decode batch size.
	DecodeContexts []int
}

// PrefillChunk is Tokens new prompt tokens computed on top of Start tokens that are
// already in the KV cache (from earlier chunks or the prefix cache).
type PrefillChunk struct {
	Start  int
	Tokens int
}

// CostModel gives the wall time of one engine step. The parametric model here and the
// GPU + model roofline (internal/perf) both implement it.
type CostModel interface {
	StepTime(Step) time.Duration
}

// Parametric is a roofline-shaped cost model with a handful of fitted constants. A step
// is bound either by memory traffic (reading the weights once, plus every decoding
// sequence's KV cache) or by compute (every token in the step, plus attention over the
// context it sees), whichever is slower:
//
//	memory  = WeightsRead + BatchLog·log2(decode seqs) + KVReadPerToken·Σ decode context
//	compute = (prefill tokens + decode seqs) / ComputeTokensPerSec
//	        + AttentionPerTokenPair·(Σ chunk.Tokens·(chunk.Start + chunk.Tokens/2) + Σ decode context)
//	step    = StepOverhead + max(memory, compute)
//
// Decode at small batch is memory-bound, so its speed falls slowly with batch size and
// with context; a long prefill chunk is compute-bound, so prefill speed is
// ComputeTokensPerSec falling with context as attention grows.
type Parametric struct {
	// StepOverhead is paid by every step (scheduling, launch, sampling).
	StepOverhead time.Duration
	// WeightsRead is the time to stream the weights once: a decode step's floor.
	WeightsRead time.Duration
	// BatchLog is the extra memory-bound time per doubling of the decode batch.
	BatchLog time.Duration
	// KVReadPerToken is the time to read one token of KV cache during decode, in ns.
	KVReadPerToken float64
	// ComputeTokensPerSec is the linear (matmul) throughput: prefill speed at context 0.
	ComputeTokensPerSec float64
	// AttentionPerTokenPair is the attention cost of one token attending to one earlier
	// token, in ns.
	AttentionPerTokenPair float64
}

// StepTime implements CostModel. An empty step costs nothing.
func (p Parametric) StepTime(s Step) time.Duration {
	n := len(s.DecodeContexts)
	if n == 0 && len(s.PrefillChunks) == 0 {
		return 0
	}
	var decodeCtx, prefillTokens, pairs float64
	for _, c := range s.DecodeContexts {
		decodeCtx += float64(c)
	}
	for _, c := range s.PrefillChunks {
		t := float64(c.Tokens)
		prefillTokens += t
		pairs += t * (float64(c.Start) + t/2)
	}
	var memory float64 // ns
	if n > 0 {
		memory = float64(p.WeightsRead) + float64(p.BatchLog)*math.Log2(float64(n)) + p.KVReadPerToken*decodeCtx
	} else {
		memory = float64(p.WeightsRead)
	}
	var compute float64
	if p.ComputeTokensPerSec > 0 {
		compute = (prefillTokens + float64(n)) / p.ComputeTokensPerSec * 1e9
	}
	compute += p.AttentionPerTokenPair * (pairs + decodeCtx)
	return p.StepOverhead + time.Duration(math.Max(memory, compute))
}

// PredictDecode is the total output tok/s of n streams decoding together, each at
// context ctx, at speed 1: the steady state of a sustained-decode cell.
func PredictDecode(cost CostModel, n, ctx int) float64 {
	s := Step{DecodeContexts: make([]int, n)}
	for i := range s.DecodeContexts {
		s.DecodeContexts[i] = ctx + 1
	}
	d := cost.StepTime(s)
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// PrefillTime is the time to first token of one cold prompt of ctx tokens on an idle
// engine, prefilled in chunks of at most budget tokens, at speed 1.
func PrefillTime(cost CostModel, ctx, budget int) time.Duration {
	var total time.Duration
	for start := 0; start < ctx; start += budget {
		total += cost.StepTime(Step{PrefillChunks: []PrefillChunk{{Start: start, Tokens: min(budget, ctx-start)}}})
	}
	return total
}

// PredictPrefill is the prompt tok/s (prompt tokens / time to first token) of one cold
// prompt of ctx tokens.
func PredictPrefill(cost CostModel, ctx, budget int) float64 {
	d := PrefillTime(cost, ctx, budget)
	if d <= 0 {
		return 0
	}
	return float64(ctx) / d.Seconds()
}
