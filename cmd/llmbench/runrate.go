package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/openloop"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// The open-loop plan's defaults, and the quick plan's: small requests so that the
// emulator saturates within a few seconds a cell.
const (
	defaultInputLen     = 1024
	defaultOutputLen    = 256
	quickRateDuration   = 5 * time.Second
	quickInputLen       = 512
	quickOutputLen      = 64
	defaultDrainTimeout = time.Minute
)

// rateFlags are run's open-loop flags: with --rate or --find-max-rate, run measures
// one cell per request rate instead of the concurrency matrix.
type rateFlags struct {
	rates          string
	arrival        string
	maxConcurrency int
	inputLen       int
	outputLen      int
	lenDist        string
	prefixShare    float64
	requests       int
	drainTimeout   time.Duration
	slo            string
	goodput        []string // vLLM's --goodput ttft:500 tpot:50 (goodput.go)
	target         float64
	targetURL      string // --target given a URL (GuideLLM's name for the server)
	findMaxRate    bool
	searchSteps    int
	precision      float64
}

var rateFlagNames = []string{"rate", "arrival", "max-concurrency", "input-len", "output-len", "len-dist", "prefix-share",
	"requests", "drain-timeout", "slo", "goodput", "target", "find-max-rate", "max-rate-steps", "rate-precision"}

func (rf *rateFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&rf.rates, "rate", "", "open loop: request rates to measure, one cell each (requests/s; inf = all at once), e.g. 1,2,5,10,inf")
	fl.StringVar(&rf.arrival, "arrival", "poisson", "arrival process of --rate: poisson, constant or gamma:BURSTINESS (<1 burstier)")
	fl.IntVar(&rf.maxConcurrency, "max-concurrency", 0, "cap on requests in flight with --rate; the wait for a slot counts in the latency (0: no cap)")
	fl.IntVar(&rf.inputLen, "input-len", defaultInputLen, "prompt tokens per request with --rate")
	fl.IntVar(&rf.outputLen, "output-len", defaultOutputLen, "output tokens per request with --rate")
	fl.StringVar(&rf.lenDist, "len-dist", "fixed", "spread of --input-len and --output-len: fixed, uniform:R (in [L(1−R), L(1+R)]) or normal:R (stdev R·L)")
	fl.Float64Var(&rf.prefixShare, "prefix-share", 0, "share of each prompt that all requests of a cell start with (0: prompts unique from their first token)")
	fl.IntVar(&rf.requests, "requests", 0, "requests per rate cell (default: the arrivals that fall in --duration; rate inf: as many as the busiest rate)")
	fl.DurationVar(&rf.drainTimeout, "drain-timeout", defaultDrainTimeout, "how long a rate cell waits after its last arrival for requests in flight; those still running are cancelled and counted unfinished")
	fl.StringVar(&rf.slo, "slo", "", "latency targets a request must all meet to count toward goodput, e.g. ttft=500ms,tpot=50ms[,e2e=10s]")
	fl.StringArrayVar(&rf.goodput, "goodput", nil, "the SLO in vLLM's form, beside --slo: --goodput ttft:500 tpot:50 (milliseconds; e2el or e2e too)")
	rf.target = rundoc.DefaultSLOTarget
	fl.Var(&targetValue{share: &rf.target, url: &rf.targetURL}, "target", "share of requests that must meet --slo (for --find-max-rate and each cell's meets_slo); a URL instead is the server, as GuideLLM's --target")
	fl.BoolVar(&rf.findMaxRate, "find-max-rate", false, "search for the highest rate meeting --slo at --target: double from the first --rate (default 1) until a cell fails or saturates, then bisect")
	fl.IntVar(&rf.searchSteps, "max-rate-steps", rundoc.DefaultSearchSteps, "most cells --find-max-rate runs")
	fl.Float64Var(&rf.precision, "rate-precision", rundoc.DefaultSearchPrecision, "--find-max-rate stops when the pass and the failure are this close (relative)")
}

// active reports whether the flags ask for an open-loop run.
func (rf *rateFlags) active() bool { return rf.rates != "" || rf.findMaxRate }

// config builds the open-loop plan from the flags.
func (rf *rateFlags) config(changed func(string) bool, quick bool) (*rundoc.RateConfig, error) {
	if quick && !changed("input-len") {
		rf.inputLen = quickInputLen
	}
	if quick && !changed("output-len") {
		rf.outputLen = quickOutputLen
	}
	var rates []rundoc.Rate
	if rf.rates != "" {
		var err error
		if rates, err = rundoc.ParseRateList(rf.rates); err != nil {
			return nil, fmt.Errorf("--rate: %w", err)
		}
	}
	arr, err := rundoc.ParseArrival(rf.arrival)
	if err != nil {
		return nil, fmt.Errorf("--arrival: %w", err)
	}
	dist, err := rundoc.ParseLenDist(rf.lenDist)
	if err != nil {
		return nil, fmt.Errorf("--len-dist: %w", err)
	}
	switch {
	case rf.inputLen < 1 || rf.outputLen < 1:
		return nil, errors.New("--input-len and --output-len must be at least 1")
	case rf.prefixShare < 0 || rf.prefixShare >= 1:
		return nil, fmt.Errorf("--prefix-share %v: give a share in [0, 1)", rf.prefixShare)
	case rf.maxConcurrency < 0 || rf.requests < 0:
		return nil, errors.New("--max-concurrency and --requests cannot be negative")
	case rf.drainTimeout <= 0:
		return nil, errors.New("--drain-timeout must be positive")
	}
	cfg := &rundoc.RateConfig{
		Rates: rates, Arrival: arr.String(), MaxConcurrency: rf.maxConcurrency,
		InputLen: rf.inputLen, OutputLen: rf.outputLen, LenDist: dist.String(), PrefixShare: rf.prefixShare,
		Requests: rf.requests, DrainTimeoutS: rf.drainTimeout.Seconds(),
	}
	slo, err := rf.sloSpec()
	if err != nil {
		return nil, err
	}
	if slo != "" {
		if cfg.SLO, err = rundoc.ParseSLO(slo, rf.target); err != nil {
			return nil, fmt.Errorf("--slo: %w", err)
		}
	}
	if rf.findMaxRate {
		if cfg.Search, err = rf.search(cfg.SLO, rates); err != nil {
			return nil, err
		}
		cfg.Rates = nil
	}
	return cfg, nil
}

// search is --find-max-rate's search, from the first --rate (1 by default).
func (rf *rateFlags) search(slo *rundoc.SLO, rates []rundoc.Rate) (*rundoc.RateSearch, error) {
	if slo == nil {
		return nil, errors.New("--find-max-rate needs --slo: the targets a rate must meet")
	}
	start := rundoc.Rate(1)
	if len(rates) > 0 {
		start = rates[0]
	}
	if start.IsInf() {
		return nil, errors.New("--find-max-rate starts from a finite --rate")
	}
	if rf.searchSteps < 1 || !(rf.precision > 0) {
		return nil, errors.New("--max-rate-steps must be ≥ 1 and --rate-precision > 0")
	}
	return &rundoc.RateSearch{Start: start, MaxSteps: rf.searchSteps, Precision: rf.precision}, nil
}

// checkRateFlags refuses open-loop flags without --rate or --find-max-rate, where
// they would silently do nothing.
func checkRateFlags(cmd *cobra.Command, rf *rateFlags) error {
	if rf.active() {
		for _, name := range []string{"contexts", "concurrency", "prefill", "prefill-mode", "max-output"} {
			if cmd.Flags().Changed(name) {
				return fmt.Errorf("--%s is a matrix flag: an open-loop run (--rate, --find-max-rate) sizes requests with --input-len and --output-len", name)
			}
		}
		return nil
	}
	for _, name := range rateFlagNames {
		if name == "target" && rf.targetURL != "" {
			continue // the server, as GuideLLM names it
		}
		if name != "rate" && name != "find-max-rate" && cmd.Flags().Changed(name) {
			return fmt.Errorf("--%s needs --rate or --find-max-rate", name)
		}
	}
	return nil
}

// newRateDocument builds an open-loop run document from the flags: the rate plan,
// and empty matrix axes (the document has no decode matrix).
func newRateDocument(cmd *cobra.Command, f *runFlags) (*rundoc.Run, error) {
	changed := cmd.Flags().Changed
	if f.quick && !changed("duration") {
		f.duration = quickRateDuration
	}
	if f.duration < time.Second {
		return nil, fmt.Errorf("--duration %s is too short: a rate cell under a second measures noise", f.duration)
	}
	if err := checkRequestFlags(f); err != nil {
		return nil, err
	}
	rc, err := f.rate.config(changed, f.quick)
	if err != nil {
		return nil, err
	}
	if len(rc.Rates) == 0 && rc.Search == nil {
		return nil, errors.New("--rate lists no rate")
	}
	for _, r := range rc.Rates {
		if r.IsInf() && openloop.InfRequests(rc, f.duration) == 0 {
			return nil, errors.New("--rate inf sends every request at once: say how many with --requests (or list a finite rate too)")
		}
	}
	doc := newDocument(f, rundoc.Config{
		Contexts: []int{}, Concurrency: []int{}, PrefillContexts: []int{},
		DurationS: f.duration.Seconds(), MaxOutputTokens: rc.OutputLen,
		DecodeTest: "request-rate", Rate: rc,
	})
	doc.Prefill, doc.Decode = []rundoc.PrefillRow{}, []rundoc.DecodeCell{}
	return doc, nil
}
