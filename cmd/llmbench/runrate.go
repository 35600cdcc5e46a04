package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/session"
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
