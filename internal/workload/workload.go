// Package workload owns what a run sends besides random words, as data: datasets
// (JSONL of prompts or chat messages, ShareGPT's JSON) sampled with a seed,
// multi-turn sessions (the plan and the bookkeeping that builds each turn from the
// server's real replies) with their ideal prefix-cache hits, Mooncake traces and
// fixed schedules replayed on their timestamps (prompts whose equal hash ids are
// equal token blocks, and the trace's ideal cache hits), and pools of shared system
// prompts. Everything here is pure and deterministic from a seed: the measurement
// core sends what it plans, and scoring re-reads the same plan.
package workload

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"time"
)

// newRand is the package's one random source: a seed and a stream (what the numbers
// are for), so two draws of one seed never share numbers by accident.
func newRand(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, stream))
}

// Streams of newRand.
const (
	streamSample       uint64 = 0x73616d706c65 // "sample"
	streamSessionOrder uint64 = 0x6f72646572   // "order"
	streamSessions     uint64 = 0x73657373     // "sess"
	streamPrefix       uint64 = 0x707265666978 // "prefix"
	streamSynth        uint64 = 0x73796e7468   // "synth"
)

// offsets turns timestamps in milliseconds into send times from the earliest one,
// played speed times faster (speed 2 sends twice as fast; 0 means 1).
func offsets(ms []float64, speed float64) ([]time.Duration, error) {
	if speed == 0 {
		speed = 1
	}
	if !(speed > 0) {
		return nil, fmt.Errorf("speed factor %v: must be above 0", speed)
	}
	if len(ms) == 0 {
		return nil, nil
	}
	first := ms[0]
	for _, t := range ms {
		first = min(first, t)
	}
	out := make([]time.Duration, len(ms))
	for i, t := range ms {
		out[i] = time.Duration((t - first) / speed * float64(time.Millisecond))
	}
	return out, nil
}

// sortedByTime returns the order of indices by timestamp, ties in file order.
func sortedByTime(ms []float64) []int {
	idx := make([]int, len(ms))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ms[idx[a]] < ms[idx[b]] })
	return idx
}

// readFile reads the file at path with parse, which names it by its path in messages
// (file:line) and by its base name in what it returns.
func readFile[T any](what, path string, parse func(name string, data []byte) (*T, error)) (*T, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	return parse(path, b)
}
