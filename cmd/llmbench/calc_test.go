package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

func runCalcCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(append([]string{"calc"}, args...))
	err := root.Execute()
	return out.String(), err
}

// TestCalcJSONIsAPredictedRun: the seed's launch flags give a run document that
// "llmbench report" reads, marked predicted, whose over-capacity cells follow the
// measured-run rule from its own kv_cache_tokens and max_model_len.
func TestCalcJSONIsAPredictedRun(t *testing.T) {
	out, err := runCalcCmd(t, "--gpu", "RTX 3090", "--model", "RedHatAI/Qwen3.8-27B-INT4", "--quant", "INT4 W4A16 g128",
		"--kv-dtype", "fp8", "--gpu-memory-utilization", "0.94", "--max-model-len", "64K", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	run, err := rundoc.Decode([]byte(out))
	if err != nil {
		t.Fatalf("calc's JSON is not a run document: %v", err)
	}
	if run.Status != rundoc.RunPredicted || run.Engine.KVCacheTokens == nil || *run.Engine.MaxModelLen != 65536 {
		t.Errorf("status %q, kv_cache_tokens %v, max_model_len %v", run.Status, run.Engine.KVCacheTokens, run.Engine.MaxModelLen)
	}
	if len(run.Decode) != 32 || len(run.Prefill) != 4 {
		t.Fatalf("%d decode cells and %d prefill rows, want the seed's 32 and 4", len(run.Decode), len(run.Prefill))
	}
	for _, c := range run.Decode {
		fits, _ := rundoc.Fit(c.Context, c.Concurrency, run.Config.MaxOutputTokens, run.Engine.KVCacheTokens, run.Engine.MaxModelLen)
		if fits != (c.Status == rundoc.StatusPredicted) {
			t.Errorf("cell %d×%d is %s, but the document's own KV cache and max_model_len say fits=%v", c.Context, c.Concurrency, c.Status, fits)
		}
		switch c.Status {
		case rundoc.StatusPredicted:
			if c.DecodeFigures == nil || !(c.TotalTokS > 0) || !(c.TBTMs > 0) || !(c.TTFTMs > 0) {
				t.Errorf("cell %d×%d lacks figures", c.Context, c.Concurrency)
			}
		case rundoc.StatusOverCapacity:
			if c.DecodeFigures != nil || c.Reason == "" {
				t.Errorf("over-capacity cell %d×%d has figures or no reason", c.Context, c.Concurrency)
			}
		default:
			t.Errorf("cell %d×%d has status %q", c.Context, c.Concurrency, c.Status)
		}
	}
	for _, cell := range [][2]int{{0, 8}, {16384, 2}, {57344, 1}} { // the seed ran these
		if c := run.Cell(cell[0], cell[1]); c == nil || c.Status != rundoc.StatusPredicted {
			t.Errorf("cell %v, which the seed ran, is not predicted to fit", cell)
		}
	}
	if c := run.Cell(0, 16); c == nil || c.Status != rundoc.StatusOverCapacity {
		t.Errorf("cell 0×16 (over capacity on the seed) is predicted to fit")
	}
	for _, p := range run.Prefill {
		if p.Status != rundoc.StatusPredicted || p.PrefillFigures == nil || !(p.PromptTokS > 0) {
			t.Errorf("prefill row %d: %+v", p.Context, p)
		}
	}
	if run.Config.DecodeTest != "fixed-duration" || run.Config.PrefillMode != "decode-warmup" || run.Config.MaxOutputTokens != 8192 {
		t.Errorf("config %+v is not a run's", run.Config)
	}
	if !strings.HasPrefix(run.Title, "Qwen3.8 27B") || !strings.HasSuffix(run.Title, "on RTX 3090 24GB") {
		t.Errorf("title %q", run.Title)
	}
}

func TestCalcTextSaysPredicted(t *testing.T) {
	out, err := runCalcCmd(t, "--gpu", "h100-sxm", "--gpus", "2", "--model", "llama-3.1-70b", "--quant", "fp8", "--contexts", "0,8K", "--concurrency", "1,64")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"PREDICTED", "Prefill", "Sustained decode", "All measurements", "2× H100 SXM 80GB"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
}

func TestCalcExplicitSpecs(t *testing.T) {
	for _, args := range [][]string{
		{"--bandwidth", "936", "--tflops", "142", "--vram", "24", "--config", "../../internal/perf/testdata/qwen3-32b/config.json", "--weight-bits", "4.125", "--gpu-memory-utilization", "0.97", "--reserve", "1.5"},
		{"--gpu", "l4", "--params", "8", "--layers", "32", "--hidden", "4096", "--heads", "32", "--kv-heads", "8", "--head-dim", "128", "--weight-bits", "16", "--vocab", "128256"},
	} {
		out, err := runCalcCmd(t, append(args, "--format", "json")...)
		if err != nil {
			t.Errorf("calc %v: %v", args, err)
			continue
		}
		run, err := rundoc.Decode([]byte(out))
		if err != nil || run.Engine.KVCacheTokens == nil || *run.Engine.KVCacheTokens <= 0 {
			t.Errorf("calc %v: run %v, err %v", args, run, err)
		}
	}
}

func TestCalcErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--gpu", "rtx 3091", "--model", "qwen3-32b", "--quant", "awq"}, "did you mean rtx-3090"},
		{[]string{"--gpu", "rtx-3090", "--model", "qwen-3-32", "--quant", "awq"}, "did you mean qwen3-32b"},
		{[]string{"--gpu", "rtx-3090", "--model", "qwen3-8b"}, "--quant"},
		{[]string{"--model", "qwen3-8b", "--quant", "awq"}, "--gpu"},
		{[]string{"--gpu", "rtx-3090", "--bandwidth", "900", "--model", "qwen3-8b", "--quant", "awq"}, "not both"},
		{[]string{"--gpu", "rtx-3090", "--model", "llama-3.1-70b", "--quant", "bf16"}, "no room"},
		{[]string{"--gpu", "rtx-3090", "--model", "qwen3-8b", "--quant", "awq", "--contexts", "0,x"}, "--contexts"},
		{[]string{"--list", "cars"}, "gpus, models, quants"},
		{[]string{"--gpu", "rtx-4090", "--model", "mlx-community/Qwen3-32B-4bit"}, `states weights "4bit"`},
		{[]string{"--gpu", "rtx-4090", "--model", "qwen3:latest", "--quant", "q4_k_m"}, "unknown model"},
	} {
		_, err := runCalcCmd(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("calc %v: err = %v, want one mentioning %q", tc.args, err, tc.want)
		}
	}
}

// TestCalcReadsNamesAsToolsPrintThem: --gpu as nvidia-smi prints it and --model as a
// Hugging Face repo id, an Ollama tag or a GGUF file name give the catalog's GPU and
// model with the weight format the name states, and the notes say how they were read
// (issue 26 item 4); an alias for another model is predicted and said to be one.
func TestCalcReadsNamesAsToolsPrintThem(t *testing.T) {
	for _, tc := range []struct {
		args              []string
		model, quant, gpu string
		note              string
	}{
		{[]string{"--gpu", "NVIDIA GeForce RTX 4090", "--model", "Qwen/Qwen3-32B-AWQ"}, "qwen3-32b", "AWQ INT4 g128", "RTX 4090", "weights AWQ INT4 g128, from the name"},
		{[]string{"--gpu", "rtx 4090", "--model", "qwen3:32b-q4_K_M"}, "qwen3-32b", "GGUF Q4_K_M", "RTX 4090", `"qwen3:32b-q4_K_M" read as Qwen3 32B`},
		{[]string{"--gpu", "NVIDIA H100 80GB HBM3", "--model", "Meta-Llama-3.1-8B-Instruct-Q8_0.gguf"}, "llama-3.1-8b", "GGUF Q8_0", "H100 SXM", "from the name"},
		{[]string{"--gpu", "h100", "--model", "llama-3-8b", "--quant", "bf16"}, "llama-3.1-8b", "BF16", "H100 SXM", `"llama-3-8b" is not in the catalog: predicted as Llama 3.1 8B`},
		// A flag's weight format wins over the name's.
		{[]string{"--gpu", "h100", "--model", "Qwen/Qwen3-32B-AWQ", "--quant", "fp8"}, "qwen3-32b", "FP8 W8A8", "H100 SXM", ""},
	} {
		out, err := runCalcCmd(t, append(tc.args, "--format", "json")...)
		if err != nil {
			t.Errorf("calc %v: %v", tc.args, err)
			continue
		}
		run, err := rundoc.Decode([]byte(out))
		if err != nil {
			t.Fatal(err)
		}
		notes := strings.Join(run.Notes, "\n")
		if run.Model.ServedName != tc.model || run.Engine.Quantization != tc.quant || run.Hardware.GPUs[0].Name != tc.gpu || !strings.Contains(notes, tc.note) {
			t.Errorf("calc %v: model %q, weights %q, GPU %q, notes %q; want %q, %q, %q and a note with %q",
				tc.args, run.Model.ServedName, run.Engine.Quantization, run.Hardware.GPUs[0].Name, notes, tc.model, tc.quant, tc.gpu, tc.note)
		}
	}
}

func TestCalcList(t *testing.T) {
	for what, want := range map[string]string{"gpus": "rtx-3090", "models": "qwen3.8-27b", "quants": "q4_k_m", "kv-dtypes": "q8_0", "engines": "llama.cpp"} {
		out, err := runCalcCmd(t, "--list", what)
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("--list %s: err %v, output lacks %q", what, err, want)
		}
	}
}

// TestCalcInterconnect: two GPUs on an NVLink bridge decode faster than the same two in
// PCIe 3.0 slots, where every step's all-reduces cost more.
func TestCalcInterconnect(t *testing.T) {
	tokS := func(link string) float64 {
		out, err := runCalcCmd(t, "--gpu", "rtx-3090", "--gpus", "2", "--interconnect", link,
			"--model", "qwen3.8-27b", "--quant", "fp8", "--contexts", "0", "--concurrency", "1", "--prefill", "", "--format", "json")
		if err != nil {
			t.Fatalf("%s: %v\n%s", link, err, out)
		}
		doc, err := rundoc.Decode([]byte(out))
		if err != nil {
			t.Fatal(err)
		}
		return doc.Decode[0].TotalTokS
	}
	pcie, nvlink := tokS("pcie-gen3-x16"), tokS("nvlink-bridge-ampere")
	if !(nvlink > pcie) {
		t.Errorf("batch-1 decode: NVLink %.1f tok/s, PCIe 3.0 %.1f: want NVLink faster", nvlink, pcie)
	}
	if _, err := runCalcCmd(t, "--list", "interconnects"); err != nil {
		t.Error(err)
	}
}

// TestCalcReproducesVLLMBootLog: calc with the flags of a published stock-vLLM boot of
// the seed's checkpoint on one RTX 3090 (Starwaves1/vllm-gsqrco-exl3, official-nomtp
// server.log: fp8 KV, --mamba-ssm-cache-dtype float16, 0.94 utilization, auto-fit
// max_model_len 136,800) reports what vLLM logged: 136,800 tokens, 1.00× at 136,800.
// (The single-GPU reserve is fitted to that log's 4.34 GiB; the token count follows from
// vLLM's hybrid layout — 800-token blocks, 177 of them — which is not fitted.)
func TestCalcReproducesVLLMBootLog(t *testing.T) {
	out, err := runCalcCmd(t, "--gpu", "rtx-3090", "--model", "RedHatAI/Qwen3.8-27B-INT4", "--quant", "int4", "--kv-dtype", "fp8",
		"--gpu-memory-utilization", "0.94", "--max-model-len", "136800", "--mamba-ssm-cache-dtype", "float16", "--max-num-seqs", "8", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	run, err := rundoc.Decode([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if got := run.Engine.KVCacheTokens; got == nil || *got != 136_800 {
		t.Errorf("kv_cache_tokens %v, vLLM logged 'GPU KV cache size: 136,800 tokens'", got)
	}
	if !strings.Contains(out, "raised to 800 tokens") || !strings.Contains(out, "177 blocks") {
		t.Errorf("notes do not give vLLM's 800-token blocks and 177 blocks:\n%s", out)
	}
	if _, err := runCalcCmd(t, "--gpu", "rtx-3090", "--model", "qwen3.8-27b", "--quant", "int4", "--mamba-ssm-cache-dtype", "int3"); err == nil {
		t.Error("--mamba-ssm-cache-dtype int3 accepted")
	}
	// A second boot on the same machine, a GGUF IQ3_S checkpoint the catalog has no
	// format for: its logged weights (--weights-gib) and 200,000-token max_model_len
	// give the logged token count from the predicted 8.82 GiB (logged: 8.94 GiB, 285,937
	// tokens; the memory table in docs/calc.md has both).
	out, err = runCalcCmd(t, "--gpu", "rtx-3090", "--model", "qwen3.8-27b", "--quant", "q4_k_m", "--kv-dtype", "fp8",
		"--gpu-memory-utilization", "0.94", "--max-model-len", "200000", "--mamba-ssm-cache-dtype", "float16", "--max-num-seqs", "8", "--weights-gib", "11.96")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "weights 11.96 GiB (as loaded") {
		t.Errorf("--weights-gib 11.96 not used:\n%s", out)
	}
	if _, err := runCalcCmd(t, "--gpu", "rtx-3090", "--model", "qwen3.8-27b", "--quant", "int4", "--weights-gib", "-1"); err == nil {
		t.Error("--weights-gib -1 accepted")
	}
}

// TestCalcMaxNumSeqs: vLLM's sampler warm-up runs on max_num_seqs rows of logits, so a
// smaller --max-num-seqs leaves a larger cache; at vLLM's default 256 the seed's setup
// has fewer recurrent-state blocks than sequences, which vLLM refuses, and calc says so.
func TestCalcMaxNumSeqs(t *testing.T) {
	seed := []string{"--gpu", "RTX 3090", "--model", "RedHatAI/Qwen3.8-27B-INT4", "--quant", "int4", "--kv-dtype", "fp8",
		"--gpu-memory-utilization", "0.94", "--max-model-len", "65536", "--format", "json"}
	kv := func(extra ...string) (int64, string) {
		t.Helper()
		out, err := runCalcCmd(t, append(slices.Clone(seed), extra...)...)
		if err != nil {
			t.Fatal(err)
		}
		run, err := rundoc.Decode([]byte(out))
		if err != nil {
			t.Fatal(err)
		}
		if run.Engine.MaxNumSeqs == nil {
			t.Fatal("the predicted run has no engine.max_num_seqs")
		}
		return *run.Engine.KVCacheTokens, out
	}
	byDefault, out := kv()
	if !strings.Contains(out, "max_num_seqs (256) exceeds available Mamba cache blocks") {
		t.Errorf("at the default 256 sequences the notes do not say vLLM would refuse to start:\n%s", out)
	}
	seed53, out := kv("--max-num-seqs", "53")
	if seed53 <= byDefault || strings.Contains(out, "exceeds available Mamba cache blocks") {
		t.Errorf("--max-num-seqs 53: %d KV tokens (default %d); want more, and no refusal note", seed53, byDefault)
	}
	if _, err := runCalcCmd(t, append(slices.Clone(seed), "--max-num-seqs", "-1")...); err == nil {
		t.Error("--max-num-seqs -1 accepted")
	}
}

// calcCells runs calc with JSON output and returns its decode cells by context and
// concurrency.
func calcCells(t *testing.T, args ...string) map[[2]int]*rundoc.DecodeFigures {
	t.Helper()
	out, err := runCalcCmd(t, append(args, "--format", "json")...)
	if err != nil {
		t.Fatalf("calc %v: %v", args, err)
	}
	run, err := rundoc.Decode([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	cells := map[[2]int]*rundoc.DecodeFigures{}
	for _, c := range run.Decode {
		cells[[2]int{c.Context, c.Concurrency}] = c.DecodeFigures
	}
	return cells
}

// TestCalcExplicitMoEAgreesWithCatalog: an MoE model given by specs — Qwen3-30B-A3B's
// parameters, shapes and routing from its config.json — predicts what the catalog
// entry predicts, because a decode step reads only the experts its tokens route to on
// both paths (before, the explicit path read every weight: 48 tok/s against 171 on an
// RTX 4090). Without --experts a token still reads exactly the active weights, but the
// work per routed expert (perf.Efficiency.OverheadPerExpertUs), which only the number
// of experts a token routes to can size, is not counted (perf.Model.RoutingUnknown):
// the batch-1 figure is then faster than the catalog's, by less than that work's
// share; batches are an approximation.
func TestCalcExplicitMoEAgreesWithCatalog(t *testing.T) {
	common := []string{"--gpu", "rtx-4090", "--quant", "q4_k_m", "--engine", "llama.cpp", "--contexts", "0,4K", "--concurrency", "1,4",
		"--max-output", "1024", "--prefill", "4K"}
	specs := []string{"--params", "30.53", "--active-params", "3.34", "--layers", "48", "--hidden", "2048", "--heads", "32",
		"--kv-heads", "4", "--head-dim", "128", "--vocab", "151936"}
	catalog := calcCells(t, append(common, "--model", "qwen3-30b-a3b")...)
	routed := calcCells(t, append(append(common, specs...), "--experts", "128", "--experts-per-token", "8")...)
	unrouted := calcCells(t, append(common, specs...)...)
	dense := calcCells(t, append(append(common, specs[:2]...), specs[4:]...)...)
	for cell, want := range catalog {
		if want == nil {
			t.Fatalf("cell %v is over capacity in the catalog prediction", cell)
		}
		got := routed[cell]
		if got == nil || abs(got.TotalTokS-want.TotalTokS)/want.TotalTokS > 0.01 {
			t.Errorf("cell %v: explicit MoE with routing %v tok/s, catalog %.1f", cell, got, want.TotalTokS)
		}
		if cell[1] == 1 {
			if got := unrouted[cell]; got == nil || got.TotalTokS <= want.TotalTokS || got.TotalTokS > 2*want.TotalTokS {
				t.Errorf("cell %v: explicit MoE without routing %v tok/s, catalog %.1f: it should leave out only the per-expert work", cell, got, want.TotalTokS)
			}
		}
		if d := dense[cell]; d == nil || d.TotalTokS > 0.5*want.TotalTokS {
			t.Errorf("cell %v: the same specs without --active-params (dense) %v tok/s should read every weight, far slower than %.1f", cell, d, want.TotalTokS)
		}
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// TestCalcGPUFamily: an explicit GPU's --gpu-family picks its vendor's efficiency
// factors (an Apple chip given by specs is not predicted with the CUDA family's), the
// same as the catalog entry with those specs; a family that contradicts a catalog GPU
// is refused.
func TestCalcGPUFamily(t *testing.T) {
	common := []string{"--model", "llama-3.1-8b", "--quant", "q4_k_m", "--engine", "llama.cpp", "--contexts", "0", "--concurrency", "1", "--prefill", "4K"}
	m3 := []string{"--bandwidth", "400", "--tflops", "16.4", "--vram", "128"}
	catalog := calcCells(t, append(common, "--gpu", "m3-max")...)[[2]int{0, 1}]
	apple := calcCells(t, append(append(common, m3...), "--gpu-family", "apple")...)[[2]int{0, 1}]
	nvidia := calcCells(t, append(common, m3...)...)[[2]int{0, 1}]
	if apple == nil || catalog == nil || nvidia == nil {
		t.Fatal("a cell is over capacity")
	}
	if abs(apple.TotalTokS-catalog.TotalTokS)/catalog.TotalTokS > 0.01 {
		t.Errorf("M3 Max by specs with --gpu-family apple: %.1f tok/s, catalog m3-max %.1f", apple.TotalTokS, catalog.TotalTokS)
	}
	if apple.TotalTokS == nvidia.TotalTokS {
		t.Errorf("--gpu-family apple changed nothing (%.1f tok/s either way)", apple.TotalTokS)
	}
	if _, err := runCalcCmd(t, append(common, "--gpu", "rtx-3090", "--gpu-family", "apple")...); err == nil {
		t.Error("--gpu rtx-3090 --gpu-family apple: want an error")
	}
	if _, err := runCalcCmd(t, append(append(common, m3...), "--gpu-family", "tpu")...); err == nil {
		t.Error("--gpu-family tpu: want an error")
	}
	out, err := runCalcCmd(t, append(append(common, m3...), "--gpu-family", "intel", "--format", "json")...)
	if err != nil || !strings.Contains(out, "No published measurement of an Intel GPU") {
		t.Errorf("--gpu-family intel: want a note that no Intel GPU is in the evidence (err %v)", err)
	}
}

// TestCalcSMCountCapsLlamaCppOnExplicitGPU: an A100 given by specs with its SMs and
// clock predicts llama.cpp's prefill as the catalog's A100 does, capped at a
// GA102-class SM's tensor rate (perf's ggml cap); without them the datasheet's
// 312 TFLOPS apply and prefill comes out faster. vLLM's GEMMs are not capped.
func TestCalcSMCountCapsLlamaCppOnExplicitGPU(t *testing.T) {
	prefill := func(args ...string) float64 {
		t.Helper()
		out, err := runCalcCmd(t, append(args, "--model", "llama-3.1-8b", "--contexts", "0", "--concurrency", "1",
			"--prefill", "4K", "--format", "json")...)
		if err != nil {
			t.Fatalf("calc %v: %v", args, err)
		}
		run, err := rundoc.Decode([]byte(out))
		if err != nil {
			t.Fatal(err)
		}
		if len(run.Prefill) != 1 || run.Prefill[0].PrefillFigures == nil {
			t.Fatalf("calc %v: no prefill figure", args)
		}
		return run.Prefill[0].PromptTokS
	}
	a100 := []string{"--bandwidth", "2039", "--tflops", "312", "--vram", "80"}
	sms := []string{"--sm-count", "108", "--boost-clock-mhz", "1410"}
	llama := []string{"--quant", "q4_k_m", "--engine", "llama.cpp"}
	catalog := prefill(append(llama, "--gpu", "a100-80gb")...)
	capped := prefill(append(append(llama, a100...), sms...)...)
	uncapped := prefill(append(llama, a100...)...)
	if abs(capped-catalog)/catalog > 0.01 {
		t.Errorf("A100 by specs with --sm-count/--boost-clock-mhz: %.0f prompt tok/s, catalog a100-80gb %.0f", capped, catalog)
	}
	if !(uncapped > 1.2*capped) {
		t.Errorf("without --sm-count the A100's datasheet rate should apply: %.0f prompt tok/s, capped %.0f", uncapped, capped)
	}
	vllm := []string{"--quant", "bf16", "--engine", "vllm"}
	// vLLM's GEMMs are not capped; its prefill moves only by the per-layer overhead,
	// which the clock stretches.
	if a, b := prefill(append(append(vllm, a100...), sms...)...), prefill(append(vllm, a100...)...); abs(a-b)/b > 0.01 {
		t.Errorf("vLLM's prefill moved with --sm-count: %.0f against %.0f prompt tok/s", a, b)
	}
	for _, bad := range [][]string{
		append(append(llama, a100...), "--sm-count", "108"),
		append(append(llama, a100...), "--sm-count", "-1", "--boost-clock-mhz", "1410"),
		append(append(llama, "--gpu", "a100-80gb"), sms...),
	} {
		if _, err := runCalcCmd(t, append(bad, "--model", "llama-3.1-8b")...); err == nil {
			t.Errorf("calc %v: want an error", bad)
		}
	}
}
