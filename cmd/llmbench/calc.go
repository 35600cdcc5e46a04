package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/perf"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
)

func init() { commands = append(commands, newCalcCmd) }

type calcFlags struct {
	gpu, model, quant, kvDtype, engine string
	gpus, pp, cpuMoE                   int
	hostBandwidth                      float64
	engineVersion                      string
	util, reserve, loadedWeights       float64
	noPrefixCaching                    bool
	mambaSSMDtype                      string
	maxNumSeqs                         int
	maxModelLen                        string
	contexts, concurrency, prefill     string
	maxOutput                          string
	duration                           float64
	format, lang, list                 string
	interconnect                       string

	// Explicit hardware.
	bandwidth, tflops, vram float64
	gpuFamily               string
	smCount                 int
	boostClockMHz           float64
	// Explicit model.
	configPath, ggufPath                    string
	params, activeParams, weightBits        float64
	layers, hidden, heads, kvHeads, headDim int
	intermediate, vocab                     int
	experts, expertsPerToken                int
}

func newCalcCmd() *cobra.Command {
	var f calcFlags
	cmd := &cobra.Command{
		Use:   "calc",
		Short: "Predict the speed test matrix from GPU and model specifications",
		Long: `calc predicts what "llmbench run" would measure — prefill tok/s and time to first
token by context, and sustained decode tok/s for every context × concurrency cell — from
published specifications: the GPU's memory bandwidth, memory and tensor throughput, and
the model's architecture in a given weight format. Cells that would not fit the predicted
KV cache are marked over capacity by the same rule as a measured run.

The model is a roofline: a decode step moves the weights once (for an MoE model, the
experts its tokens route to) plus every sequence's KV cache over the memory bandwidth,
and computes 2 × active parameters per token plus attention over the whole context; the
slower of the two, at efficiency factors fitted to published measurements (bandwidth
share at most 92%), plus overheads per layer and per sequence, is the time between
tokens. GEMMs that dequantize their weights (GGUF, GPTQ/AWQ/W4A16) and an MoE model's
expert GEMMs run at their own share of the dense rate; llama.cpp's GEMMs reach at most
a GeForce-class SM's tensor rate per SM and clock (an A100 or H100 runs them like a
GA102/AD102 card of equal SMs × clock). A warm request's first token adds the server's
work per request. The factors depend on the engine and the GPU's vendor (--gpu-family
for a GPU given by specs) and describe builds as of each family's newest evidence. See
docs/calc.md for the formulas, the catalogs and the error against published figures,
left out by source.

Name a GPU and a model from the catalogs (llmbench calc --list gpus|models|quants|
kv-dtypes|engines|interconnects|prices), or give explicit specifications instead.`,
		Example: `  llmbench calc --gpu rtx-3090 --model qwen2.5-32b --quant w4a16-g128
  llmbench calc --gpu "RTX 3090" --model RedHatAI/Qwen3.8-27B-INT4 --quant int4 --kv-dtype fp8 \
      --gpu-memory-utilization 0.94 --max-model-len 65536 --max-num-seqs 53   # the seed's launch
  llmbench calc --gpu rtx-3090 --model qwen3.8-27b --quant int4 --kv-dtype fp8 --gpu-memory-utilization 0.94 \
      --max-model-len 136800 --mamba-ssm-cache-dtype float16 --max-num-seqs 8   # a vLLM boot that logged 136,800 tokens
  llmbench calc --gpu h100-sxm --gpus 2 --model llama-3.1-70b --quant fp8 --format json > predicted.json
  llmbench calc --bandwidth 936 --tflops 142 --vram 24 --config ./Qwen3-32B/config.json --weight-bits 4.125
  llmbench calc --gpu m3-max --gguf ./Meta-Llama-3-8B-Instruct-Q4_K_M.gguf --engine llama.cpp
  llmbench calc --gpu l4 --params 8 --layers 32 --hidden 4096 --heads 32 --kv-heads 8 --head-dim 128 --weight-bits 16
  llmbench calc --bandwidth 1008 --tflops 330 --vram 24 --params 30.5 --active-params 3.3 --experts 128 --experts-per-token 8 \
      --layers 48 --hidden 2048 --heads 32 --kv-heads 4 --head-dim 128 --vocab 151936 --weight-bits 4.82 --engine llama.cpp   # an MoE by specs
  llmbench calc --bandwidth 819 --tflops 32.8 --vram 512 --gpu-family apple --model qwen3-32b --quant q4_k_m --engine llama.cpp
  llmbench calc --list gpus
  llmbench calc --list prices`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.list != "" {
				return listCatalog(cmd.OutOrStdout(), f.list)
			}
			run, err := predictFromFlags(cmd, &f)
			if err != nil {
				return err
			}
			return writeCalc(cmd.OutOrStdout(), run, f.format, f.lang)
		},
	}
	addCalcFlags(cmd.Flags(), &f)
	return cmd
}

// addCalcFlags binds calc's flags to f.
func addCalcFlags(fl *pflag.FlagSet, f *calcFlags) {
	fl.StringVar(&f.gpu, "gpu", "", "GPU from the catalog (rtx-3090, \"RTX 4090\", h100-sxm, m3-max, ...)")
	fl.IntVar(&f.gpus, "gpus", 1, "number of GPUs, tensor parallel")
	fl.StringVar(&f.model, "model", "", "model from the catalog (qwen2.5-32b, llama-3.1-8b, a Hugging Face id, ...)")
	fl.StringVar(&f.quant, "quant", "", "weight format (bf16, fp8, int8, w4a16-g128, awq, q8_0, q6_k, q5_k_m, q4_0, q4_k_m, ...)")
	fl.StringVar(&f.kvDtype, "kv-dtype", "fp16", "KV cache dtype: fp16, bf16, fp8, q8_0, q4_0")
	fl.StringVar(&f.engine, "engine", "vllm", "serving engine, for its memory reserve and efficiency: vllm (also trt-llm, tgi, lmdeploy), sglang, llama.cpp (also lm-studio) or ollama")
	fl.StringVar(&f.engineVersion, "engine-version", "", "the engine's release or build (vLLM 0.10.1, llama.cpp b6609) or its date (2024-05); default a current build (see --list engines)")
	fl.IntVar(&f.cpuMoE, "n-cpu-moe", 0, "llama.cpp/Ollama: layers whose routed experts stay in host memory, computed by the CPU (llama.cpp's --n-cpu-moe); needs --host-bandwidth")
	fl.Float64Var(&f.hostBandwidth, "host-bandwidth", 0, "host memory bandwidth in GB/s that the CPU reads host-resident experts at (with --n-cpu-moe)")
	fl.IntVar(&f.pp, "pipeline-parallel-size", 1, "pipeline stages (vLLM --pipeline-parallel-size): the layers split over them, --gpus each")
	fl.Float64Var(&f.util, "gpu-memory-utilization", 0.9, "share of each GPU's memory the engine may use (vLLM's flag)")
	fl.BoolVar(&f.noPrefixCaching, "no-prefix-caching", false, "the engine runs without prefix caching (vLLM --no-enable-prefix-caching); changes a hybrid model's KV count")
	fl.IntVar(&f.maxNumSeqs, "max-num-seqs", 0, "the engine's max_num_seqs (vLLM --max-num-seqs); 0 = vLLM's default, 256 (1024 on GPUs with 70 GiB or more); its sampler warm-up takes memory from the KV cache")
	fl.StringVar(&f.mambaSSMDtype, "mamba-ssm-cache-dtype", "auto", "a hybrid model's recurrent-state dtype (vLLM --mamba-ssm-cache-dtype): auto (the model's), float32, float16 or bfloat16")
	fl.Float64Var(&f.reserve, "reserve", 0, "runtime reserve per GPU in GiB (activations, CUDA context, graphs); 0 = the engine's modelled reserve")
	fl.Float64Var(&f.loadedWeights, "weights-gib", 0, "the weights per GPU as the engine loaded them, in GiB (vLLM logs 'Model loading took X GiB'); 0 = from parameters × bits per weight")
	fl.StringVar(&f.maxModelLen, "max-model-len", "", "engine's max model length in tokens (65536 or 64K); default the model's context")
	fl.StringVar(&f.contexts, "contexts", "0,16K,32K,56K", "decode contexts, tokens (K = 1024)")
	fl.StringVar(&f.concurrency, "concurrency", "1,2,4,8,16,32,64,128", "concurrent requests per decode cell")
	fl.StringVar(&f.prefill, "prefill", "8K,16K,32K,56K", "prefill contexts, tokens (K = 1024)")
	fl.StringVar(&f.maxOutput, "max-output", "8192", "max output tokens per request (over-capacity rule and decode context)")
	fl.Float64Var(&f.duration, "duration", 30, "measurement window in seconds a run would use")
	fl.StringVar(&f.format, "format", "text", "output: text or json (also md, csv, html)")
	fl.StringVar(&f.lang, "lang", "", "language of text/md/html output: en or ja")
	fl.StringVar(&f.list, "list", "", "list a catalog instead of predicting: gpus, models, quants, kv-dtypes, engines, interconnects or prices")
	fl.StringVar(&f.interconnect, "interconnect", "", "how the GPUs are linked, overriding the catalog's (e.g. pcie-gen3-x16 for a GeForce pair in Gen3 slots; see --list interconnects)")
	fl.Float64Var(&f.bandwidth, "bandwidth", 0, "explicit GPU: memory bandwidth, GB/s")
	fl.Float64Var(&f.tflops, "tflops", 0, "explicit GPU: dense FP16 tensor TFLOPS")
	fl.Float64Var(&f.vram, "vram", 0, "explicit GPU: memory, GiB")
	fl.IntVar(&f.smCount, "sm-count", 0, "explicit NVIDIA GPU: streaming multiprocessors (with --boost-clock-mhz caps llama.cpp's GEMM rate at a GA102-class SM's)")
	fl.Float64Var(&f.boostClockMHz, "boost-clock-mhz", 0, "explicit NVIDIA GPU: the boost clock its --tflops is quoted at, MHz")
	fl.StringVar(&f.gpuFamily, "gpu-family", "", "explicit GPU's vendor, which picks the engine's efficiency factors: nvidia (default), amd, apple or intel")
	fl.StringVar(&f.configPath, "config", "", "explicit model: a Hugging Face config.json")
	fl.StringVar(&f.ggufPath, "gguf", "", "explicit model: a GGUF file (its header is read; weights format from the file)")
	fl.Float64Var(&f.params, "params", 0, "explicit model: parameters, billions")
	fl.Float64Var(&f.activeParams, "active-params", 0, "explicit model: parameters active per token (MoE), billions")
	fl.IntVar(&f.layers, "layers", 0, "explicit model: layers")
	fl.IntVar(&f.hidden, "hidden", 0, "explicit model: hidden size")
	fl.IntVar(&f.heads, "heads", 0, "explicit model: attention heads")
	fl.IntVar(&f.kvHeads, "kv-heads", 0, "explicit model: KV heads (default = heads)")
	fl.IntVar(&f.headDim, "head-dim", 0, "explicit model: head dimension (default hidden/heads)")
	fl.IntVar(&f.intermediate, "intermediate", 0, "explicit model: MLP intermediate size (sizes the activation reserve)")
	fl.IntVar(&f.vocab, "vocab", 0, "explicit model: vocabulary size (embeddings stay 16-bit in vLLM formats)")
	fl.IntVar(&f.experts, "experts", 0, "explicit MoE model: routed experts per layer (with --active-params and --experts-per-token sizes the expert weights)")
	fl.IntVar(&f.expertsPerToken, "experts-per-token", 0, "explicit MoE model: experts each token is routed to")
	fl.Float64Var(&f.weightBits, "weight-bits", 0, "explicit weight format: bits per weight, scales included (instead of --quant)")
}

// predictFromFlags resolves the catalogs and explicit specifications into a setup and
// predicts the matrix.
func predictFromFlags(cmd *cobra.Command, f *calcFlags) (*rundoc.Run, error) {
	c, err := perf.Load()
	if err != nil {
		return nil, err
	}
	var s perf.Setup
	if err := calcHardware(c, f, &s); err != nil {
		return nil, err
	}
	nameNote, err := calcModel(c, f, &s)
	if err != nil {
		return nil, err
	}
	era, err := calcEngine(c, f, &s)
	if err != nil {
		return nil, err
	}
	p, err := calcPlan(cmd, f)
	if err != nil {
		return nil, err
	}
	run, err := s.PredictRun(p, time.Now())
	if err != nil {
		return nil, err
	}
	if nameNote != "" {
		run.Notes = append(run.Notes, nameNote+".")
	}
	if note := eraNote(era); note != "" {
		run.Engine.Version = f.engineVersion
		run.Notes = append(run.Notes, note)
	}
	if s.GPU.Vendor == "intel" {
		run.Notes = append(run.Notes, fmt.Sprintf("No published measurement of an Intel GPU is in the evidence: the factors are family %s's, fitted on other vendors' GPUs.", s.Engine.Family(s.GPU.Vendor)))
	}
	if err := s.EstimateEnergy(run, p, s.CatalogPrice()); err != nil {
		return nil, err
	}
	run.Tool = rundoc.Tool{Name: "llmbench", Version: toolVersion()}
	return run, nil
}

// calcHardware sets the setup's GPU (the catalog's, or one given by its figures), its
// interconnect and count.
func calcHardware(c *perf.Catalog, f *calcFlags, s *perf.Setup) error {
	var err error
	explicitGPU := f.bandwidth > 0 || f.tflops > 0 || f.vram > 0
	switch {
	case f.gpu != "" && explicitGPU:
		return errors.New("give --gpu or --bandwidth/--tflops/--vram, not both")
	case f.gpu != "":
		if f.smCount != 0 || f.boostClockMHz != 0 {
			return errors.New("--sm-count and --boost-clock-mhz are for a GPU given by --bandwidth/--tflops/--vram; the catalog's GPUs carry their own")
		}
		if s.GPU, err = c.GPU(f.gpu); err != nil {
			return err
		}
		if v, err := gpuFamilyFlag(f.gpuFamily); err != nil {
			return err
		} else if f.gpuFamily != "" && v != s.GPU.Vendor {
			return fmt.Errorf("--gpu-family %s: the catalog's %s is %s (--gpu-family is for GPUs given by --bandwidth/--tflops/--vram)", f.gpuFamily, s.GPU.Name, s.GPU.Vendor)
		}
	case explicitGPU:
		if f.bandwidth <= 0 || f.tflops <= 0 || f.vram <= 0 {
			return errors.New("an explicit GPU needs all of --bandwidth (GB/s), --tflops and --vram (GiB)")
		}
		vendor, err := gpuFamilyFlag(f.gpuFamily)
		if err != nil {
			return err
		}
		if f.smCount < 0 || f.boostClockMHz < 0 || (f.smCount > 0) != (f.boostClockMHz > 0) {
			return errors.New("--sm-count and --boost-clock-mhz go together, both positive")
		}
		s.GPU = perf.GPU{ID: "custom", Name: "Custom GPU", Vendor: vendor, VRAMGiB: f.vram, BandwidthGBps: f.bandwidth,
			FP16TFLOPS: f.tflops, SMCount: f.smCount, BoostClockMHz: f.boostClockMHz, Source: "command line"}
	default:
		return errors.New("name a GPU with --gpu (see --list gpus) or give --bandwidth, --tflops and --vram")
	}
	if f.interconnect != "" {
		link, err := c.Interconnect(f.interconnect)
		if err != nil {
			return err
		}
		s.GPU = s.GPU.WithInterconnect(link)
	}
	if f.gpus < 1 {
		return fmt.Errorf("--gpus %d: need at least one", f.gpus)
	}
	s.GPUs = f.gpus

	return nil
}

// calcModel sets the setup's model and weight format, and says how a model's name was
// read.
func calcModel(c *perf.Catalog, f *calcFlags, s *perf.Setup) (nameNote string, err error) {
	explicitModel := f.params > 0 || f.layers > 0 || f.hidden > 0 || f.heads > 0
	sources := 0
	for _, set := range []bool{f.model != "", f.configPath != "", f.ggufPath != "", explicitModel} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return "", errors.New("give exactly one model: --model NAME, --config FILE, --gguf FILE, or --params/--layers/--hidden/--heads")
	}
	var nameQuant *perf.Quant // the weight format the model's name states
	switch {
	case f.model != "":
		s.Model, nameQuant, nameNote, err = modelByName(c, f.model, f.quant == "" && f.weightBits == 0)
	case f.configPath != "":
		s.Model, err = perf.ModelFromHFConfig(f.configPath)
	case f.ggufPath != "":
		var q perf.Quant
		s.Model, q, err = perf.ModelFromGGUF(f.ggufPath)
		if err == nil && f.quant == "" && f.weightBits == 0 {
			s.Quant = q
		}
	default:
		s.Model, err = explicitModelFrom(f)
	}
	if err != nil {
		return "", err
	}
	if err := applyMoEFlags(&s.Model, f); err != nil {
		return "", err
	}
	switch {
	case f.quant != "" && f.weightBits > 0:
		return "", errors.New("give --quant or --weight-bits, not both")
	case f.quant != "":
		if s.Quant, err = c.Quant(f.quant); err != nil {
			return "", err
		}
	case f.weightBits > 0:
		s.Quant = perf.Quant{ID: fmt.Sprintf("%gbit", f.weightBits), Name: fmt.Sprintf("%g-bit", f.weightBits), Bits: f.weightBits,
			EmbeddingBits: max(f.weightBits, 16), Compute: "fp16", Source: "command line"}
	case nameQuant != nil:
		s.Quant = *nameQuant
	case s.Quant.Bits == 0:
		return "", errors.New("give the weight format: --quant (see --list quants) or --weight-bits")
	}
	return nameNote, nil
}

// calcEngine sets the KV dtype, the engine and its era, and the serving limits.
func calcEngine(c *perf.Catalog, f *calcFlags, s *perf.Setup) (era perf.EraChoice, err error) {
	if s.KV, err = c.KVDtype(f.kvDtype); err != nil {
		return era, err
	}
	if s.Engine, err = c.Engine(f.engine); err != nil {
		return era, err
	}
	era, err = engineEra(c, s, f.engineVersion)
	if err != nil {
		return era, err
	}
	if f.pp < 1 {
		return era, fmt.Errorf("--pipeline-parallel-size %d: at least 1", f.pp)
	}
	s.PipelineStages = f.pp
	if f.cpuMoE < 0 || f.hostBandwidth < 0 {
		return era, errors.New("--n-cpu-moe and --host-bandwidth cannot be negative")
	}
	s.HostExpertLayers, s.HostBandwidthGBps = f.cpuMoE, f.hostBandwidth
	s.MemoryUtilization = f.util
	if f.util <= 0 || f.util > 1 {
		return era, fmt.Errorf("--gpu-memory-utilization %g: must be in (0, 1]", f.util)
	}
	s.ReserveGiB = f.reserve
	if f.loadedWeights < 0 || f.reserve < 0 {
		return era, fmt.Errorf("--weights-gib and --reserve cannot be negative")
	}
	s.LoadedWeightsGiB = f.loadedWeights
	if f.maxNumSeqs < 0 {
		return era, fmt.Errorf("--max-num-seqs %d: a positive count, or 0 for vLLM's default", f.maxNumSeqs)
	}
	s.MaxNumSeqs = f.maxNumSeqs
	s.NoPrefixCaching = f.noPrefixCaching
	switch strings.ToLower(f.mambaSSMDtype) {
	case "", "auto":
	case "float32", "fp32":
		s.MambaSSMBytes = 4
	case "float16", "fp16", "bfloat16", "bf16":
		s.MambaSSMBytes = 2
	default:
		return era, fmt.Errorf("--mamba-ssm-cache-dtype %q: auto, float32, float16 or bfloat16", f.mambaSSMDtype)
	}

	return era, nil
}

// calcPlan is the matrix the prediction fills.
func calcPlan(cmd *cobra.Command, f *calcFlags) (perf.Plan, error) {
	var err error
	p := perf.DefaultPlan()
	if p.Contexts, err = rundoc.ParseTokenList(f.contexts); err != nil {
		return p, fmt.Errorf("--contexts: %w", err)
	}
	if p.Concurrency, err = rundoc.ParseIntList(f.concurrency); err != nil {
		return p, fmt.Errorf("--concurrency: %w", err)
	}
	if p.PrefillContexts, err = rundoc.ParseTokenList(f.prefill); err != nil {
		return p, fmt.Errorf("--prefill: %w", err)
	}
	if p.MaxOutputTokens, err = rundoc.ParseTokens(f.maxOutput); err != nil || p.MaxOutputTokens <= 0 {
		return p, fmt.Errorf("--max-output %q: a positive token count", f.maxOutput)
	}
	if f.maxModelLen != "" {
		n, err := rundoc.ParseTokens(f.maxModelLen)
		if err != nil || n <= 0 {
			return p, fmt.Errorf("--max-model-len %q: a positive token count", f.maxModelLen)
		}
		p.MaxModelLen = int64(n)
	}
	if cmd.Flags().Changed("duration") && f.duration <= 0 {
		return p, errors.New("--duration must be positive")
	}
	p.DurationS = f.duration
	return p, nil
}

// modelByName resolves --model as tools print names (perf.Catalog.ResolveModel): the
// model, the weight format the name states where the catalog holds it and takeQuant
// (no --quant or --weight-bits was given), and a note saying how the name was read.
// A format the name states that the catalog does not hold is an error unless a flag
// gives one: predicting another silently would answer a different question.
func modelByName(c *perf.Catalog, name string, takeQuant bool) (perf.Model, *perf.Quant, string, error) {
	mm, err := c.ResolveModel(name)
	if err != nil {
		return perf.Model{}, nil, "", err
	}
	if !takeQuant || mm.Quant == "" {
		return mm.Model, nil, mm.Note(name, nil), nil
	}
	q, ok := c.ResolveQuant(mm)
	if !ok {
		return perf.Model{}, nil, "", fmt.Errorf("--model %q states weights %q, which the calculator does not model: give --quant (see --list quants) or --weight-bits", name, mm.Quant)
	}
	return mm.Model, &q, mm.Note(name, &q), nil
}

// gpuFamilyFlag checks --gpu-family and returns the vendor it names (nvidia by default).
func gpuFamilyFlag(v string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "nvidia", "cuda":
		return "nvidia", nil
	case "amd", "rocm":
		return "amd", nil
	case "apple", "metal":
		return "apple", nil
	case "intel":
		return "intel", nil
	}
	return "", fmt.Errorf("--gpu-family %q: nvidia, amd, apple or intel", v)
}

// applyMoEFlags makes a model a mixture of experts from --active-params (and, when
// given, --experts/--experts-per-token), so that a decode step reads the experts its
// tokens route to rather than every weight: with E experts of which k serve a token,
// the expert weights X satisfy params − active = X × (1 − k/E). Without --experts every
// non-embedding weight is taken as an expert weight, of which a token uses the share
// that makes up its active parameters: one token reads exactly the active weights;
// for batches it is an approximation that --experts and --experts-per-token remove, as
// they add the work per routed expert, which only the number of experts can size
// (perf.Model.RoutingUnknown).
func applyMoEFlags(m *perf.Model, f *calcFlags) error {
	if f.experts < 0 || f.expertsPerToken < 0 || (f.experts > 0) != (f.expertsPerToken > 0) {
		return errors.New("--experts and --experts-per-token go together, both positive")
	}
	if f.experts > 0 && f.expertsPerToken > f.experts {
		return fmt.Errorf("--experts-per-token %d exceeds --experts %d", f.expertsPerToken, f.experts)
	}
	if f.activeParams <= 0 {
		if f.experts > 0 && m.Experts == 0 {
			return errors.New("--experts needs --active-params (the parameters one token computes with)")
		}
		return nil
	}
	if f.activeParams > m.ParamsB {
		return fmt.Errorf("--active-params %g exceeds the model's %g billion parameters", f.activeParams, m.ParamsB)
	}
	m.ActiveParamsB = f.activeParams
	if f.activeParams == m.ParamsB {
		m.Experts, m.ExpertsPerToken, m.ExpertParamsB = 0, 0, 0
		return nil
	}
	switch {
	case f.experts > 0:
		m.Experts, m.ExpertsPerToken = f.experts, f.expertsPerToken
	case m.Experts == 0:
		// No routing given: every non-embedding weight is an expert weight and a token
		// uses the share of them that makes its weights the active parameters.
		x := m.ParamsB - m.EmbeddingParamsB
		share := (f.activeParams - m.EmbeddingParamsB) / x
		if share <= 0 {
			return fmt.Errorf("--active-params %g is not more than the embeddings' %g billion", f.activeParams, m.EmbeddingParamsB)
		}
		m.Experts, m.ExpertsPerToken, m.ExpertParamsB = 1000, max(int(math.Round(share*1000)), 1), x
		m.RoutingUnknown = true
		return nil
	}
	share := float64(m.ExpertsPerToken) / float64(m.Experts)
	m.ExpertParamsB = (m.ParamsB - f.activeParams) / (1 - share)
	if m.ExpertParamsB > m.ParamsB-m.EmbeddingParamsB {
		return fmt.Errorf("--active-params %g with %d of %d experts per token leaves no room for the expert weights in %g billion parameters", f.activeParams, m.ExpertsPerToken, m.Experts, m.ParamsB)
	}
	return nil
}

func explicitModelFrom(f *calcFlags) (perf.Model, error) {
	if f.params <= 0 || f.layers <= 0 || f.hidden <= 0 || f.heads <= 0 {
		return perf.Model{}, errors.New("an explicit model needs --params (billions), --layers, --hidden and --heads (and usually --kv-heads, --head-dim)")
	}
	m := perf.Model{ID: "custom", Name: fmt.Sprintf("Custom %gB", f.params), ParamsB: f.params, Layers: f.layers, Hidden: f.hidden,
		Heads: f.heads, KVHeads: f.kvHeads, HeadDim: f.headDim, Intermediate: f.intermediate, Vocab: f.vocab,
		Attention: "full", Source: "command line"}
	if m.KVHeads == 0 {
		m.KVHeads = m.Heads
	}
	if m.HeadDim == 0 {
		m.HeadDim = m.Hidden / m.Heads
	}
	if m.Intermediate == 0 {
		m.Intermediate = 4 * m.Hidden
	}
	m.EmbeddingParamsB = float64(f.vocab) * float64(f.hidden) * 2 / 1e9
	if m.EmbeddingParamsB >= m.ParamsB {
		return perf.Model{}, errors.New("--vocab × --hidden × 2 exceeds --params")
	}
	return m, nil
}

func writeCalc(w io.Writer, run *rundoc.Run, format, lang string) error {
	if err := report.Write(w, run, report.Options{Format: format, Lang: lang}); err != nil {
		return fmt.Errorf("writing prediction: %w", err)
	}
	return nil
}

func listCatalog(w io.Writer, what string) error {
	c, err := perf.Load()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	switch strings.ToLower(strings.TrimSpace(what)) {
	case "gpus", "gpu":
		fmt.Fprintln(tw, "ID\tNAME\tMEMORY GiB\tCUDA SEES GiB\tBANDWIDTH GB/s\tFP16 TFLOPS\tFP8 TFLOPS\tINT8 TOPS")
		for _, g := range c.GPUs {
			seen := "—"
			if g.CUDATotalGiB > 0 {
				seen = fmt.Sprint(g.CUDATotalGiB)
			}
			fmt.Fprintf(tw, "%s\t%s\t%g\t%s\t%g\t%g\t%g\t%g\n", g.ID, g.Name, g.VRAMGiB, seen, g.BandwidthGBps, g.FP16TFLOPS, g.FP8TFLOPS, g.INT8TOPS)
		}
	case "models", "model":
		fmt.Fprintln(tw, "ID\tNAME\tPARAMS B\tACTIVE B\tLAYERS\tHIDDEN\tHEADS/KV\tHEAD DIM\tATTENTION")
		for _, m := range c.Models {
			active := "-"
			if m.ActiveParamsB > 0 {
				active = fmt.Sprintf("%g", m.ActiveParamsB)
			}
			fmt.Fprintf(tw, "%s\t%s\t%g\t%s\t%d\t%d\t%d/%d\t%d\t%s\n", m.ID, m.Name, m.ParamsB, active, m.Layers, m.Hidden, m.Heads, m.KVHeads, m.HeadDim, m.Attention)
		}
	case "quants", "quant":
		fmt.Fprintln(tw, "ID\tNAME\tBITS/WEIGHT\tEMBEDDING BITS\tPREFILL ON")
		for _, q := range c.Quants {
			fmt.Fprintf(tw, "%s\t%s\t%g\t%g\t%s\n", q.ID, q.Name, q.Bits, q.EmbeddingBits, q.Compute)
		}
	case "kv-dtypes", "kv-dtype", "kv":
		fmt.Fprintln(tw, "ID\tBITS/ELEMENT")
		for _, k := range c.KVDtypes {
			fmt.Fprintf(tw, "%s\t%g\n", k.ID, k.Bits)
		}
	case "engines", "engine":
		return listEngines(w, c)
	case "interconnects", "interconnect", "links":
		fmt.Fprintln(tw, "ID\tNAME\tGB/s ONE WAY\tALL-REDUCE LATENCY µs")
		for _, l := range c.Interconnects {
			fmt.Fprintf(tw, "%s\t%s\t%g\t%g\n", l.ID, l.Name, l.LinkGBps, l.AllReduceLatencyUs)
		}
	case "prices", "price":
		return listPrices(w)
	default:
		return fmt.Errorf("--list %q: choose gpus, models, quants, kv-dtypes, engines, interconnects or prices", what)
	}
	return tw.Flush()
}
