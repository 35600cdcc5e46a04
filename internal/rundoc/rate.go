package rundoc

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Rate is a request rate in requests per second. Inf ("inf" in flags and in the run
// document, as vLLM's bench writes it) means no schedule: every request is sent as
// soon as it may be.
type Rate float64

// Inf is the rate with no schedule.
var Inf = Rate(math.Inf(1))

// IsInf reports whether r is the unscheduled rate.
func (r Rate) IsInf() bool { return math.IsInf(float64(r), 1) }

func (r Rate) String() string {
	if r.IsInf() {
		return "inf"
	}
	return strconv.FormatFloat(float64(r), 'f', -1, 64)
}

// MarshalJSON writes a number, or "inf" (JSON has no infinity).
func (r Rate) MarshalJSON() ([]byte, error) {
	if r.IsInf() {
		return []byte(`"inf"`), nil
	}
	if math.IsNaN(float64(r)) {
		return nil, fmt.Errorf("rate is not a number")
	}
	return []byte(r.String()), nil
}

// UnmarshalJSON reads a number or "inf".
func (r *Rate) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		v, err := ParseRate(s)
		if err != nil {
			return err
		}
		*r = v
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("a rate is a number of requests per second or \"inf\": %w", err)
	}
	*r = Rate(f)
	return nil
}

// ParseRate reads "10", "0.5" or "inf".
func ParseRate(s string) (Rate, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "inf" || t == "infinity" {
		return Inf, nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || !(f > 0) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a request rate (a positive number of requests per second, or inf)", s)
	}
	return Rate(f), nil
}

// ParseRateList reads a comma-separated list of rates ("1,2,5,10,inf").
func ParseRateList(s string) ([]Rate, error) {
	var out []Rate
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		r, err := ParseRate(part)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// RateConfig is the plan of an open-loop run (config.rate): one cell per rate, or a
// search for the highest rate that meets an SLO.
type RateConfig struct {
	Rates   []Rate `json:"rates"`
	Arrival string `json:"arrival"` // poisson | constant | gamma:B
	// RateOf is what arrives at each rate: "sessions" when the run's workload is
	// multi-turn sessions (rates, rate_rps, the search's rates and max_rate_rps are
	// then sessions a second, each sending its turns; offered_rps, achieved_rps and
	// goodput_rps stay requests a second); absent for requests. Run.SessionRates
	// reads it.
	RateOf string `json:"rate_of,omitempty"`
	// MaxConcurrency caps requests in flight; a request scheduled while every slot is
	// taken waits, and the wait is part of its latency. 0: no cap.
	MaxConcurrency int    `json:"max_concurrency,omitempty"`
	InputLen       int    `json:"input_len"`
	OutputLen      int    `json:"output_len"`
	LenDist        string `json:"len_dist"` // fixed | uniform:R | normal:R
	// PrefixShare is the share of input_len every request of a cell starts with (the
	// same tokens); 0 makes prompts unique from their first token.
	PrefixShare float64 `json:"prefix_share,omitempty"`
	// Requests, when set, is the number of requests of every cell (its schedule then
	// lasts as long as it takes); otherwise a cell schedules arrivals for duration_s.
	Requests int `json:"requests,omitempty"`
	// DrainTimeoutS bounds how long a cell waits, after its last arrival, for the
	// requests still in flight; those still running then are cancelled (unfinished).
	DrainTimeoutS float64     `json:"drain_timeout_s"`
	SLO           *SLO        `json:"slo,omitempty"`
	Search        *RateSearch `json:"find_max_rate,omitempty"`
}

// RateOfSessions is config.rate.rate_of when sessions arrive at the rates.
const RateOfSessions = "sessions"

// SessionRates says whether the run's rates are sessions a second: config.rate.rate_of
// says so, or, in a document written before that field, the open-loop run's workload
// is sessions (whose rates were always sessions).
func (r *Run) SessionRates() bool {
	c := r.Config.Rate
	if c == nil {
		return false
	}
	return c.RateOf == RateOfSessions || (r.Config.Workload != nil && r.Config.Workload.Sessions != nil)
}

// SLO is a set of latency targets a request must all meet to count as good.
type SLO struct {
	TTFTMs *float64 `json:"ttft_ms,omitempty"`
	TPOTMs *float64 `json:"tpot_ms,omitempty"`
	E2EMs  *float64 `json:"e2e_ms,omitempty"`
	// Target is the share of requests that must meet the targets for a rate to pass
	// (--find-max-rate, and each cell's meets_slo).
	Target float64 `json:"target"`
}

// RateSearch configures --find-max-rate: the rates tried start at Start and double
// until a cell fails the SLO or saturates, then bisect the bracket until it is
// within Precision (relative) or MaxSteps cells have run.
type RateSearch struct {
	Start     Rate    `json:"start_rps"`
	MaxSteps  int     `json:"max_steps"`
	Precision float64 `json:"precision"`
}

// MaxRate is the outcome of a --find-max-rate search.
type MaxRate struct {
	// MaxRateRPS is the highest rate tried that met the SLO target without
	// saturating; null when none did.
	MaxRateRPS *float64 `json:"max_rate_rps"`
	// FailedRPS is the lowest rate tried that did not; null when every one passed.
	FailedRPS  *float64 `json:"failed_rps"`
	GoodputRPS *float64 `json:"goodput_rps,omitempty"` // of the passing cell
	Steps      int      `json:"steps"`
	// Stop says why the search ended: "precision", "max_steps", "all_passed"
	// (the doubling ran out of steps before any failure), or "none_passed".
	Stop string `json:"stop"`
}

// RateCell is one open-loop measurement: requests arriving on a seeded schedule at
// RateRPS, every latency timed from the request's scheduled send time.
type RateCell struct {
	RateRPS Rate   `json:"rate_rps"`
	Arrival string `json:"arrival"`
	// Seed makes the cell's schedule and lengths: the same seed, rate, arrival and
	// plan give the same schedule.
	Seed   uint64 `json:"seed"`
	Status Status `json:"status"`
	Reason string `json:"reason,omitempty"`
	// SearchStep is the cell's place in a --find-max-rate search (1-based).
	SearchStep int `json:"search_step,omitempty"`
	*RateFigures
	// Energy is the cell's power, J/token and $/Mtok over its span (the first
	// scheduled send to the last end), when the run was metered or priced.
	Energy *CellEnergy `json:"energy,omitempty"`
	// Workload is what a cell of a workload (sessions, a dataset, a trace, a prefix
	// pool) measured beyond the open loop's figures (workload.go).
	Workload *WorkloadFigures `json:"workload,omitempty"`
}

// LatencyStats summarise one latency over a cell's requests, in ms. A percentile
// without enough samples (methodology.md: p90 needs 64, p99 662) is null, and so is
// any figure that requests cut off at the drain timeout leave undetermined.
type LatencyStats struct {
	P50     *float64 `json:"p50"`
	P90     *float64 `json:"p90"`
	P99     *float64 `json:"p99"`
	Mean    *float64 `json:"mean"`
	Stdev   *float64 `json:"stdev"`
	Samples int      `json:"samples"`
	// Censored counts requests whose value is only known to exceed a bound (they were
	// still waiting when the cell stopped); they are in Samples.
	Censored int `json:"censored,omitempty"`
}

// RateFigures are what a rate cell measured.
type RateFigures struct {
	// OfferedRPS is the rate of the schedule as drawn ((n−1) / its span); null for an
	// unscheduled (inf) cell or one request.
	OfferedRPS *float64 `json:"offered_rps"`
	// AchievedRPS is completed requests / duration_s (vLLM's request throughput):
	// the drain after the last arrival is inside, so a short cell reads below its
	// offered rate even when the server kept up.
	AchievedRPS       *float64 `json:"achieved_rps"`
	Requests          int      `json:"requests"`
	CompletedRequests int      `json:"completed_requests"`
	FailedRequests    int      `json:"failed_requests"`
	// UnfinishedRequests were still running (or waiting) at the drain timeout.
	UnfinishedRequests int `json:"unfinished_requests"`
	// DurationS is the cell's span: first scheduled send to the last request's end.
	DurationS    float64 `json:"duration_s"`
	OutputTokens int     `json:"output_tokens"`
	// TotalTokS is output tokens / duration_s (vLLM's output throughput).
	TotalTokS float64 `json:"total_tok_s"`
	// PerRequestTokS is 1000 / the median TPOT: how fast one request's tokens came.
	PerRequestTokS *float64 `json:"per_request_tok_s"`
	// Latencies, from the request's scheduled send time (TTFT, E2E).
	TTFTMs LatencyStats `json:"ttft_ms"`
	TPOTMs LatencyStats `json:"tpot_ms"`
	ITLMs  LatencyStats `json:"itl_ms"`
	E2EMs  LatencyStats `json:"e2e_ms"`
	// LatencyFrom says what latencies are timed from: "scheduled" (a finite rate: the
	// request's place on the schedule, so a wait in the client or the server counts),
	// or "slot" (rate inf: no schedule, so from when a slot let the request go).
	LatencyFrom string `json:"latency_from"`
	// MaxConcurrency, when set, capped requests in flight: SlotWaitMs is how long
	// requests waited for a slot, and that wait is inside TTFT and E2E.
	MaxConcurrency int           `json:"max_concurrency,omitempty"`
	SlotWaitMs     *LatencyStats `json:"slot_wait_ms,omitempty"`
	// ClientSendLagMs is how late the client sent requests against their schedule
	// (and their slot), its own lag: it is inside the latencies too.
	ClientSendLagMs LatencyStats `json:"client_send_lag_ms"`
	PeakInFlight    int          `json:"peak_in_flight"`

	// Goodput, with --slo: slo_met_ratio is the share of all the cell's requests
	// that finished meeting every target, goodput_rps those requests / duration_s.
	SLOMetRatio *float64 `json:"slo_met_ratio,omitempty"`
	GoodputRPS  *float64 `json:"goodput_rps,omitempty"`
	MeetsSLO    *bool    `json:"meets_slo,omitempty"`

	// What the server said.
	PromptTokensMean   float64 `json:"prompt_tokens_mean,omitempty"` // server-counted, per request
	PromptTokensTarget float64 `json:"prompt_tokens_target,omitempty"`
	ServerOutputTokens *int    `json:"server_output_tokens,omitempty"`
	// TokenCountBound is the relative bound on output_tokens where chunks carried
	// several tokens and unfinished requests were counted one per chunk.
	TokenCountBound *float64 `json:"token_count_bound,omitempty"`
	CachedTokens    *int     `json:"cached_tokens,omitempty"`
	CacheHitRatio   *float64 `json:"cache_hit_ratio,omitempty"`
	EndedEarly      int      `json:"ended_early,omitempty"`
	// EarlyEndLoss is the share of the finished requests that ended before their
	// output length: the most the SLO-met ratio and an E2E percentile's rank can have
	// moved (more than 3%: not valid, docs/run.md).
	EarlyEndLoss *float64       `json:"early_end_loss,omitempty"`
	Server       *ServerMetrics `json:"server_metrics,omitempty"`

	// Saturation lists the evidence that the queue grew (flags then has "saturated").
	Saturation   []string `json:"saturation,omitempty"`
	Flags        []string `json:"flags,omitempty"`
	ErrorSamples []string `json:"error_samples,omitempty"`

	// A reasoning model's cell (docs/run.md "Reasoning"): TTFOMs is the time to the
	// first answer token (the first that is not reasoning) from the scheduled send, as
	// ttft_ms is timed; a request that finished with reasoning only has none.
	// ReasoningTokens and AnswerTokens are the client's counts by each chunk's kind.
	// Absent where no token came as reasoning.
	TTFOMs          *LatencyStats `json:"ttfo_ms,omitempty"`
	ReasoningTokens *int          `json:"reasoning_tokens,omitempty"`
	AnswerTokens    *int          `json:"answer_tokens,omitempty"`
	// Series is the cell slice by slice, from its first scheduled send to its last end.
	Series *Series `json:"series,omitempty"`
	// RateDrift, with the flag rate_drift, says the rate one streaming request got
	// (its tok/s, measure.StreamRates) stepped beyond its noise while requests
	// arrived: at_s after the first scheduled send, before_tok_s and after_tok_s per
	// streaming request. A cell's total tok/s follows its arrivals, so it is not what
	// is judged.
	RateDrift *Drift `json:"rate_drift,omitempty"`

	// The cell's 95% intervals (internal/openloop's interval.go).
	*RateIntervals
}

// Saturated reports whether the cell's queue grew.
func (c *RateCell) Saturated() bool { return c.RateFigures != nil && len(c.Saturation) > 0 }

// ParseSLO reads "ttft=500ms,tpot=50ms[,e2e=10s]" (Go durations; a bare number is
// ms). target is the share of requests that must meet them.
func ParseSLO(s string, target float64) (*SLO, error) {
	if !(target > 0 && target <= 1) {
		return nil, SLOTarget.Error(strconv.FormatFloat(target, 'g', -1, 64))
	}
	slo := &SLO{Target: target}
	kvs, bad := ParseKeyValues(s)
	if bad != "" {
		return nil, SLONotKeyValue.Error(strconv.Quote(bad))
	}
	for _, kv := range kvs {
		v, err := ParseMillis(kv.Value)
		if err != nil {
			return nil, SLOValue.Error(strconv.Quote(kv.Item), err.Error())
		}
		switch kv.Key {
		case "ttft":
			slo.TTFTMs = &v
		case "tpot":
			slo.TPOTMs = &v
		case "e2e", "e2el":
			slo.E2EMs = &v
		default:
			return nil, SLOUnknown.Error(strconv.Quote(kv.Item))
		}
	}
	if slo.TTFTMs == nil && slo.TPOTMs == nil && slo.E2EMs == nil {
		return nil, SLONone.Error(strconv.Quote(s))
	}
	return slo, nil
}

// String writes the SLO as --slo takes it.
func (s *SLO) String() string {
	var parts []string
	add := func(name string, v *float64) {
		if v != nil {
			parts = append(parts, name+"="+strconv.FormatFloat(*v, 'f', -1, 64)+"ms")
		}
	}
	add("ttft", s.TTFTMs)
	add("tpot", s.TPOTMs)
	add("e2e", s.E2EMs)
	return strings.Join(parts, ",")
}

// Defaults of a --find-max-rate search.
const (
	DefaultSearchSteps     = 8
	DefaultSearchPrecision = 0.1
	DefaultSLOTarget       = 0.95
)

// Passes reports whether a cell met its SLO target without saturating: the test a
// --find-max-rate search applies to every rate it tries.
func (c *RateCell) Passes() bool {
	return c.Status == StatusValid && c.RateFigures != nil && !c.Saturated() && c.MeetsSLO != nil && *c.MeetsSLO
}

// Arrival is the process request arrivals follow [vLLM bench serve]: Poisson
// (exponential gaps), constant gaps, or gamma gaps of shape Burstiness (1 is Poisson;
// below 1 burstier, above 1 more even).
type Arrival struct {
	Kind       string // poisson | constant | gamma
	Burstiness float64
}

// ParseArrival reads "poisson", "constant", "gamma:B", or "trace" (a replayed trace's
// or fixed schedule's own timestamps).
func ParseArrival(s string) (Arrival, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch {
	case t == "" || t == "poisson":
		return Arrival{Kind: "poisson", Burstiness: 1}, nil
	case t == "constant":
		return Arrival{Kind: "constant"}, nil
	case t == ArrivalTrace:
		return Arrival{Kind: ArrivalTrace}, nil
	case strings.HasPrefix(t, "gamma:"):
		b, err := strconv.ParseFloat(strings.TrimPrefix(t, "gamma:"), 64)
		if err != nil || !(b > 0) || math.IsInf(b, 0) {
			return Arrival{}, fmt.Errorf("%q: gamma takes a positive burstiness, e.g. gamma:0.5", s)
		}
		return Arrival{Kind: "gamma", Burstiness: b}, nil
	}
	return Arrival{}, fmt.Errorf("arrival %q: use poisson, constant or gamma:BURSTINESS", s)
}

func (a Arrival) String() string {
	if a.Kind == "gamma" {
		return "gamma:" + strconv.FormatFloat(a.Burstiness, 'f', -1, 64)
	}
	return a.Kind
}

// LenDist is how request lengths spread around their nominal value [vLLM's random
// dataset]: fixed, uniform in [L(1−R), L(1+R)], or normal with stdev R·L (clipped to
// [1, 2L]).
type LenDist struct {
	Kind  string // fixed | uniform | normal
	Ratio float64
}

// ParseLenDist reads "fixed", "uniform:R" or "normal:R".
func ParseLenDist(s string) (LenDist, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" || t == "fixed" {
		return LenDist{Kind: "fixed"}, nil
	}
	kind, arg, ok := strings.Cut(t, ":")
	if ok && (kind == "uniform" || kind == "normal") {
		r, err := strconv.ParseFloat(arg, 64)
		if err == nil && r >= 0 && (r < 1 || kind == "normal" && r <= 10) {
			return LenDist{Kind: kind, Ratio: r}, nil
		}
	}
	return LenDist{}, fmt.Errorf("length distribution %q: use fixed, uniform:R (0 ≤ R < 1) or normal:R", s)
}

func (d LenDist) String() string {
	if d.Kind == "fixed" || d.Kind == "" {
		return "fixed"
	}
	return d.Kind + ":" + strconv.FormatFloat(d.Ratio, 'f', -1, 64)
}
