// Package sim owns the emulated inference engine: an OpenAI-compatible (vLLM-flavoured)
// HTTP server backed by a continuous-batching scheduler with a paged KV cache, a prefix
// cache, chunked prefill and preemption. Step times come from a CostModel.
package sim

import "time"

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
