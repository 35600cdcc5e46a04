package perf

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrRefused says the engine would refuse the setup at startup: the calculator gives
// no figures for a server that does not start.
var ErrRefused = errors.New("the engine refuses this setup")

// Validate refuses what the engine would refuse: tensor parallelism that does not
// split the attention heads and the KV heads evenly, pipeline stages that do not split
// the layers evenly, and a named weight format (not bits given as a number) or KV
// cache dtype the engine does not run. Every error wraps ErrRefused and says what would run instead.
func (s Setup) Validate() error {
	var why []string
	if msg := s.tensorParallelProblem(); msg != "" {
		why = append(why, msg)
	}
	if pp := s.pp(); pp > 1 && s.Model.Layers > 0 && s.Model.Layers%pp != 0 {
		why = append(why, fmt.Sprintf("%d pipeline stages do not divide %s's %d layers (divisors: %s)",
			pp, s.Model.Name, s.Model.Layers, divisorList(s.Model.Layers)))
	}
	if q := s.Engine.Quants; len(q) > 0 && !s.Quant.Explicit && !slices.Contains(q, s.Quant.ID) {
		why = append(why, fmt.Sprintf("%s does not run %s weights (it runs %s)", s.Engine.Name, s.Quant.Name, strings.Join(q, ", ")))
	}
	if kv := s.Engine.KVDtypes; len(kv) > 0 && s.KV.ID != "" && !slices.Contains(kv, s.KV.ID) {
		why = append(why, fmt.Sprintf("%s has no %s KV cache (it offers %s)", s.Engine.Name, s.KV.Name, strings.Join(kv, ", ")))
	}
	if s.HostExpertLayers > 0 {
		switch {
		case s.Model.moeLayers() == 0:
			why = append(why, fmt.Sprintf("%s has no experts to keep in host memory", s.Model.Name))
		case !s.Engine.vectorKernels():
			why = append(why, fmt.Sprintf("%s keeps no experts in host memory (llama.cpp's --n-cpu-moe does)", s.Engine.Name))
		case !(s.HostBandwidthGBps > 0):
			why = append(why, "experts in host memory need the host's memory bandwidth")
		}
	}
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrRefused, strings.Join(why, "; "))
}

// tensorParallelProblem is why the engine would refuse the tensor-parallel degree, or
// "": vLLM's checks (ModelConfig.verify_with_parallel_config: the attention heads must
// divide by the degree; QKVParallelLinear: KV heads must divide by it, or, where there
// are fewer KV heads than GPUs, the degree by them, each then replicated).
func (s Setup) tensorParallelProblem() string {
	n, m := s.n(), s.Model
	if n <= 1 || !s.Engine.tensorParallel() {
		return ""
	}
	if m.Heads > 0 && m.Heads%n != 0 {
		return fmt.Sprintf("tensor parallelism %d does not divide %s's %d attention heads (degrees that do: %s)",
			n, m.Name, m.Heads, divisorList(gcdOrOne(m.Heads, kvOrHeads(m))))
	}
	if m.Attention == "mla" || m.KVHeads <= 0 {
		return ""
	}
	if (n < m.KVHeads && m.KVHeads%n != 0) || (n >= m.KVHeads && n%m.KVHeads != 0) {
		return fmt.Sprintf("tensor parallelism %d does not split %s's %d KV heads evenly (degrees that do: %s)",
			n, m.Name, m.KVHeads, divisorList(gcdOrOne(m.Heads, kvOrHeads(m))))
	}
	return ""
}

// tensorParallel says the engine shards layers Megatron-style over its GPUs (vLLM,
// SGLang); llama.cpp's multi-GPU split has no such constraint on heads.
func (e Engine) tensorParallel() bool { return e.SmallBatchGEMM == "tensor" }

func kvOrHeads(m Model) int {
	if m.KVHeads > 0 && m.Attention != "mla" {
		return m.KVHeads
	}
	return m.Heads
}

func gcdOrOne(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return max(a, 1)
}

// divisorList is n's divisors up to 16 (GPU counts anyone runs), "1, 2, 4, 8".
func divisorList(n int) string {
	var out []string
	for d := 1; d <= min(n, 16); d++ {
		if n%d == 0 {
			out = append(out, fmt.Sprint(d))
		}
	}
	return strings.Join(out, ", ")
}
