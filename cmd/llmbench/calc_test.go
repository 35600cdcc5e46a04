package main

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/perf"
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

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// TestCalcFlagsFillTheQuery: each of calc's flags sets its field of the query or the
// plan that perf resolves (the rules themselves are tested in internal/perf), and the
// defaults are calc's: one GPU, no engine (perf's: vLLM, Ollama for an Ollama tag), an fp16 KV cache,
// 90% of memory, the seed's plan.
func TestCalcFlagsFillTheQuery(t *testing.T) {
	parse := func(args ...string) calcFlags {
		t.Helper()
		var f calcFlags
		fl := pflag.NewFlagSet("calc", pflag.ContinueOnError)
		addCalcFlags(fl, &f)
		if err := fl.Parse(args); err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := parse()
	wantQ := perf.Query{GPUs: 1, KVDtype: "fp16", PipelineStages: 1, MemoryUtilization: 0.9, MambaSSMDtype: "auto"}
	wantP := perf.PlanText{Contexts: "0,16K,32K,56K", Concurrency: "1,2,4,8,16,32,64,128", Prefill: "8K,16K,32K,56K", MaxOutput: "8192", DurationS: 30}
	if !reflect.DeepEqual(f.q, wantQ) || f.plan != wantP || f.format != "text" {
		t.Errorf("defaults: %+v %+v %q; want %+v %+v text", f.q, f.plan, f.format, wantQ, wantP)
	}
	f = parse("--gpu", "g", "--gpus", "2", "--model", "m", "--quant", "q", "--kv-dtype", "k", "--engine", "e", "--engine-version", "v",
		"--n-cpu-moe", "3", "--host-bandwidth", "60", "--pipeline-parallel-size", "2", "--gpu-memory-utilization", "0.8", "--no-prefix-caching",
		"--max-num-seqs", "8", "--mamba-ssm-cache-dtype", "float16", "--reserve", "1.5", "--weights-gib", "11", "--max-model-len", "64K",
		"--contexts", "0", "--concurrency", "1", "--prefill", "", "--max-output", "1024", "--duration", "10", "--interconnect", "i",
		"--bandwidth", "936", "--tflops", "142", "--vram", "24", "--sm-count", "82", "--boost-clock-mhz", "1695", "--gpu-family", "amd",
		"--config", "c.json", "--gguf", "f.gguf", "--params", "30.5", "--active-params", "3.3", "--layers", "48", "--hidden", "2048",
		"--heads", "32", "--kv-heads", "4", "--head-dim", "128", "--intermediate", "6144", "--vocab", "151936", "--experts", "128",
		"--experts-per-token", "8", "--weight-bits", "4.5", "--format", "json", "--lang", "ja", "--list", "gpus")
	wantQ = perf.Query{GPU: "g", GPUFamily: "amd", Interconnect: "i", GPUs: 2, BandwidthGBps: 936, TFLOPS: 142, VRAMGiB: 24, SMCount: 82,
		BoostClockMHz: 1695, Model: "m", HFConfig: "c.json", GGUF: "f.gguf",
		Specs: perf.ModelSpecs{ParamsB: 30.5, ActiveParamsB: 3.3, Layers: 48, Hidden: 2048, Heads: 32, KVHeads: 4, HeadDim: 128,
			Intermediate: 6144, Vocab: 151936, Experts: 128, ExpertsPerToken: 8},
		Quant: "q", WeightBits: 4.5, KVDtype: "k", Engine: "e", EngineVersion: "v", PipelineStages: 2, HostExpertLayers: 3,
		HostBandwidthGBps: 60, MemoryUtilization: 0.8, ReserveGiB: 1.5, LoadedWeightsGiB: 11, MaxNumSeqs: 8, NoPrefixCaching: true,
		MambaSSMDtype: "float16"}
	wantP = perf.PlanText{Contexts: "0", Concurrency: "1", MaxOutput: "1024", MaxModelLen: "64K", DurationS: 10}
	if !reflect.DeepEqual(f.q, wantQ) || f.plan != wantP || f.format != "json" || f.lang != "ja" || f.list != "gpus" {
		t.Errorf("every flag:\n got %+v %+v\nwant %+v %+v", f.q, f.plan, wantQ, wantP)
	}
}

// TestCalcRefusesWhatTheServerRefuses checks calc gives no figures for setups the
// engine would not start, and says why.
func TestCalcRefusesWhatTheServerRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--gpu", "h100-sxm", "--gpus", "3", "--model", "qwen3-32b", "--quant", "bf16"}, "does not divide Qwen3 32B's 64 attention heads"},
		{[]string{"--gpu", "h100-sxm", "--pipeline-parallel-size", "5", "--model", "qwen3-32b", "--quant", "bf16"}, "5 pipeline stages do not divide"},
		{[]string{"--gpu", "rtx-3090", "--model", "qwen3-8b", "--quant", "awq", "--engine", "llama.cpp"}, "llama.cpp does not run AWQ"},
		{[]string{"--gpu", "rtx-3090", "--model", "qwen3-8b", "--quant", "awq", "--kv-dtype", "q8_0"}, "vLLM has no"},
	} {
		out, err := runCalcCmd(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("calc %s: %v (output %d bytes); want a refusal saying %q", strings.Join(tc.args, " "), err, len(out), tc.want)
		}
	}
	if _, err := runCalcCmd(t, "--gpu", "h100-sxm", "--gpus", "4", "--pipeline-parallel-size", "2", "--model", "qwen3-32b", "--quant", "bf16"); err != nil {
		t.Errorf("tp 4 × pp 2 of Qwen3 32B refused: %v", err)
	}
}

// TestCalcEngineVersion checks an older build's prediction says which factors it used, and that an undatable version is an error.
func TestCalcEngineVersion(t *testing.T) {
	args := []string{"--gpu", "rtx-4090", "--model", "llama-3.1-8b", "--quant", "q4_k_m", "--engine", "llama.cpp",
		"--contexts", "0", "--concurrency", "1", "--prefill", "8K", "--format", "json"}
	old, err := runCalcCmd(t, append(args, "--engine-version", "b5900")...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(old, "dated 2025-07, the date of b5863") || !strings.Contains(old, `"version": "b5900"`) {
		t.Errorf("b5900's note or version missing:\n%s", old)
	}
	gen, err := runCalcCmd(t, append(args, "--engine-version", "2023-11")...)
	if err != nil || !strings.Contains(gen, "llama.cpp-cuda@2023") {
		t.Errorf("a 2023 build: %v; want the llama.cpp-cuda@2023 factors", err)
	}
	for _, bad := range []string{"b100", "yesterday"} {
		if _, err := runCalcCmd(t, append(args, "--engine-version", bad)...); err == nil {
			t.Errorf("--engine-version %s accepted", bad)
		}
	}
	out, err := runCalcCmd(t, "--list", "engines")
	if err != nil || !strings.Contains(out, "b7901") || !strings.Contains(out, "OWN WORK TAKES") {
		t.Errorf("--list engines: %v\n%s", err, out)
	}
}

// TestCalcListPrices shows every price with its date and source.
func TestCalcListPrices(t *testing.T) {
	out, err := runCmd(t, "calc", "--list", "prices")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"runpod-serverless-h200", "5.58", "2026-12-01 (read)", "https://docs.runpod.io/serverless/pricing", "lambda-h100-sxm", "2026-05-07", "--price-per-hour"} {
		if !strings.Contains(out, want) {
			t.Errorf("--list prices lacks %q:\n%s", want, out)
		}
	}
}

// TestCalcEstimatesEnergy: a prediction carries estimated watts, J/token and $/Mtok,
// and says they are estimates.
func TestCalcEstimatesEnergy(t *testing.T) {
	out, err := runCmd(t, "calc", "--gpu", "h100-sxm", "--model", "llama-3.1-8b", "--quant", "bf16", "--contexts", "0", "--concurrency", "1,8", "--format", "md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"J/token", "$/Mtok", "Energy is an estimate, not a measurement"} {
		if !strings.Contains(out, want) {
			t.Errorf("calc md lacks %q:\n%s", want, out)
		}
	}
}
