package perf

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// calcQuery is the query of calc's flags left at their defaults: one GPU, vLLM, an
// fp16 KV cache, 90% of memory, one pipeline stage.
func calcQuery() Query {
	return Query{GPUs: 1, KVDtype: "fp16", Engine: "vllm", PipelineStages: 1, MemoryUtilization: 0.9, MambaSSMDtype: "auto"}
}

// calcPlanText is the matrix of calc's flags left at their defaults (the seed's).
func calcPlanText() PlanText {
	return PlanText{Contexts: "0,16K,32K,56K", Concurrency: "1,2,4,8,16,32,64,128", Prefill: "8K,16K,32K,56K", MaxOutput: "8192", DurationS: 30}
}

// with is calcQuery changed by f.
func with(f func(q *Query)) Query {
	q := calcQuery()
	f(&q)
	return q
}

func predictQuery(t *testing.T, q Query, pt PlanText) *rundoc.Run {
	t.Helper()
	run, err := MustLoad().PredictQuery(q, pt, time.Now())
	if err != nil {
		t.Fatalf("PredictQuery(%+v): %v", q, err)
	}
	return run
}

// TestResolveErrors: each rule of reading a setup refuses what it cannot use, in the
// words calc has always printed (they name its flags).
func TestResolveErrors(t *testing.T) {
	c := MustLoad()
	for _, tc := range []struct {
		name string
		q    Query
		want string
	}{
		{"unknown GPU", with(func(q *Query) { q.GPU, q.Model, q.Quant = "rtx 3091", "qwen3-32b", "awq" }), "did you mean rtx-3090"},
		{"unknown model", with(func(q *Query) { q.GPU, q.Model, q.Quant = "rtx-3090", "qwen-3-32", "awq" }), "did you mean qwen3-32b"},
		{"no weight format", with(func(q *Query) { q.GPU, q.Model = "rtx-3090", "qwen3-8b" }), "--quant"},
		{"no GPU", with(func(q *Query) { q.Model, q.Quant = "qwen3-8b", "awq" }), "--gpu"},
		{"GPU twice", with(func(q *Query) { q.GPU, q.BandwidthGBps, q.Model, q.Quant = "rtx-3090", 900, "qwen3-8b", "awq" }), "not both"},
		{"a format the calculator lacks", with(func(q *Query) { q.GPU, q.Model = "rtx-4090", "mlx-community/Qwen3-32B-4bit" }), `states weights "4bit"`},
		{"a tag without a size", with(func(q *Query) { q.GPU, q.Model, q.Quant = "rtx-4090", "qwen3:latest", "q4_k_m" }), "unknown model"},
		{"a partial explicit GPU", with(func(q *Query) { q.BandwidthGBps, q.TFLOPS, q.Model, q.Quant = 400, 16.4, "llama-3.1-8b", "q4_k_m" }), "needs all of --bandwidth"},
		{"an unknown family", with(func(q *Query) {
			q.BandwidthGBps, q.TFLOPS, q.VRAMGiB, q.GPUFamily, q.Model, q.Quant = 400, 16.4, 128, "tpu", "llama-3.1-8b", "q4_k_m"
		}), `--gpu-family "tpu"`},
		{"a family against the catalog's", with(func(q *Query) { q.GPU, q.GPUFamily, q.Model, q.Quant = "rtx-3090", "apple", "llama-3.1-8b", "q4_k_m" }), "the catalog's RTX 3090"},
		{"SMs without a clock", with(func(q *Query) {
			q.BandwidthGBps, q.TFLOPS, q.VRAMGiB, q.SMCount, q.Model, q.Quant = 2039, 312, 80, 108, "llama-3.1-8b", "q4_k_m"
		}), "go together"},
		{"negative SMs", with(func(q *Query) {
			q.BandwidthGBps, q.TFLOPS, q.VRAMGiB, q.SMCount, q.BoostClockMHz, q.Model, q.Quant = 2039, 312, 80, -1, 1410, "llama-3.1-8b", "q4_k_m"
		}), "go together"},
		{"SMs of a catalog GPU", with(func(q *Query) {
			q.GPU, q.SMCount, q.BoostClockMHz, q.Model, q.Quant = "a100-80gb", 108, 1410, "llama-3.1-8b", "q4_k_m"
		}), "carry their own"},
		{"an unknown link", with(func(q *Query) {
			q.GPU, q.Interconnect, q.Model, q.Quant = "rtx-3090", "nvlink-bogus", "qwen3-8b", "awq"
		}), "unknown interconnect"},
		{"no GPUs", with(func(q *Query) { q.GPU, q.GPUs, q.Model, q.Quant = "h100-sxm", 0, "llama-3.1-8b", "bf16" }), "--gpus 0: need at least one"},
		{"two models", with(func(q *Query) { q.GPU, q.Model, q.HFConfig, q.Quant = "h100-sxm", "llama-3.1-8b", "x.json", "bf16" }), "give exactly one model"},
		{"a partial explicit model", with(func(q *Query) { q.GPU, q.Specs, q.Quant = "rtx-4090", ModelSpecs{ParamsB: 8, Layers: 48}, "q4_k_m" }), "an explicit model needs"},
		{"embeddings over the parameters", with(func(q *Query) {
			q.GPU, q.Specs, q.Quant = "rtx-4090", ModelSpecs{ParamsB: 1, Layers: 48, Hidden: 2048, Heads: 32, Vocab: 1000000}, "q4_k_m"
		}), "exceeds --params"},
		{"experts without their count per token", with(func(q *Query) {
			q.GPU, q.Specs, q.Quant = "rtx-4090", ModelSpecs{ParamsB: 30.53, Layers: 48, Hidden: 2048, Heads: 32, Experts: 8}, "q4_k_m"
		}), "go together"},
		{"experts without active parameters", with(func(q *Query) {
			q.GPU, q.Specs, q.Quant = "rtx-4090", ModelSpecs{ParamsB: 30.53, Layers: 48, Hidden: 2048, Heads: 32, Experts: 8, ExpertsPerToken: 2}, "q4_k_m"
		}), "--experts needs --active-params"},
		{"more experts per token than experts", with(func(q *Query) {
			q.GPU, q.Specs, q.Quant = "rtx-4090", ModelSpecs{ParamsB: 30.53, ActiveParamsB: 3, Layers: 48, Hidden: 2048, Heads: 32, Experts: 8, ExpertsPerToken: 9}, "q4_k_m"
		}), "--experts-per-token 9 exceeds --experts 8"},
		{"active over all parameters", with(func(q *Query) {
			q.GPU, q.Specs, q.Quant = "rtx-4090", ModelSpecs{ParamsB: 30.53, ActiveParamsB: 40, Layers: 48, Hidden: 2048, Heads: 32}, "q4_k_m"
		}), "--active-params 40 exceeds"},
		{"a format and bits", with(func(q *Query) { q.GPU, q.Model, q.Quant, q.WeightBits = "h100-sxm", "llama-3.1-8b", "bf16", 4 }), "give --quant or --weight-bits, not both"},
		{"an unknown KV dtype", with(func(q *Query) { q.GPU, q.Model, q.Quant, q.KVDtype = "rtx-3090", "qwen3-8b", "awq", "q9" }), "unknown kv-dtype"},
		{"an unknown engine", with(func(q *Query) { q.GPU, q.Model, q.Quant, q.Engine = "rtx-3090", "qwen3-8b", "awq", "vllx" }), "unknown engine"},
		{"an undatable build", with(func(q *Query) {
			q.GPU, q.Model, q.Quant, q.Engine, q.EngineVersion = "rtx-4090", "llama-3.1-8b", "q4_k_m", "llama.cpp", "yesterday"
		}), "--engine-version: "},
		{"a build older than the dated ones", with(func(q *Query) {
			q.GPU, q.Model, q.Quant, q.Engine, q.EngineVersion = "rtx-4090", "llama-3.1-8b", "q4_k_m", "llama.cpp", "b100"
		}), "older than its oldest dated build"},
		{"no pipeline stage", with(func(q *Query) { q.GPU, q.Model, q.Quant, q.PipelineStages = "h100-sxm", "qwen3-32b", "bf16", 0 }), "--pipeline-parallel-size 0: at least 1"},
		{"negative host experts", with(func(q *Query) { q.GPU, q.Model, q.Quant, q.HostExpertLayers = "h100-sxm", "llama-3.1-8b", "bf16", -1 }), "cannot be negative"},
		{"a utilization over 1", with(func(q *Query) { q.GPU, q.Model, q.Quant, q.MemoryUtilization = "h100-sxm", "llama-3.1-8b", "bf16", 1.2 }), "--gpu-memory-utilization 1.2: must be in (0, 1]"},
		{"a negative reserve", with(func(q *Query) { q.GPU, q.Model, q.Quant, q.ReserveGiB = "h100-sxm", "llama-3.1-8b", "bf16", -1 }), "--weights-gib and --reserve cannot be negative"},
		{"negative loaded weights", with(func(q *Query) { q.GPU, q.Model, q.Quant, q.LoadedWeightsGiB = "rtx-3090", "qwen3.8-27b", "int4", -1 }), "--weights-gib and --reserve cannot be negative"},
		{"negative sequences", with(func(q *Query) { q.GPU, q.Model, q.Quant, q.MaxNumSeqs = "rtx-3090", "qwen3.8-27b", "int4", -1 }), "--max-num-seqs -1"},
		{"an unknown state dtype", with(func(q *Query) { q.GPU, q.Model, q.Quant, q.MambaSSMDtype = "rtx-3090", "qwen3.8-27b", "int4", "int3" }), `--mamba-ssm-cache-dtype "int3"`},
	} {
		if _, err := c.Resolve(tc.q); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
}

// TestResolveNamesTheField: an unknown name is a QueryError naming the field it was
// typed in and the name, over the catalog's NotFoundError (the site's calculator
// points at the field and offers the closest names); a format a model's name states
// that the catalog lacks is the quant field's, in calc's words.
func TestResolveNamesTheField(t *testing.T) {
	c := MustLoad()
	base := with(func(q *Query) { q.GPU, q.Model, q.Quant = "rtx-3090", "qwen3-8b", "awq" })
	for _, tc := range []struct {
		q            Query
		field, value string
	}{
		{with(func(q *Query) { *q = base; q.GPU = "rtx 3091" }), "gpu", "rtx 3091"},
		{with(func(q *Query) { *q = base; q.Model = "qwen-3-32" }), "model", "qwen-3-32"},
		{with(func(q *Query) { *q = base; q.Quant = "awq-9" }), "quant", "awq-9"},
		{with(func(q *Query) { *q = base; q.Quant, q.Model = "", "mlx-community/Qwen3-32B-4bit" }), "quant", "4bit"},
		{with(func(q *Query) { *q = base; q.Quant, q.DefaultQuant = "", "bf17" }), "quant", "bf17"},
		{with(func(q *Query) { *q = base; q.KVDtype = "q9" }), "kv_dtype", "q9"},
		{with(func(q *Query) { *q = base; q.Engine = "vllx" }), "engine", "vllx"},
		{with(func(q *Query) { *q = base; q.Interconnect = "nvlink-bogus" }), "interconnect", "nvlink-bogus"},
	} {
		_, err := c.Resolve(tc.q)
		var qe *QueryError
		var nf *NotFoundError
		if !errors.As(err, &qe) || qe.Field != tc.field || qe.Value != tc.value || !errors.As(err, &nf) {
			t.Errorf("%+v: err %v (%#v); want a QueryError for %s %q over a NotFoundError", tc.q, err, qe, tc.field, tc.value)
		}
	}
}

// TestResolveDefaultQuant: a query without a weight format takes the one the model's
// name states, else its DefaultQuant (the site's bf16); a flag's format wins over the
// name's; a GGUF file's format is the file's.
func TestResolveDefaultQuant(t *testing.T) {
	c := MustLoad()
	for _, tc := range []struct {
		q    Query
		want string
	}{
		{with(func(q *Query) { q.GPU, q.Model, q.DefaultQuant = "h100-sxm", "qwen3-32b", "bf16" }), "bf16"},
		{with(func(q *Query) { q.GPU, q.Model, q.DefaultQuant = "h100-sxm", "Qwen/Qwen3-32B-AWQ", "bf16" }), "awq"},
		{with(func(q *Query) {
			q.GPU, q.Model, q.Quant, q.DefaultQuant = "h100-sxm", "Qwen/Qwen3-32B-AWQ", "fp8", "bf16"
		}), "fp8"},
		{with(func(q *Query) { q.GPU, q.Model, q.WeightBits = "h100-sxm", "qwen3-32b", 4.5 }), "4.5bit"},
		{with(func(q *Query) {
			q.GPU, q.GGUF = "h100-sxm", llamaGGUF(t, MustLoad().Models[modelIndex(t, "llama-3.1-8b")], "q4_k_m")
		}), "q4_k_m"},
	} {
		r, err := c.Resolve(tc.q)
		if err != nil {
			t.Errorf("%+v: %v", tc.q, err)
			continue
		}
		if r.Setup.Quant.ID != tc.want {
			t.Errorf("%+v: weights %s, want %s", tc.q, r.Setup.Quant.ID, tc.want)
		}
	}
}

func modelIndex(t *testing.T, id string) int {
	t.Helper()
	for i, m := range MustLoad().Models {
		if m.ID == id {
			return i
		}
	}
	t.Fatalf("no model %s in the catalog", id)
	return -1
}

// TestParsePlan: the matrix as typed, K = 1024; an empty list is no row; each bad
// value names its flag.
func TestParsePlan(t *testing.T) {
	p, err := ParsePlan(calcPlanText())
	if err != nil {
		t.Fatal(err)
	}
	if d := DefaultPlan(); len(p.Contexts) != 4 || p.Contexts[3] != 56*rundoc.K || len(p.Concurrency) != 8 || p.MaxOutputTokens != d.MaxOutputTokens || p.DurationS != d.DurationS || p.TailTokens != d.TailTokens || p.MaxModelLen != 0 {
		t.Errorf("calc's default flags: %+v, want the seed's plan", p)
	}
	pt := calcPlanText()
	pt.Prefill, pt.MaxModelLen = "", "64K"
	if p, err := ParsePlan(pt); err != nil || len(p.PrefillContexts) != 0 || p.MaxModelLen != 65536 {
		t.Errorf("--prefill '' --max-model-len 64K: %+v, %v; want no prefill rows and 65536", p, err)
	}
	for _, tc := range []struct {
		f    func(*PlanText)
		want string
	}{
		{func(t *PlanText) { t.Contexts = "0,x" }, "--contexts"},
		{func(t *PlanText) { t.Concurrency = "0" }, "--concurrency"},
		{func(t *PlanText) { t.Prefill = "1.5" }, "--prefill"},
		{func(t *PlanText) { t.MaxOutput = "0" }, `--max-output "0": a positive token count`},
		{func(t *PlanText) { t.MaxModelLen = "x" }, `--max-model-len "x": a positive token count`},
		{func(t *PlanText) { t.DurationS = 0 }, "--duration must be positive"},
	} {
		pt := calcPlanText()
		tc.f(&pt)
		if _, err := ParsePlan(pt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err %v, want one mentioning %q", pt, err, tc.want)
		}
	}
}

// TestPredictQueryNoRoom: a model whose weights leave no KV cache is refused.
func TestPredictQueryNoRoom(t *testing.T) {
	q := with(func(q *Query) { q.GPU, q.Model, q.Quant = "rtx-3090", "llama-3.1-70b", "bf16" })
	if _, err := MustLoad().PredictQuery(q, calcPlanText(), time.Now()); err == nil || !strings.Contains(err.Error(), "no room") {
		t.Errorf("Llama 3.1 70B in BF16 on one RTX 3090: err %v, want no room", err)
	}
}

// TestResolveReadsNamesAsToolsPrintThem: a GPU as nvidia-smi prints it and a model as a
// Hugging Face repo id, an Ollama tag or a GGUF file name give the catalog's GPU and
// model with the weight format the name states, and the notes say how they were read
// (issue 26 item 4); an alias for another model is predicted and said to be one.
func TestResolveReadsNamesAsToolsPrintThem(t *testing.T) {
	for _, tc := range []struct {
		gpu, name, quant  string
		model, weights, g string
		note              string
	}{
		{"NVIDIA GeForce RTX 4090", "Qwen/Qwen3-32B-AWQ", "", "qwen3-32b", "AWQ INT4 g128", "RTX 4090", "weights AWQ INT4 g128, from the name"},
		{"rtx 4090", "qwen3:32b-q4_K_M", "", "qwen3-32b", "GGUF Q4_K_M", "RTX 4090", `"qwen3:32b-q4_K_M" read as Qwen3 32B`},
		{"NVIDIA H100 80GB HBM3", "Meta-Llama-3.1-8B-Instruct-Q8_0.gguf", "", "llama-3.1-8b", "GGUF Q8_0", "H100 SXM", "from the name"},
		{"h100", "llama-3-8b", "bf16", "llama-3.1-8b", "BF16", "H100 SXM", `"llama-3-8b" is not in the catalog: predicted as Llama 3.1 8B`},
		// A flag's weight format wins over the name's.
		{"h100", "Qwen/Qwen3-32B-AWQ", "fp8", "qwen3-32b", "FP8 W8A8", "H100 SXM", ""},
	} {
		run := predictQuery(t, with(func(q *Query) { q.GPU, q.Model, q.Quant = tc.gpu, tc.name, tc.quant }), calcPlanText())
		notes := strings.Join(run.Notes, "\n")
		if run.Model.ServedName != tc.model || run.Engine.Quantization != tc.weights || run.Hardware.GPUs[0].Name != tc.g || !strings.Contains(notes, tc.note) {
			t.Errorf("%s on %s (quant %q): model %q, weights %q, GPU %q, notes %q; want %q, %q, %q and a note with %q",
				tc.name, tc.gpu, tc.quant, run.Model.ServedName, run.Engine.Quantization, run.Hardware.GPUs[0].Name, notes, tc.model, tc.weights, tc.g, tc.note)
		}
	}
}

// TestAnnotateEngineVersion: an older build's prediction says which factors it used
// and carries the version as asked; the current build adds no note.
func TestAnnotateEngineVersion(t *testing.T) {
	pt := PlanText{Contexts: "0", Concurrency: "1", Prefill: "8K", MaxOutput: "8192", DurationS: 30}
	q := with(func(q *Query) { q.GPU, q.Model, q.Quant, q.Engine = "rtx-4090", "llama-3.1-8b", "q4_k_m", "llama.cpp" })
	if run := predictQuery(t, q, pt); run.Engine.Version != "" || strings.Contains(strings.Join(run.Notes, " "), "Engine build") {
		t.Errorf("the current build: version %q, notes %q", run.Engine.Version, run.Notes)
	}
	q.EngineVersion = "b5900"
	run := predictQuery(t, q, pt)
	if notes := strings.Join(run.Notes, " "); !strings.Contains(notes, "dated 2025-07, the date of b5863") || run.Engine.Version != "b5900" {
		t.Errorf("b5900: version %q, notes %q", run.Engine.Version, notes)
	}
	q.EngineVersion = "2023-11"
	if r, err := MustLoad().Resolve(q); err != nil || r.Era.Family != "llama.cpp-cuda@2023" || !strings.Contains(r.Era.Note(), "llama.cpp-cuda@2023") {
		t.Errorf("a 2023 build: %+v, %v; want the llama.cpp-cuda@2023 factors", r.Era, err)
	}
}

// calcCells predicts a query and returns its decode cells by context and concurrency.
func calcCells(t *testing.T, q Query, pt PlanText) map[[2]int]*rundoc.DecodeFigures {
	t.Helper()
	cells := map[[2]int]*rundoc.DecodeFigures{}
	for _, c := range predictQuery(t, q, pt).Decode {
		cells[[2]int{c.Context, c.Concurrency}] = c.DecodeFigures
	}
	return cells
}

// TestResolveExplicitMoEAgreesWithCatalog: an MoE model given by specs — Qwen3-30B-A3B's
// parameters, shapes and routing from its config.json — predicts what the catalog
// entry predicts, because a decode step reads only the experts its tokens route to on
// both paths (before, the explicit path read every weight: 48 tok/s against 171 on an
// RTX 4090). Without Experts a token still reads exactly the active weights, but the
// work per routed expert (Efficiency.OverheadPerExpertUs), which only the number of
// experts a token routes to can size, is not counted (Model.RoutingUnknown): the
// batch-1 figure is then faster than the catalog's, by less than that work's share;
// batches are an approximation.
func TestResolveExplicitMoEAgreesWithCatalog(t *testing.T) {
	pt := PlanText{Contexts: "0,4K", Concurrency: "1,4", MaxOutput: "1024", Prefill: "4K", DurationS: 30}
	common := with(func(q *Query) { q.GPU, q.Quant, q.Engine = "rtx-4090", "q4_k_m", "llama.cpp" })
	specs := ModelSpecs{ParamsB: 30.53, ActiveParamsB: 3.34, Layers: 48, Hidden: 2048, Heads: 32, KVHeads: 4, HeadDim: 128, Vocab: 151936}
	by := func(f func(q *Query)) Query { q := common; f(&q); return q }
	catalog := calcCells(t, by(func(q *Query) { q.Model = "qwen3-30b-a3b" }), pt)
	routed := calcCells(t, by(func(q *Query) { q.Specs = specs; q.Specs.Experts, q.Specs.ExpertsPerToken = 128, 8 }), pt)
	unrouted := calcCells(t, by(func(q *Query) { q.Specs = specs }), pt)
	dense := calcCells(t, by(func(q *Query) { q.Specs = specs; q.Specs.ActiveParamsB = 0 }), pt)
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
			t.Errorf("cell %v: the same specs without active parameters (dense) %v tok/s should read every weight, far slower than %.1f", cell, d, want.TotalTokS)
		}
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// TestResolveGPUFamily: an explicit GPU's family picks its vendor's efficiency factors
// (an Apple chip given by specs is not predicted with the CUDA family's), the same as
// the catalog entry with those specs; a family that contradicts a catalog GPU is
// refused, and an Intel GPU's prediction says its factors are other vendors'.
func TestResolveGPUFamily(t *testing.T) {
	pt := PlanText{Contexts: "0", Concurrency: "1", Prefill: "4K", MaxOutput: "8192", DurationS: 30}
	common := with(func(q *Query) { q.Model, q.Quant, q.Engine = "llama-3.1-8b", "q4_k_m", "llama.cpp" })
	m3 := func(family string) Query {
		q := common
		q.BandwidthGBps, q.TFLOPS, q.VRAMGiB, q.GPUFamily = 400, 16.4, 128, family
		return q
	}
	byName := common
	byName.GPU = "m3-max"
	catalog := calcCells(t, byName, pt)[[2]int{0, 1}]
	apple := calcCells(t, m3("apple"), pt)[[2]int{0, 1}]
	nvidia := calcCells(t, m3(""), pt)[[2]int{0, 1}]
	if apple == nil || catalog == nil || nvidia == nil {
		t.Fatal("a cell is over capacity")
	}
	if abs(apple.TotalTokS-catalog.TotalTokS)/catalog.TotalTokS > 0.01 {
		t.Errorf("M3 Max by specs with family apple: %.1f tok/s, catalog m3-max %.1f", apple.TotalTokS, catalog.TotalTokS)
	}
	if apple.TotalTokS == nvidia.TotalTokS {
		t.Errorf("family apple changed nothing (%.1f tok/s either way)", apple.TotalTokS)
	}
	if run := predictQuery(t, m3("intel"), pt); !strings.Contains(strings.Join(run.Notes, " "), "No published measurement of an Intel GPU") {
		t.Errorf("family intel: want a note that no Intel GPU is in the evidence; notes %q", run.Notes)
	}
	for _, v := range []string{"", "NVIDIA", "cuda", "rocm", "Metal", "intel"} {
		if _, err := GPUFamilyVendor(v); err != nil {
			t.Errorf("GPUFamilyVendor(%q): %v", v, err)
		}
	}
}

// TestResolveSMCountCapsLlamaCpp: an A100 given by specs with its SMs and clock
// predicts llama.cpp's prefill as the catalog's A100 does, capped at a GA102-class
// SM's tensor rate (the ggml cap); without them the datasheet's 312 TFLOPS apply and
// prefill comes out faster. vLLM's GEMMs are not capped.
func TestResolveSMCountCapsLlamaCpp(t *testing.T) {
	pt := PlanText{Contexts: "0", Concurrency: "1", Prefill: "4K", MaxOutput: "8192", DurationS: 30}
	prefill := func(q Query) float64 {
		t.Helper()
		q.Model = "llama-3.1-8b"
		run := predictQuery(t, q, pt)
		if len(run.Prefill) != 1 || run.Prefill[0].PrefillFigures == nil {
			t.Fatalf("%+v: no prefill figure", q)
		}
		return run.Prefill[0].PromptTokS
	}
	engine := func(quant, engine string, gpu string, sms bool) Query {
		q := with(func(q *Query) { q.Quant, q.Engine, q.GPU = quant, engine, gpu })
		if gpu == "" {
			q.BandwidthGBps, q.TFLOPS, q.VRAMGiB = 2039, 312, 80
		}
		if sms {
			q.SMCount, q.BoostClockMHz = 108, 1410
		}
		return q
	}
	catalog := prefill(engine("q4_k_m", "llama.cpp", "a100-80gb", false))
	capped := prefill(engine("q4_k_m", "llama.cpp", "", true))
	uncapped := prefill(engine("q4_k_m", "llama.cpp", "", false))
	if abs(capped-catalog)/catalog > 0.01 {
		t.Errorf("A100 by specs with SMs and clock: %.0f prompt tok/s, catalog a100-80gb %.0f", capped, catalog)
	}
	if !(uncapped > 1.2*capped) {
		t.Errorf("without SMs the A100's datasheet rate should apply: %.0f prompt tok/s, capped %.0f", uncapped, capped)
	}
	// vLLM's GEMMs are not capped; its prefill moves only by the per-layer overhead,
	// which the clock stretches.
	if a, b := prefill(engine("bf16", "vllm", "", true)), prefill(engine("bf16", "vllm", "", false)); abs(a-b)/b > 0.01 {
		t.Errorf("vLLM's prefill moved with SMs: %.0f against %.0f prompt tok/s", a, b)
	}
}

// TestListing: every catalog calc --list names has its table; engines have a second
// table of their dated eras with its note; an unknown catalog names the choices.
func TestListing(t *testing.T) {
	c := MustLoad()
	for what, want := range map[string]string{"gpus": "rtx-3090", "models": "qwen3.8-27b", "quants": "q4_k_m", "kv-dtypes": "q8_0",
		"engines": "llama.cpp", "interconnects": "pcie-gen3-x16", "prices": "runpod-serverless-h200"} {
		tables, err := c.Listing(what)
		if err != nil || len(tables) == 0 || len(tables[0].Rows) == 0 || tables[0].Rows[0][0] == "" {
			t.Errorf("--list %s: %v, %+v", what, err, tables)
			continue
		}
		found := false
		for _, row := range tables[0].Rows {
			found = found || row[0] == want
			if len(row) != len(tables[0].Header) {
				t.Errorf("--list %s: row %q has %d cells for %d columns", what, row, len(row), len(tables[0].Header))
			}
		}
		if !found {
			t.Errorf("--list %s lacks %s", what, want)
		}
	}
	eng, err := c.Listing("engine")
	if err != nil || len(eng) != 2 || eng[1].Header[len(eng[1].Header)-1] != "OWN WORK TAKES" || !strings.Contains(eng[1].Note, "engines.json") {
		t.Errorf("--list engines: %v, %d tables", err, len(eng))
	}
	if _, err := c.Listing("cars"); err == nil || !strings.Contains(err.Error(), "gpus, models, quants") {
		t.Errorf("--list cars: %v", err)
	}
	for in, want := range map[string]string{"2024-01": "2023-12", "2025-08": "2025-07", "x": "x"} {
		if got := prevMonth(in); got != want {
			t.Errorf("prevMonth(%q) = %q, want %q", in, got, want)
		}
	}
}
