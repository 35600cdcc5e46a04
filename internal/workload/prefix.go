package workload

import "fmt"

// PrefixPool is K shared system prompts of Tokens tokens each, every request drawing
// one: vLLM's prefix_repetition dataset (num_prefixes prefixes of prefix_len, each
// used by num_requests/num_prefixes prompts, shuffled) and GuideLLM's prefix buckets
// (prefix_count prefixes of prefix_tokens). The prompts' text is the run's to build
// (the prompt builder, a nonce per prefix so no two share a token); the pool says
// which request uses which, and what a cache can make of it.
type PrefixPool struct {
	Prompts, Tokens int
}

// Assign gives each of n requests its prefix: each prefix n/K times (the first n mod
// K once more; vLLM drops that remainder), in an order shuffled with the seed.
func (p PrefixPool) Assign(n int, seed uint64) ([]int, error) {
	if p.Prompts < 1 || p.Tokens < 1 || n < 1 {
		return nil, fmt.Errorf("prefix pool of %d prompts of %d tokens for %d requests: each at least 1", p.Prompts, p.Tokens, n)
	}
	out := make([]int, n)
	for i := range out {
		out[i] = i % p.Prompts
	}
	rng := newRand(seed, streamPrefix)
	rng.Shuffle(n, func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out, nil
}

// IdealCached is, for each request of an assignment, the prompt tokens a prefix cache
// that never evicts holds for it when the requests before it have been processed: at
// a prefix's first use only the lead (the tokens the server puts before every prompt,
// such as a chat template's opening) that earlier requests left, afterwards the lead
// and the prefix; whole blocks of block tokens (0 or 1: tokens).
func (p PrefixPool) IdealCached(assign []int, block, lead int) []int {
	block = max(block, 1)
	used := map[int]bool{}
	out := make([]int, len(assign))
	for i, k := range assign {
		switch {
		case used[k]:
			out[i] = (lead + p.Tokens) / block * block
		case i > 0:
			out[i] = lead / block * block
		}
		used[k] = true
	}
	return out
}
