package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/session"
	"github.com/llmbench/llmbench/internal/workload"
)

// The open-loop plan's defaults.
const (
	defaultInputLen     = 1024
	defaultOutputLen    = 256
	defaultDrainTimeout = time.Minute
)

// addRateFlags binds run's open-loop flags: with --rate or --find-max-rate, run
// measures one cell per request rate instead of the concurrency matrix.
func addRateFlags(fl *pflag.FlagSet, o *session.OpenLoop) {
	fl.StringVar(&o.Rates, "rate", "", "open loop: request rates to measure, one cell each (requests/s; inf = all at once), e.g. 1,2,5,10,inf")
	fl.StringVar(&o.Arrival, "arrival", "poisson", "arrival process of --rate: poisson, constant or gamma:BURSTINESS (<1 burstier)")
	fl.IntVar(&o.MaxConcurrency, "max-concurrency", 0, "cap on requests in flight with --rate; the wait for a slot counts in the latency (0: no cap)")
	fl.IntVar(&o.InputLen, "input-len", defaultInputLen, "prompt tokens per request with --rate")
	fl.IntVar(&o.OutputLen, "output-len", defaultOutputLen, "output tokens per request with --rate")
	fl.StringVar(&o.LenDist, "len-dist", "fixed", "spread of --input-len and --output-len: fixed, uniform:R (in [L(1−R), L(1+R)]) or normal:R (stdev R·L)")
	fl.Float64Var(&o.PrefixShare, "prefix-share", 0, "share of each prompt that all requests of a cell start with (0: prompts unique from their first token)")
	fl.IntVar(&o.Requests, "requests", 0, "requests per rate cell (default: the arrivals that fall in --duration; rate inf: as many as the busiest rate)")
	fl.DurationVar(&o.DrainTimeout, "drain-timeout", defaultDrainTimeout, "how long a rate cell waits after its last arrival for requests in flight; those still running are cancelled and counted unfinished")
	fl.StringVar(&o.SLO, "slo", "", "latency targets a request must all meet to count toward goodput, e.g. ttft=500ms,tpot=50ms[,e2e=10s]")
	fl.StringArrayVar(&o.Goodput, "goodput", nil, "the SLO in vLLM's form, beside --slo: --goodput ttft:500 tpot:50 (milliseconds; e2el or e2e too)")
	o.Target = rundoc.DefaultSLOTarget
	fl.Var(&targetValue{share: &o.Target, url: &o.TargetURL}, "target", "share of requests that must meet --slo (for --find-max-rate and each cell's meets_slo); a URL instead is the server, as GuideLLM's --target")
	fl.BoolVar(&o.FindMaxRate, "find-max-rate", false, "search for the highest rate meeting --slo at --target: double from the first --rate (default 1) until a cell fails or saturates, then bisect")
	fl.IntVar(&o.SearchSteps, "max-rate-steps", rundoc.DefaultSearchSteps, "most cells --find-max-rate runs")
	fl.Float64Var(&o.Precision, "rate-precision", rundoc.DefaultSearchPrecision, "--find-max-rate stops when the pass and the failure are this close (relative)")
}

// addWorkloadFlags binds run's workload flags (docs/workloads.md): what a run sends
// besides random words, in the matrix and with --rate.
func addWorkloadFlags(fl *pflag.FlagSet, w *session.Workload) {
	fl.StringVar(&w.Dataset, "dataset", "", "send a dataset's requests: JSONL of prompts or messages (optionally an output length), or ShareGPT's JSON; sampled with --seed")
	fl.StringVar(&w.PromptText, "prompt-text", "", "fill the matrix's contexts with this text file instead of random words (speculative decoding drafts on real text)")
	fl.IntVar(&w.Turns, "turns", 0, "multi-turn sessions of this many turns, each with the history and the server's real replies (matrix: --concurrency users hold one each; --rate: sessions per second)")
	fl.IntVar(&w.UserTokens, "user-tokens", 128, "tokens of each new user message in a session (synthetic; with --dataset its user turns)")
	fl.StringVar(&w.Think, "think-time", "0s", "pause between a reply and the next turn: a duration (2s) or exp:DURATION (exponential of that mean)")
	fl.StringVar(&w.Trace, "trace", "", "replay a Mooncake trace (timestamp, input_length, output_length, hash_ids) or a fixed schedule ({timestamp, messages}) on its timestamps")
	fl.Float64Var(&w.TraceSpeed, "trace-speed", 1, "play --trace this many times faster")
	fl.IntVar(&w.TraceBlock, "trace-block-size", workload.MooncakeBlockSize, "tokens one hash id of --trace stands for")
	fl.IntVar(&w.PrefixPrompts, "num-prefix-prompts", 0, "with --rate: this many shared system prompts, each request starting with one (vLLM's prefix_repetition)")
	fl.IntVar(&w.PrefixTokens, "prefix-prompt-length", 0, "tokens of each --num-prefix-prompts prompt")
}
