package rundoc

import (
	"fmt"
	"math"
)

// MaxRateCells bounds rate[]: far beyond any plan or search; MaxRPS a request rate.
const (
	MaxRateCells = 256
	MaxRPS       = 1e7
)

// rates checks an open-loop run's plan and cells: every rate positive (or inf),
// statuses known, counts and figures finite and non-negative, ratios within [0, 1],
// and no cell claiming more completed requests than it sent.
func (v *validator) rates(r *Run, predicted bool) {
	if c := r.Config.Rate; c != nil {
		if len(c.Rates) > MaxAxis {
			v.fail("config.rate.rates", "has %d values; at most %d", len(c.Rates), MaxAxis)
		}
		for i, x := range c.Rates {
			v.rate(fmt.Sprintf("config.rate.rates[%d]", i), x)
		}
		v.count("config.rate.input_len", c.InputLen)
		v.count("config.rate.output_len", c.OutputLen)
		v.count("config.rate.max_concurrency", c.MaxConcurrency)
		v.count("config.rate.requests", c.Requests)
		v.number("config.rate.drain_timeout_s", c.DrainTimeoutS, MaxSeconds)
		if !(c.PrefixShare >= 0 && c.PrefixShare < 1) {
			v.fail("config.rate.prefix_share", "must be in [0, 1), got %v", c.PrefixShare)
		}
		// The site ranks a rate cell under its plan's arrival pattern and length
		// spread: they must be ones llmbench run writes.
		if _, err := ParseArrival(c.Arrival); err != nil {
			v.fail("config.rate.arrival", "%v", err)
		}
		if _, err := ParseLenDist(c.LenDist); err != nil {
			v.fail("config.rate.len_dist", "%v", err)
		}
		switch {
		case c.RateOf != "" && c.RateOf != RateOfSessions:
			v.fail("config.rate.rate_of", "must be %q or absent, got %q", RateOfSessions, c.RateOf)
		case c.RateOf == RateOfSessions && (r.Config.Workload == nil || r.Config.Workload.Sessions == nil):
			v.fail("config.rate.rate_of", "says sessions arrive, but config.workload has no sessions")
		}
		if s := c.SLO; s != nil {
			v.optNumber("config.rate.slo.ttft_ms", s.TTFTMs, maxMs)
			v.optNumber("config.rate.slo.tpot_ms", s.TPOTMs, maxMs)
			v.optNumber("config.rate.slo.e2e_ms", s.E2EMs, maxMs)
			v.ratio("config.rate.slo.target", &s.Target)
		}
	}
	if len(r.Rate) > MaxRateCells {
		v.fail("rate", "has %d cells; at most %d", len(r.Rate), MaxRateCells)
	}
	for i := range r.Rate {
		c := &r.Rate[i]
		f := fmt.Sprintf("rate[%d]", i)
		v.rate(f+".rate_rps", c.RateRPS)
		v.status(f+".status", c.Status, predicted)
		v.count(f+".search_step", c.SearchStep)
		v.cellEnergy(f+".energy", c.Energy)
		fig := c.RateFigures
		if fig == nil {
			if c.Status == StatusValid {
				v.fail(f+".requests", "is required for a valid cell")
			}
			continue
		}
		v.samePlan(f, r.Config.Rate, c)
		v.counts(f, []namedCount{{"requests", fig.Requests}, {"completed_requests", fig.CompletedRequests},
			{"failed_requests", fig.FailedRequests}, {"unfinished_requests", fig.UnfinishedRequests}, {"output_tokens", fig.OutputTokens},
			{"max_concurrency", fig.MaxConcurrency}, {"peak_in_flight", fig.PeakInFlight}, {"ended_early", fig.EndedEarly}})
		if fig.CompletedRequests+fig.FailedRequests+fig.UnfinishedRequests > fig.Requests {
			v.fail(f+".completed_requests", "completed, failed and unfinished requests (%d) exceed the requests sent (%d)",
				fig.CompletedRequests+fig.FailedRequests+fig.UnfinishedRequests, fig.Requests)
		}
		v.latency(f+".ttfo_ms", fig.TTFOMs)
		v.workloadFigures(f, fig.Series, fig.RateDrift, fig.ReasoningTokens, fig.AnswerTokens)
		v.optNumber(f+".offered_rps", fig.OfferedRPS, MaxRPS)
		v.optNumber(f+".achieved_rps", fig.AchievedRPS, MaxRPS)
		v.number(f+".duration_s", fig.DurationS, MaxSeconds)
		v.number(f+".total_tok_s", fig.TotalTokS, maxTokS)
		v.optNumber(f+".per_request_tok_s", fig.PerRequestTokS, maxTokS)
		v.optNumber(f+".goodput_rps", fig.GoodputRPS, MaxRPS)
		v.ratio(f+".slo_met_ratio", fig.SLOMetRatio)
		v.ratio(f+".cache_hit_ratio", fig.CacheHitRatio)
		v.ratio(f+".early_end_loss", fig.EarlyEndLoss)
		v.number(f+".prompt_tokens_mean", fig.PromptTokensMean, MaxTokens)
		v.latency(f+".ttft_ms", &fig.TTFTMs)
		v.latency(f+".tpot_ms", &fig.TPOTMs)
		v.latency(f+".itl_ms", &fig.ITLMs)
		v.latency(f+".e2e_ms", &fig.E2EMs)
		v.latency(f+".client_send_lag_ms", &fig.ClientSendLagMs)
		v.latency(f+".slot_wait_ms", fig.SlotWaitMs)
	}
}

func (v *validator) rate(field string, x Rate) {
	if !x.IsInf() && (math.IsNaN(float64(x)) || !(x > 0)) {
		v.fail(field, "must be a positive number of requests per second or \"inf\", got %v", float64(x))
	}
}

func (v *validator) ratio(field string, x *float64) {
	if x != nil && !(*x >= 0 && *x <= 1) {
		v.fail(field, "must be within [0, 1], got %v", *x)
	}
}

func (v *validator) latency(field string, s *LatencyStats) {
	if s == nil {
		return
	}
	v.optNumber(field+".p50", s.P50, maxMs)
	v.optNumber(field+".p90", s.P90, maxMs)
	v.optNumber(field+".p99", s.P99, maxMs)
	v.optNumber(field+".mean", s.Mean, maxMs)
	v.optNumber(field+".stdev", s.Stdev, maxMs)
	v.count(field+".samples", s.Samples)
	v.count(field+".censored", s.Censored)
}

// samePlan checks that a cell was measured under its run's plan, as every cell
// llmbench run writes is: the same arrival pattern and client cap. The leaderboard
// ranks a cell under the plan's conditions, so a cell that says otherwise would rank
// beside cells measured unlike it.
func (v *validator) samePlan(field string, plan *RateConfig, c *RateCell) {
	if plan == nil {
		return
	}
	want, err1 := ParseArrival(plan.Arrival)
	got, err2 := ParseArrival(c.Arrival)
	if err1 == nil && c.Arrival != "" && (err2 != nil || got != want) {
		v.fail(field+".arrival", "is %q, but config.rate.arrival is %q: a cell is measured under its run's plan", c.Arrival, plan.Arrival)
	}
	if c.RateFigures != nil && c.MaxConcurrency != plan.MaxConcurrency {
		v.fail(field+".max_concurrency", "is %d, but config.rate.max_concurrency is %d: a cell is measured under its run's plan", c.MaxConcurrency, plan.MaxConcurrency)
	}
}
