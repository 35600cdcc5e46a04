package report

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// csvColumns: one row per measurement, raw numbers (tokens, ms, tok/s, seconds), empty
// where there is no value, statuses as the run document spells them. The seed's columns
// come first; the extensions follow.
var csvColumns = []string{
	"phase", "context", "concurrency", "status", "reason",
	"prompt_tok_s", "total_tok_s", "per_request_tok_s", "ttft_ms", "tbt_ms",
	"avg_active_requests", "completed_requests", "output_tokens", "measured_s",
	"ttft_p90_ms", "ttft_p99_ms", "tbt_p90_ms", "tbt_p99_ms",
	"requests", "errors", "ended_early", "queueing", "peak_streaming_requests", "preemptions", "cache_hit_ratio",
	"client_limited", "server_running_mean", "server_waiting_max", "server_kv_usage_max",
	"flags", "error_samples",
	"power_w_mean", "power_w_max", "energy_j", "joules_per_token", "joules_per_prompt_token", "tok_s_per_w", "usd_per_mtok",
	"gpu_util_mean", "gpu_memory_used_mib", "throttle_reasons", "telemetry_samples", "energy_method", "energy_reason", "cost_reason",
	"client_cpu_s", "client_headroom",
}

func init() { csvColumns = append(csvColumns, csvIntervalColumns...) }

func writeCSV(w io.Writer, run *rundoc.Run, opts Options) error {
	if run.Config.Rate != nil || len(run.Rate) > 0 {
		return writeRateCSV(w, run, opts)
	}
	cw, col, err := csvStart(w, csvColumns)
	if err != nil {
		return err
	}
	for _, p := range run.Prefill {
		rec := make([]string, len(csvColumns))
		set := func(k, v string) { rec[col[k]] = v }
		set("phase", "prefill")
		set("context", strconv.Itoa(p.Context))
		set("concurrency", "1")
		set("status", string(p.Status))
		set("reason", p.Reason)
		if f := p.PrefillFigures; f != nil {
			csvFigure(set, "prompt_tok_s", f.PromptTokS)
			csvFigure(set, "ttft_ms", f.TTFTMs)
			if f.CompletedRequests > 0 {
				set("completed_requests", strconv.Itoa(f.CompletedRequests))
			}
		}
		csvPrefillIntervals(set, &p)
		if e := p.PrefillEnergy; e != nil {
			csvPowerStats(set, e.PowerStats)
			csvPtr(set, "joules_per_prompt_token", e.JoulesPerPromptToken)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	contexts, concurrency := MatrixAxes(run)
	cells := cellIndex(run)
	for _, ctx := range contexts {
		for _, n := range concurrency {
			c := cells[cellKey{ctx, n}]
			if c == nil {
				continue
			}
			rec := csvDecodeRecord(c, col)
			if c.DecodeFigures != nil && c.Status != rundoc.StatusOverCapacity && c.Status != rundoc.StatusPredicted {
				rec[col["client_headroom"]] = cellHeadroom(run, c.TotalTokS)
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	if err := writeCSVCapacity(cw, run, opts, col); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// csvFigure sets a rate or latency, leaving it empty where it is not a measurement
// (rundoc.Measured: the document left it out).
func csvFigure(set func(k, v string), k string, v float64) {
	if rundoc.Measured(v) {
		set(k, num(v))
	}
}

func csvDecodeRecord(c *rundoc.DecodeCell, col map[string]int) []string {
	rec, set, setPtr := csvRecord(len(csvColumns), col)
	set("phase", "decode")
	set("context", strconv.Itoa(c.Context))
	set("concurrency", strconv.Itoa(c.Concurrency))
	set("status", string(c.Status))
	set("reason", c.Reason)
	if f := c.DecodeFigures; f != nil {
		csvFigure(set, "total_tok_s", f.TotalTokS)
		csvFigure(set, "per_request_tok_s", f.PerRequestTokS)
		csvFigure(set, "ttft_ms", f.TTFTMs)
		csvFigure(set, "tbt_ms", f.TBTMs)
	}
	csvDecodeIntervals(set, c)
	if s := c.WindowStats; s != nil {
		set("avg_active_requests", num(s.AvgActiveRequests))
		set("completed_requests", strconv.Itoa(s.CompletedRequests))
		set("output_tokens", strconv.Itoa(s.OutputTokens))
		csvFigure(set, "measured_s", s.MeasuredS)
	}
	if d := c.CellDetail; d != nil {
		setPtr("ttft_p90_ms", d.TTFTP90Ms)
		setPtr("ttft_p99_ms", d.TTFTP99Ms)
		setPtr("tbt_p90_ms", d.TBTP90Ms)
		setPtr("tbt_p99_ms", d.TBTP99Ms)
		if d.Requests > 0 {
			set("requests", strconv.Itoa(d.Requests))
		}
		set("errors", strconv.Itoa(d.Errors))
		set("ended_early", strconv.Itoa(d.EndedEarly))
		set("queueing", strconv.FormatBool(d.Queueing))
		if d.PeakStreaming > 0 {
			set("peak_streaming_requests", strconv.Itoa(d.PeakStreaming))
		}
		switch {
		case d.Preemptions != nil:
			set("preemptions", strconv.Itoa(*d.Preemptions))
		case d.Server != nil && d.Server.Preemptions != nil:
			set("preemptions", num(*d.Server.Preemptions))
		}
		setPtr("cache_hit_ratio", d.CacheHitRatio)
		set("client_limited", strconv.FormatBool(d.ClientLimited))
		setPtr("client_cpu_s", d.ClientCPUS)
		if s := d.Server; s != nil {
			if s.Running != nil {
				set("server_running_mean", num(s.Running.Mean))
			}
			if s.Waiting != nil {
				set("server_waiting_max", num(s.Waiting.Max))
			}
			if s.KVUsage != nil {
				set("server_kv_usage_max", num(s.KVUsage.Max))
			}
		}
		set("flags", strings.Join(d.Flags, ";"))
		set("error_samples", strings.Join(d.ErrorSamples, " | "))
	}
	csvCellEnergy(set, c.CellEnergy)
	return rec
}

// csvCellEnergy writes a decode or rate cell's energy columns, when it has energy.
func csvCellEnergy(set func(k, v string), e *rundoc.CellEnergy) {
	if e == nil {
		return
	}
	csvPowerStats(set, e.PowerStats)
	csvPtr(set, "joules_per_token", e.JoulesPerToken)
	csvPtr(set, "tok_s_per_w", e.TokSPerW)
	csvPtr(set, "usd_per_mtok", e.USDPerMTok)
	set("cost_reason", e.CostReason)
}

func csvPtr(set func(k, v string), k string, v *float64) {
	if v != nil {
		set(k, num(*v))
	}
}

// csvStart writes the header row of columns, and maps each column to its place.
func csvStart(w io.Writer, columns []string) (*csv.Writer, map[string]int, error) {
	cw := csv.NewWriter(w)
	col := make(map[string]int, len(columns))
	for i, c := range columns {
		col[c] = i
	}
	return cw, col, cw.Write(columns)
}

// csvRecord is an empty row of n columns, with its setters by column name: set a
// text, setPtr a number that may be absent.
func csvRecord(n int, col map[string]int) (rec []string, set func(k, v string), setPtr func(k string, v *float64)) {
	rec = make([]string, n)
	set = func(k, v string) { rec[col[k]] = v }
	return rec, set, func(k string, v *float64) { csvPtr(set, k, v) }
}

// csvPowerStats writes a window's power figures: empty where unknown, the reason beside.
func csvPowerStats(set func(k, v string), ps rundoc.PowerStats) {
	csvPtr(set, "power_w_mean", ps.PowerWMean)
	csvPtr(set, "power_w_max", ps.PowerWMax)
	csvPtr(set, "energy_j", ps.EnergyJ)
	csvPtr(set, "gpu_util_mean", ps.GPUUtilMean)
	csvPtr(set, "gpu_memory_used_mib", ps.GPUMemUsedMiB)
	set("throttle_reasons", strings.Join(ps.Throttle, ";"))
	if ps.Samples > 0 {
		set("telemetry_samples", strconv.Itoa(ps.Samples))
	}
	set("energy_method", ps.Method)
	set("energy_reason", ps.Reason)
}

// num writes a float in the shortest form that reads back as the same value.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
