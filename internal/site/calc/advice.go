package calc

import (
	"context"
	"strconv"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// When cells are over capacity the calculator page says why — the KV cache holds
// fewer tokens than the cell's requests need, or fewer than one request at the max
// model length, which vLLM refuses to start with — and what would fit: for each
// context whose single request does not fit, the first of a list of changes, from the
// least to the most intrusive, under which the calculator's own memory split holds
// it. Nothing here is a rule of thumb: every suggestion is a Capacity call.

// FitAdvice is what would let one request at Context run.
type FitAdvice struct {
	Context int
	Need    int64 // tokens the request needs: context + max output
	Have    int64 // tokens the KV cache holds as set
	Found   bool  // false: none of the changes tried fits it
	Changes []KnobChange
	With    int64 // tokens the KV cache holds with the changes
	URL     string
}

// KnobChange is one setting changed: its field name and the new value, as shown.
type KnobChange struct {
	Field, Value string
}

// candidate changes an input; it reports false when it changes nothing (the knob is
// already there).
type candidate func(in *Input) bool

func setKV(kv string) candidate {
	return func(in *Input) bool {
		if in.KVDtype == kv {
			return false
		}
		in.KVDtype = kv
		return true
	}
}

func setUtil(u float64) candidate {
	return func(in *Input) bool {
		if in.MemoryUtilization >= u {
			return false
		}
		in.MemoryUtilization = u
		return true
	}
}

func setOutput(n int) candidate {
	return func(in *Input) bool {
		if in.MaxOutputTokens > 0 && in.MaxOutputTokens <= n {
			return false
		}
		in.MaxOutputTokens = n
		return true
	}
}

func setSeqs(n int) candidate {
	return func(in *Input) bool {
		if in.MaxNumSeqs > 0 && in.MaxNumSeqs <= n {
			return false
		}
		in.MaxNumSeqs = n
		return true
	}
}

func setGPUs(n int) candidate {
	return func(in *Input) bool {
		if max(in.GPUs, 1) >= n {
			return false
		}
		in.GPUs = n
		return true
	}
}

// fitChanges are the combinations tried, in order: a higher memory share and an 8-bit
// cache first, then fewer sequences (a smaller sampler warm-up), then shorter outputs,
// then more GPUs. Each is tried with the max model length set to what the request
// needs (vLLM refuses to start when one max-length request does not fit).
var fitChanges = [][]candidate{
	{},
	{setKV("fp8")},
	{setUtil(0.95)},
	{setKV("fp8"), setUtil(0.95)},
	{setKV("fp8"), setUtil(0.95), setSeqs(16)},
	{setKV("fp8"), setUtil(0.95), setSeqs(16), setOutput(4096)},
	{setKV("fp8"), setUtil(0.95), setSeqs(16), setOutput(2048)},
	{setKV("fp8"), setUtil(0.95), setSeqs(16), setOutput(1024)},
	{setGPUs(2)},
	{setGPUs(2), setKV("fp8")},
	{setGPUs(4), setKV("fp8")},
}

// maxAdvice bounds the contexts advised on (a plan may have up to 64).
const maxAdvice = 6

// AdviseFit returns advice for each context of run whose single-request decode cell
// is over capacity.
func (s *Service) AdviseFit(ctx context.Context, in Input, run *rundoc.Run, mem Memory) []FitAdvice {
	var out []FitAdvice
	for _, c := range run.Config.Contexts {
		cell := run.Cell(c, 1)
		if cell == nil || cell.Status != rundoc.StatusOverCapacity || len(out) == maxAdvice {
			continue
		}
		out = append(out, s.AdviseContext(ctx, in, run.Config.MaxOutputTokens, c, mem.KVTokens))
	}
	return out
}

// AdviseContext finds the first of fitChanges under which one request at context
// fits; have is the KV cache's tokens as set.
func (s *Service) AdviseContext(ctx context.Context, base Input, output, context int, have int64) FitAdvice {
	a := FitAdvice{Context: context, Need: int64(context + output), Have: have}
	for _, changes := range fitChanges {
		in := base
		if in.MaxOutputTokens == 0 {
			in.MaxOutputTokens = output
		}
		changed := len(changes) == 0
		for _, ch := range changes {
			if ch(&in) {
				changed = true
			}
		}
		if !changed {
			continue
		}
		need := int64(context + in.MaxOutputTokens)
		in.MaxModelLen = need
		mem, err := s.Capacity(ctx, in)
		if err != nil || mem.KVTokens < need {
			continue
		}
		a.Found, a.With, a.Need = true, mem.KVTokens, need
		a.Changes = diffKnobs(base, in, output)
		a.URL = "/calculator?" + in.Query().Encode()
		return a
	}
	return a
}

// diffKnobs lists the settings in which in differs from base.
func diffKnobs(base, in Input, output int) []KnobChange {
	var out []KnobChange
	if in.MaxModelLen != base.MaxModelLen {
		out = append(out, KnobChange{"max_model_len", rundoc.FormatTokens(int(in.MaxModelLen))})
	}
	if in.KVDtype != base.KVDtype {
		out = append(out, KnobChange{"kv_dtype", in.KVDtype})
	}
	if in.MemoryUtilization != base.MemoryUtilization {
		out = append(out, KnobChange{"gpu_memory_utilization", knob(in.MemoryUtilization)})
	}
	if in.MaxNumSeqs != base.MaxNumSeqs {
		out = append(out, KnobChange{"max_num_seqs", knob(float64(in.MaxNumSeqs))})
	}
	if in.MaxOutputTokens != output && in.MaxOutputTokens != base.MaxOutputTokens {
		out = append(out, KnobChange{"max_output", knob(float64(in.MaxOutputTokens))})
	}
	if in.GPUs != base.GPUs {
		out = append(out, KnobChange{"gpus", knob(float64(in.GPUs))})
	}
	return out
}

// knob writes a setting's value as the calculator's URL takes it: 0.95, 16.
func knob(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
