package perf

import (
	"math"
	"strings"
	"testing"
)

func TestInterconnectsAreSourcedAndResolved(t *testing.T) {
	c := MustLoad()
	for _, l := range c.Interconnects {
		if l.LinkGBps <= 0 || l.AllReduceLatencyUs <= 0 || !strings.Contains(l.Source, "http") {
			t.Errorf("interconnect %s: needs bandwidth, latency and a source URL: %+v", l.ID, l)
		}
	}
	for _, g := range c.GPUs {
		if g.Vendor == "apple" {
			if g.Interconnect != "" {
				t.Errorf("GPU %s: Apple chips have no GPU-to-GPU link, got %q", g.ID, g.Interconnect)
			}
			continue
		}
		link, err := c.Interconnect(g.Interconnect)
		if err != nil {
			t.Errorf("GPU %s: %v", g.ID, err)
			continue
		}
		if g.LinkGBps != link.LinkGBps || g.AllReduceLatencyUs != link.AllReduceLatencyUs {
			t.Errorf("GPU %s: link figures %v GB/s, %v µs are not its interconnect's (%v, %v)", g.ID, g.LinkGBps, g.AllReduceLatencyUs, link.LinkGBps, link.AllReduceLatencyUs)
		}
	}
	for gpu, kind := range map[string]string{"rtx-3090": "pcie", "rtx-4090": "pcie", "h100-pcie": "pcie", "a100-80gb": "nvlink", "h100-sxm": "nvlink", "b200": "nvlink"} {
		g, _ := c.GPU(gpu)
		link, err := c.Interconnect(g.Interconnect)
		if err != nil || link.Kind != kind {
			t.Errorf("GPU %s: interconnect %q (%v), want a %s link", gpu, g.Interconnect, err, kind)
		}
	}
}

// TestTensorParallelCommunication checks the all-reduce term against its definition:
// 2 all-reduces per layer of tokens × hidden × 2 bytes, each α + 2(N−1)/N × size / β.
func TestTensorParallelCommunication(t *testing.T) {
	s := setupFor(t, "rtx-3090", "qwen3.8-27b", "fp8", "fp16", "vllm", 0.9)
	link, err := MustLoad().Interconnect("pcie-gen4-x16")
	if err != nil {
		t.Fatal(err)
	}
	want := func(n, tokens int) float64 {
		msg := float64(tokens*s.Model.Hidden) * 2
		return 2 * float64(s.Model.Layers) * (link.AllReduceLatencyUs*1e-6 + 2*float64(n-1)/float64(n)*msg/(link.LinkGBps*1e9))
	}
	if got := s.Terms(nil, []int{100}).CommSeconds; got != 0 {
		t.Errorf("one GPU: communication %v s, want none", got)
	}
	for _, tc := range []struct {
		name   string
		n      int
		chunks []Chunk
		ctxs   []int
		tokens int
	}{
		{"decode batch 1, TP 2", 2, nil, []int{512}, 1},
		{"decode batch 1, TP 4", 4, nil, []int{512}, 1},
		{"decode batch 32, TP 4", 4, nil, make([]int, 32), 32},
		{"prefill chunk of 2048, TP 4", 4, []Chunk{{Start: 0, Tokens: 2048}}, nil, 2048},
		{"mixed step, TP 8", 8, []Chunk{{Start: 4096, Tokens: 512}}, []int{10, 20, 30}, 515},
	} {
		s.GPUs = tc.n
		got := s.Terms(tc.chunks, tc.ctxs).CommSeconds
		if w := want(tc.n, tc.tokens); math.Abs(got-w) > 1e-12 {
			t.Errorf("%s: communication %.6g s, want %.6g s", tc.name, got, w)
		}
	}

	// A batch-1 decode step over PCIe is latency-bound: over 90% of the all-reduce
	// time is α, so it costs 128 × ~48 µs ≈ 6 ms per token on a 64-layer model.
	s.GPUs = 4
	dec := s.Terms(nil, []int{0}).CommSeconds
	if lat := 2 * float64(s.Model.Layers) * link.AllReduceLatencyUs * 1e-6; lat/dec < 0.9 {
		t.Errorf("batch-1 decode: latency %.3g s is only %.0f%% of the communication %.3g s", lat, lat/dec*100, dec)
	}

	// The same step on NVLink-connected GPUs pays far less.
	nv := s
	nv.GPU, _ = MustLoad().GPU("h100-sxm")
	if a, b := nv.Terms(nil, []int{0}).CommSeconds, dec; !(a < b/3) {
		t.Errorf("NVLink decode communication %.3g s is not well under PCIe's %.3g s", a, b)
	}
}

func TestCommandLineGPUAssumesPCIe(t *testing.T) {
	s := setupFor(t, "rtx-3090", "llama-3.1-8b", "fp16", "fp16", "vllm", 0.9)
	s.GPUs = 2
	custom := s
	custom.GPU = GPU{ID: "custom", VRAMGiB: 24, BandwidthGBps: 936, FP16TFLOPS: 142}
	if a, b := custom.Terms(nil, []int{0}).CommSeconds, s.Terms(nil, []int{0}).CommSeconds; a != b {
		t.Errorf("a GPU with no interconnect: communication %v s, want the PCIe 4.0 x16 figure %v s", a, b)
	}
	// A link bandwidth it does state is kept.
	custom.GPU.LinkGBps = 1000
	if a, b := custom.Terms([]Chunk{{Tokens: 4096}}, nil).CommSeconds, s.Terms([]Chunk{{Tokens: 4096}}, nil).CommSeconds; !(a < b) {
		t.Errorf("a 1000 GB/s link: prefill communication %v s, not below PCIe's %v s", a, b)
	}
}
