package main

import (
	"fmt"
	"io"
	"strconv"
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

// calcFlags are calc's flags: the setup and the matrix as typed (perf resolves them),
// and how to print.
type calcFlags struct {
	q                  perf.Query
	plan               perf.PlanText
	format, lang, list string
	targets            capacityFlag
}

func newCalcCmd() *cobra.Command {
	var f calcFlags
	cmd := &cobra.Command{
		Use:     "calc",
		Short:   "Predict the speed test matrix from GPU and model specifications",
		Long:    helpLong("calc"),
		Example: helpExamples("calc"),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.list != "" {
				return listCatalog(cmd.OutOrStdout(), f.list)
			}
			run, dense, err := predictFromFlags(f.q, f.plan)
			if err != nil {
				return err
			}
			return writeCalc(cmd.OutOrStdout(), run, report.Options{Format: f.format, Lang: f.lang, Capacity: f.targets.targets(), CapacityFrom: dense})
		},
	}
	addCalcFlags(cmd.Flags(), &f)
	return cmd
}

// addCalcFlags binds calc's flags to f: each sets its field of the query or the plan.
func addCalcFlags(fl *pflag.FlagSet, f *calcFlags) {
	fl.StringVar(&f.q.GPU, "gpu", "", "GPU from the catalog (rtx-3090, \"RTX 4090\", h100-sxm, m3-max, ...)")
	fl.IntVar(&f.q.GPUs, "gpus", 1, "number of GPUs, tensor parallel")
	fl.StringVar(&f.q.Model, "model", "", "model from the catalog (qwen2.5-32b, llama-3.1-8b, a Hugging Face id, ...)")
	fl.StringVar(&f.q.Quant, "quant", "", "weight format (bf16, fp8, int8, w4a16-g128, awq, q8_0, q6_k, q5_k_m, q4_0, q4_k_m, ...)")
	fl.StringVar(&f.q.KVDtype, "kv-dtype", "fp16", "KV cache dtype: fp16, bf16, fp8, q8_0, q4_0")
	fl.StringVar(&f.q.Engine, "engine", "", "serving engine, for its memory reserve and efficiency: vllm (also trt-llm, tgi, lmdeploy), sglang, llama.cpp (also lm-studio) or ollama; default vllm, or ollama for an Ollama tag (qwen3:32b)")
	fl.StringVar(&f.q.EngineVersion, "engine-version", "", "the engine's release or build (vLLM 0.10.1, llama.cpp b6609) or its date (2024-05); default a current build (see --list engines)")
	fl.IntVar(&f.q.HostExpertLayers, "n-cpu-moe", 0, "llama.cpp/Ollama: layers whose routed experts stay in host memory, computed by the CPU (llama.cpp's --n-cpu-moe); needs --host-bandwidth")
	fl.Float64Var(&f.q.HostBandwidthGBps, "host-bandwidth", 0, "host memory bandwidth in GB/s that the CPU reads host-resident experts at (with --n-cpu-moe)")
	fl.IntVar(&f.q.PipelineStages, "pipeline-parallel-size", 1, "pipeline stages (vLLM --pipeline-parallel-size): the layers split over them, --gpus each")
	fl.Float64Var(&f.q.MemoryUtilization, "gpu-memory-utilization", 0.9, "share of each GPU's memory the engine may use (vLLM's flag)")
	fl.BoolVar(&f.q.NoPrefixCaching, "no-prefix-caching", false, "the engine runs without prefix caching (vLLM --no-enable-prefix-caching); changes a hybrid model's KV count")
	fl.IntVar(&f.q.MaxNumSeqs, "max-num-seqs", 0, "the engine's max_num_seqs (vLLM --max-num-seqs); 0 = vLLM's default, 256 (1024 on GPUs with 70 GiB or more); its sampler warm-up takes memory from the KV cache")
	fl.StringVar(&f.q.MambaSSMDtype, "mamba-ssm-cache-dtype", "auto", "a hybrid model's recurrent-state dtype (vLLM --mamba-ssm-cache-dtype): auto (the model's), float32, float16 or bfloat16")
	fl.Float64Var(&f.q.ReserveGiB, "reserve", 0, "runtime reserve per GPU in GiB (activations, CUDA context, graphs); 0 = the engine's modelled reserve")
	fl.Float64Var(&f.q.LoadedWeightsGiB, "weights-gib", 0, "the weights per GPU as the engine loaded them, in GiB (vLLM logs 'Model loading took X GiB'); 0 = from parameters × bits per weight")
	fl.StringVar(&f.plan.MaxModelLen, "max-model-len", "", "engine's max model length in tokens (65536 or 64K); default the model's context")
	fl.StringVar(&f.plan.Contexts, "contexts", defaultContexts, "decode contexts, tokens (K = 1024)")
	fl.StringVar(&f.plan.Concurrency, "concurrency", defaultConcurrency, "concurrent requests per decode cell")
	fl.StringVar(&f.plan.Prefill, "prefill", defaultPrefill, "prefill contexts, tokens (K = 1024)")
	fl.StringVar(&f.plan.MaxOutput, "max-output", strconv.Itoa(seedPlan.MaxOutputTokens), "max output tokens per request (over-capacity rule and decode context)")
	fl.Float64Var(&f.plan.DurationS, "duration", seedPlan.DurationS, "measurement window in seconds a run would use")
	fl.StringVar(&f.format, "format", "text", "output: text or json (also md, csv, html)")
	fl.StringVar(&f.lang, "lang", "", "language of text/md/html output: en or ja")
	fl.StringVar(&f.list, "list", "", "list a catalog instead of predicting: gpus, models, quants, kv-dtypes, engines, interconnects or prices")
	fl.StringVar(&f.q.Interconnect, "interconnect", "", "how the GPUs are linked, overriding the catalog's (e.g. pcie-gen3-x16 for a GeForce pair in Gen3 slots; see --list interconnects)")
	fl.Float64Var(&f.q.BandwidthGBps, "bandwidth", 0, "explicit GPU: memory bandwidth, GB/s")
	fl.Float64Var(&f.q.TFLOPS, "tflops", 0, "explicit GPU: dense FP16 tensor TFLOPS")
	fl.Float64Var(&f.q.VRAMGiB, "vram", 0, "explicit GPU: memory, GiB")
	fl.IntVar(&f.q.SMCount, "sm-count", 0, "explicit NVIDIA GPU: streaming multiprocessors (with --boost-clock-mhz caps llama.cpp's GEMM rate at a GA102-class SM's)")
	fl.Float64Var(&f.q.BoostClockMHz, "boost-clock-mhz", 0, "explicit NVIDIA GPU: the boost clock its --tflops is quoted at, MHz")
	fl.StringVar(&f.q.GPUFamily, "gpu-family", "", "explicit GPU's vendor, which picks the engine's efficiency factors: nvidia (default), amd, apple or intel")
	fl.StringVar(&f.q.HFConfig, "config", "", "explicit model: a Hugging Face config.json")
	fl.StringVar(&f.q.GGUF, "gguf", "", "explicit model: a GGUF file (its header is read; weights format from the file)")
	fl.Float64Var(&f.q.Specs.ParamsB, "params", 0, "explicit model: parameters, billions")
	fl.Float64Var(&f.q.Specs.ActiveParamsB, "active-params", 0, "explicit model: parameters active per token (MoE), billions")
	fl.IntVar(&f.q.Specs.Layers, "layers", 0, "explicit model: layers")
	fl.IntVar(&f.q.Specs.Hidden, "hidden", 0, "explicit model: hidden size")
	fl.IntVar(&f.q.Specs.Heads, "heads", 0, "explicit model: attention heads")
	fl.IntVar(&f.q.Specs.KVHeads, "kv-heads", 0, "explicit model: KV heads (default = heads)")
	fl.IntVar(&f.q.Specs.HeadDim, "head-dim", 0, "explicit model: head dimension (default hidden/heads)")
	fl.IntVar(&f.q.Specs.Intermediate, "intermediate", 0, "explicit model: MLP intermediate size (sizes the activation reserve)")
	fl.IntVar(&f.q.Specs.Vocab, "vocab", 0, "explicit model: vocabulary size (embeddings stay 16-bit in vLLM formats)")
	fl.IntVar(&f.q.Specs.Experts, "experts", 0, "explicit MoE model: routed experts per layer (with --active-params and --experts-per-token sizes the expert weights)")
	fl.IntVar(&f.q.Specs.ExpertsPerToken, "experts-per-token", 0, "explicit MoE model: experts each token is routed to")
	fl.Float64Var(&f.q.WeightBits, "weight-bits", 0, "explicit weight format: bits per weight, scales included (instead of --quant)")
	addCapacityFlag(fl, &f.targets)
}

// predictFromFlags predicts the matrix of the flags' query and plan, and the
// prediction at every number of requests up to the KV limit that capacity is read from.
func predictFromFlags(q perf.Query, t perf.PlanText) (run, dense *rundoc.Run, err error) {
	c, err := perf.Load()
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	if run, err = c.PredictQuery(q, t, now); err != nil {
		return nil, nil, err
	}
	if dense, err = c.PredictCapacity(q, t, now); err != nil {
		return nil, nil, err
	}
	run.Tool = rundoc.Tool{Name: "llmbench", Version: toolVersion()}
	return run, dense, nil
}

func writeCalc(w io.Writer, run *rundoc.Run, opts report.Options) error {
	if err := report.Write(w, run, opts); err != nil {
		return fmt.Errorf("writing prediction: %w", err)
	}
	return nil
}

// listCatalog prints a catalog's tables (perf.Catalog.Listing), each aligned on its
// own and followed by its note.
func listCatalog(w io.Writer, what string) error {
	c, err := perf.Load()
	if err != nil {
		return err
	}
	tables, err := c.Listing(what)
	if err != nil {
		return err
	}
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(w)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(t.Header, "\t"))
		for _, row := range t.Rows {
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if t.Note != "" {
			if _, err := fmt.Fprintln(w, "\n"+t.Note); err != nil {
				return err
			}
		}
	}
	return nil
}
