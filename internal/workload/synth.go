package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// SynthSpec describes a generated Mooncake-format trace of multi-turn conversations
// that share system prompts: the shape of Mooncake's conversation trace (a shared
// first block, each turn's prompt the previous turn's prompt and reply and a new
// message), with lengths and times of our choosing.
type SynthSpec struct {
	Requests int
	Seed     uint64
	// BlockSize is the tokens a hash id stands for (0: Mooncake's 512).
	BlockSize int
	// SystemPrompts is how many system prompts the conversations share, each of
	// SystemBlocks whole blocks.
	SystemPrompts, SystemBlocks int
	// SessionsPerSecond is the conversations' Poisson arrival rate.
	SessionsPerSecond float64
	// MeanTurns is the mean of a conversation's turns (1 + geometric), at most MaxTurns.
	MeanTurns float64
	MaxTurns  int
	// UserTokens and OutputTokens bound each message's and reply's length (uniform).
	UserTokens, OutputTokens [2]int
	// ThinkSeconds is the mean of the exponential pause between a reply and the next
	// message; a reply takes ReplySecondsPerToken a token (the server the trace was
	// "recorded" on).
	ThinkSeconds, ReplySecondsPerToken float64
}

// Synthesize generates the trace SynthSpec describes, deterministically from its seed.
func Synthesize(spec SynthSpec) (*Trace, error) {
	if spec.BlockSize == 0 {
		spec.BlockSize = MooncakeBlockSize
	}
	if spec.Requests < 1 || spec.SystemPrompts < 1 || spec.SystemBlocks < 1 || !(spec.SessionsPerSecond > 0) ||
		spec.MeanTurns < 1 || spec.MaxTurns < 1 || spec.UserTokens[0] < 1 || spec.OutputTokens[0] < 1 ||
		spec.UserTokens[1] < spec.UserTokens[0] || spec.OutputTokens[1] < spec.OutputTokens[0] {
		return nil, fmt.Errorf("synthetic trace: a spec with nothing to generate: %+v", spec)
	}
	g := &synth{spec: spec, rng: newRand(spec.Seed, streamSynth)}
	g.nextID = spec.SystemPrompts * spec.SystemBlocks // the system prompts' ids come first
	var reqs []TraceRequest
	start := 0.0
	for len(reqs) < spec.Requests*5/4+spec.MaxTurns {
		start += g.rng.ExpFloat64() / spec.SessionsPerSecond * 1000
		reqs = append(reqs, g.session(start)...)
	}
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].Timestamp < reqs[j].Timestamp })
	reqs = reqs[:spec.Requests]
	first := reqs[0].Timestamp
	for i := range reqs {
		reqs[i].Timestamp -= first // Mooncake's traces start at 0
	}
	return &Trace{Name: "synthetic", BlockSize: spec.BlockSize, Requests: reqs}, nil
}

type synth struct {
	spec   SynthSpec
	rng    *rand.Rand
	nextID int
}

func (g *synth) uniform(r [2]int) int { return r[0] + g.rng.IntN(r[1]-r[0]+1) }

// session is one conversation's requests, its first sent at start (ms).
func (g *synth) session(start float64) []TraceRequest {
	s := g.spec
	turns := 1
	for turns < s.MaxTurns && g.rng.Float64() >= 1/s.MeanTurns {
		turns++ // geometric: each turn is the last with probability 1/MeanTurns
	}
	sys := g.rng.IntN(s.SystemPrompts)
	ids := make([]int, s.SystemBlocks)
	for b := range ids {
		ids[b] = sys*s.SystemBlocks + b
	}
	length, at := s.SystemBlocks*s.BlockSize, start
	var out []TraceRequest
	for range turns {
		length += g.uniform(s.UserTokens)
		for len(ids) < (length+s.BlockSize-1)/s.BlockSize {
			ids = append(ids, g.nextID)
			g.nextID++
		}
		reply := g.uniform(s.OutputTokens)
		out = append(out, TraceRequest{Timestamp: math.Round(at), InputLength: length, OutputLength: reply, HashIDs: append([]int(nil), ids...)})
		// The next turn keeps this prompt's whole blocks; its short last block, the reply
		// and the next message are new blocks.
		ids = ids[:length/s.BlockSize]
		length += reply
		at += (float64(reply)*s.ReplySecondsPerToken + g.rng.ExpFloat64()*s.ThinkSeconds) * 1000
	}
	return out
}
