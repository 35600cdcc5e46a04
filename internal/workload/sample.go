package workload

import "fmt"

// Sample draws n requests with the seed, as vLLM's benchmark datasets do
// (vllm/benchmarks/datasets.py): the entries shuffled once, taken in that order while
// keep accepts them (nil keeps all), and, when fewer than n were kept, drawn again at
// random from those kept (vLLM's oversampling). The shuffle is Go's, so a seed picks
// other entries than vLLM's Python random does; the same seed always picks the same.
func (d *Dataset) Sample(n int, seed uint64, keep func(Entry) bool) ([]Entry, error) {
	if n < 1 {
		return nil, fmt.Errorf("sampling %d requests from %s: at least 1", n, d.Name)
	}
	rng := newRand(seed, streamSample)
	out := make([]Entry, 0, n)
	for _, i := range rng.Perm(len(d.Entries)) {
		if len(out) == n {
			break
		}
		if keep == nil || keep(d.Entries[i]) {
			out = append(out, d.Entries[i])
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: none of its %d requests is within the lengths asked for", d.Name, len(d.Entries))
	}
	for kept := len(out); len(out) < n; {
		out = append(out, out[rng.IntN(kept)])
	}
	return out, nil
}

// ValidLengths is vLLM's filter of ShareGPT requests (is_valid_sequence in
// vllm/benchmarks/datasets.py, from benchmark_serving.py): prompt and output at least 4
// tokens, prompt at most 1,024, the two together at most 2,048. outputGiven skips the
// output's minimum, as vLLM does when an output length is set for every request.
func ValidLengths(promptTokens, outputTokens int, outputGiven bool) bool {
	const minLen, maxPrompt, maxTotal = 4, 1024, 2048
	if promptTokens < minLen || (!outputGiven && outputTokens < minLen) {
		return false
	}
	return promptTokens <= maxPrompt && promptTokens+outputTokens <= maxTotal
}
