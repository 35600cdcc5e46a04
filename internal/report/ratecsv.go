package report

import (
	"io"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// rateCSVColumns: an open-loop run's CSV has one row per rate cell (a matrix run's
// has one per measurement): raw numbers in ms, req/s and tok/s, empty where the
// document has null (too few samples, or undetermined).
var rateCSVColumns = func() []string {
	cols := []string{"rate_rps", "arrival", "search_step", "status", "reason", "requests", "completed_requests", "failed_requests", "unfinished_requests",
		"offered_rps", "achieved_rps", "duration_s", "output_tokens", "total_tok_s", "per_request_tok_s"}
	for _, m := range []string{"ttft", "tpot", "itl", "e2e"} {
		for _, s := range []string{"p50", "p90", "p99", "mean", "stdev"} {
			cols = append(cols, m+"_"+s+"_ms")
		}
		cols = append(cols, m+"_samples")
	}
	return append(cols, "latency_from", "max_concurrency", "slot_wait_p50_ms", "client_send_lag_p50_ms", "peak_in_flight",
		"slo_met_ratio", "goodput_rps", "meets_slo", "saturated", "saturation", "prompt_tokens_mean", "cache_hit_ratio",
		"server_waiting_mean", "server_waiting_max", "flags", "error_samples", "client_headroom",
		// Energy, when the run was metered or priced (extensions: after the others).
		"power_w_mean", "power_w_max", "energy_j", "joules_per_token", "tok_s_per_w", "usd_per_mtok",
		"gpu_util_mean", "gpu_memory_used_mib", "throttle_reasons", "telemetry_samples", "energy_method", "energy_reason", "cost_reason")
}()

func writeRateCSV(w io.Writer, run *rundoc.Run, opts Options) error {
	cw, col, err := csvStart(w, rateCSVColumns)
	if err != nil {
		return err
	}
	for i := range run.Rate {
		rec := rateRecord(&run.Rate[i], col)
		if run.SessionRates() {
			rec[col["rate_of"]] = rundoc.RateOfSessions // rate_rps is sessions a second
		}
		if f := run.Rate[i].RateFigures; f != nil {
			rec[col["client_headroom"]] = cellHeadroom(run, f.TotalTokS)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	if rec := rateCapacityRecord(run, opts, col); rec != nil {
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func rateRecord(c *rundoc.RateCell, col map[string]int) []string {
	rec, set, opt := csvRecord(len(rateCSVColumns), col)
	set("rate_rps", c.RateRPS.String())
	set("arrival", c.Arrival)
	if c.SearchStep > 0 {
		set("search_step", strconv.Itoa(c.SearchStep))
	}
	set("status", string(c.Status))
	set("reason", c.Reason)
	f := c.RateFigures
	if f == nil {
		return rec
	}
	for k, n := range map[string]int{"requests": f.Requests, "completed_requests": f.CompletedRequests, "failed_requests": f.FailedRequests,
		"unfinished_requests": f.UnfinishedRequests, "output_tokens": f.OutputTokens, "peak_in_flight": f.PeakInFlight} {
		set(k, strconv.Itoa(n))
	}
	opt("offered_rps", f.OfferedRPS)
	opt("achieved_rps", f.AchievedRPS)
	set("duration_s", num(f.DurationS))
	set("total_tok_s", num(f.TotalTokS))
	opt("per_request_tok_s", f.PerRequestTokS)
	for m, s := range map[string]rundoc.LatencyStats{"ttft": f.TTFTMs, "tpot": f.TPOTMs, "itl": f.ITLMs, "e2e": f.E2EMs} {
		opt(m+"_p50_ms", s.P50)
		opt(m+"_p90_ms", s.P90)
		opt(m+"_p99_ms", s.P99)
		opt(m+"_mean_ms", s.Mean)
		opt(m+"_stdev_ms", s.Stdev)
		set(m+"_samples", strconv.Itoa(s.Samples))
	}
	set("latency_from", f.LatencyFrom)
	if f.MaxConcurrency > 0 {
		set("max_concurrency", strconv.Itoa(f.MaxConcurrency))
	}
	if f.SlotWaitMs != nil {
		opt("slot_wait_p50_ms", f.SlotWaitMs.P50)
	}
	opt("client_send_lag_p50_ms", f.ClientSendLagMs.P50)
	opt("slo_met_ratio", f.SLOMetRatio)
	opt("goodput_rps", f.GoodputRPS)
	if f.MeetsSLO != nil {
		set("meets_slo", strconv.FormatBool(*f.MeetsSLO))
	}
	set("saturated", strconv.FormatBool(c.Saturated()))
	set("saturation", strings.Join(f.Saturation, " | "))
	if f.PromptTokensMean > 0 {
		set("prompt_tokens_mean", num(f.PromptTokensMean))
	}
	opt("cache_hit_ratio", f.CacheHitRatio)
	if s := f.Server; s != nil && s.Waiting != nil {
		set("server_waiting_mean", num(s.Waiting.Mean))
		set("server_waiting_max", num(s.Waiting.Max))
	}
	csvCellEnergy(set, c.Energy)
	set("flags", strings.Join(f.Flags, ";"))
	set("error_samples", strings.Join(f.ErrorSamples, " | "))
	csvRateIntervals(set, f)
	return rec
}
