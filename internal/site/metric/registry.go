// Package metric is what the site ranks and filters runs by, read from run documents
// without SQL: the registry of cell metrics (every figure a leaderboard can rank by,
// which axis its cells lie on, which way is better, and how to read its values from a
// document), the conditions open-loop values are measured under, and a run's summary
// (its names, kind, profile, mode, family and size, headline figures and accuracy).
// The store writes what it reads into its tables; the site's pages and API name the
// metrics from it.
package metric

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// The leaderboard ranks runs by one cell of their matrix: a metric (total tok/s, TTFT,
// prompt tok/s …) at a context and, for most metrics, a second axis value (the
// concurrency of a decode cell). Every metric is one entry of CellMetrics: its name,
// which axis its cells lie on, which way is better, and a function that reads its value
// from each cell of a run document. When a run is stored, every value of every metric
// is written to run_metrics, so that any cell ranks from an index.
//
// Adding a metric is one entry below (and its label, "metric_<name>", in the site's
// texts): runs stored before it get its values when the site next starts, because the
// store re-reads every document when the registry's signature changes (store.Reindex).

// Axis is what a metric's values are keyed by besides the context.
type Axis string

const (
	// AxisConcurrency: decode cells, context × concurrency.
	AxisConcurrency Axis = "concurrency"
	// AxisPrefill: prefill rows, keyed by context alone (level 0).
	AxisPrefill Axis = "prefill"
	// AxisRun: one value per run, not per cell (context 0, level 0).
	AxisRun Axis = "run"
	// AxisRate: open-loop cells, context (the input length) × request rate
	// (requests/s; RateInf for a rate "inf" cell).
	AxisRate Axis = "rate"
	// AxisRateRun: one value per open-loop run at its input length (level 0): a
	// --find-max-rate search's answer.
	AxisRateRun Axis = "rate_run"
)

// CellValue is one metric value of one cell: Level is the second axis (concurrency,
// or a request rate), 0 for prefill rows and run-level metrics; Cond the conditions
// it was measured under (RateCond.Key; "" for matrix cells).
type CellValue struct {
	Metric  string
	Context int
	Level   float64
	Cond    string
	Value   float64
}

// CellMetric is a rankable figure.
type CellMetric struct {
	Name string // the API's and the URL's name: total_tok_s
	Axis Axis
	// Under says what else a value depends on (a rate cell's workload, its SLO): a
	// ranking names those conditions and holds only values measured under them.
	Under Conditions
	// LowerIsBetter ranks ascending (latencies); otherwise the highest value ranks first.
	LowerIsBetter bool
	Unit          string // "tok/s", "ms", as pages print after the value
	Decimals      int    // how many decimals pages show
	// Rev is bumped when Values changes meaning for documents already stored, so that
	// the store re-reads them (a new metric needs no bump: its name changes the signature).
	Rev int
	// Values reads every value the metric has in a run. Cells without figures, and
	// figures that are not finite, have none.
	Values func(r *rundoc.Run) []CellValue
}

// CellMetrics is the registry, in the order the leaderboard offers the metrics (the
// capacity metrics, capacity.go, join it at init).
var CellMetrics = []CellMetric{
	// Rev 1 of the four below: a figure a cell lacks (0, which a document without it
	// reads as) is left out of its board (issue 37 item 6: a valid cell without
	// ttft_ms ranked first at "0 ms").
	{Name: "total_tok_s", Axis: AxisConcurrency, Unit: "tok/s", Decimals: 1, Rev: 1,
		Values: decodeValues(func(f *rundoc.DecodeFigures) float64 { return f.TotalTokS })},
	// per_request_tok_s is 1000 / tbt_ms, the median stream's rate (methodology.md).
	{Name: "per_request_tok_s", Axis: AxisConcurrency, Unit: "tok/s", Decimals: 1, Rev: 1,
		Values: decodeValues(func(f *rundoc.DecodeFigures) float64 { return f.PerRequestTokS })},
	{Name: "ttft_ms", Axis: AxisConcurrency, LowerIsBetter: true, Unit: "ms", Decimals: 0, Rev: 1,
		Values: decodeValues(func(f *rundoc.DecodeFigures) float64 { return f.TTFTMs })},
	{Name: "prompt_tok_s", Axis: AxisPrefill, Unit: "tok/s", Decimals: 0, Rev: 1,
		Values: prefillValues(func(f *rundoc.PrefillFigures) float64 { return f.PromptTokS })},
	// Energy and cost per cell (issue 18's CellEnergy): only what was metered ranks;
	// an estimate (energy_method "estimate") is shown on the run's page, not ranked.
	{Name: "tok_s_per_w", Axis: AxisConcurrency, Unit: "tok/s/W", Decimals: 2,
		Values: DecodeCells(func(c rundoc.DecodeCell) (float64, bool) {
			if e := c.CellEnergy; e != nil && e.TokSPerW != nil && e.Method != rundoc.MethodEstimate {
				return *e.TokSPerW, true
			}
			return 0, false
		})},
	{Name: "usd_per_mtok", Axis: AxisConcurrency, LowerIsBetter: true, Unit: "USD/Mtok", Decimals: 3,
		Values: DecodeCells(func(c rundoc.DecodeCell) (float64, bool) {
			if e := c.CellEnergy; e != nil && e.USDPerMTok != nil {
				return *e.USDPerMTok, true
			}
			return 0, false
		})},
	{Name: "peak_tok_s", Axis: AxisRun, Unit: "tok/s", Decimals: 1,
		Values: runValue(func(s Summary) *float64 { return s.PeakTokS })},
	{Name: "peak_tok_s_per_gb", Axis: AxisRun, Unit: "tok/s/GB", Decimals: 2,
		Values: runValue(func(s Summary) *float64 { return s.TokSPerGB })},
	// Open-loop cells (llmbench run --rate): at the run's input length and each cell's
	// rate, under the workload and, for goodput, the SLO they were measured under
	// (rate.go). A rate "inf" cell's level is RateInf.
	{Name: "goodput_rps", Axis: AxisRate, Under: UnderSLO, Unit: "req/s", Decimals: 2,
		Values: rateValues(UnderSLO, func(f *rundoc.RateFigures) *float64 { return f.GoodputRPS })},
	{Name: "slo_met_ratio", Axis: AxisRate, Under: UnderSLO, Unit: "share", Decimals: 3,
		Values: rateValues(UnderSLO, func(f *rundoc.RateFigures) *float64 { return f.SLOMetRatio })},
	{Name: "achieved_rps", Axis: AxisRate, Under: UnderWorkload, Unit: "req/s", Decimals: 2,
		Values: rateValues(UnderWorkload, func(f *rundoc.RateFigures) *float64 { return f.AchievedRPS })},
	{Name: "rate_ttft_p50_ms", Axis: AxisRate, Under: UnderWorkload, LowerIsBetter: true, Unit: "ms", Decimals: 0,
		Values: rateValues(UnderWorkload, func(f *rundoc.RateFigures) *float64 { return p50(f.TTFTMs) })},
	{Name: "rate_ttft_p90_ms", Axis: AxisRate, Under: UnderWorkload, LowerIsBetter: true, Unit: "ms", Decimals: 0,
		Values: rateValues(UnderWorkload, func(f *rundoc.RateFigures) *float64 { return p90(f.TTFTMs) })},
	{Name: "rate_tpot_p50_ms", Axis: AxisRate, Under: UnderWorkload, LowerIsBetter: true, Unit: "ms", Decimals: 1,
		Values: rateValues(UnderWorkload, func(f *rundoc.RateFigures) *float64 { return p50(f.TPOTMs) })},
	{Name: "max_rate_rps", Axis: AxisRateRun, Under: UnderSLOTarget, Unit: "req/s", Decimals: 2, Values: maxRateValue},
}

// decodeValues reads one figure of every decode cell that has figures and has that
// one (Measured).
func decodeValues(figure func(*rundoc.DecodeFigures) float64) func(*rundoc.Run) []CellValue {
	return func(r *rundoc.Run) []CellValue {
		var out []CellValue
		for _, c := range r.Decode {
			if hasFigures(c) && Measured(figure(c.DecodeFigures)) {
				out = append(out, CellValue{Context: c.Context, Level: float64(c.Concurrency), Value: figure(c.DecodeFigures)})
			}
		}
		return out
	}
}

// Measured says whether a cell's rate or latency is a measurement (rundoc.Measured,
// the rule the reports share): a cell without it is left out of the boards of that
// figure, and keeps its others.
func Measured(v float64) bool { return rundoc.Measured(v) }

// DecodeCells reads any value of every valid (or predicted) decode cell: value says
// whether the cell has one. For figures outside DecodeFigures (energy, cost).
func DecodeCells(value func(rundoc.DecodeCell) (float64, bool)) func(*rundoc.Run) []CellValue {
	return func(r *rundoc.Run) []CellValue {
		var out []CellValue
		for _, c := range r.Decode {
			if c.Status != rundoc.StatusValid && c.Status != rundoc.StatusPredicted {
				continue
			}
			if v, ok := value(c); ok {
				out = append(out, CellValue{Context: c.Context, Level: float64(c.Concurrency), Value: v})
			}
		}
		return out
	}
}

// prefillValues reads one figure of every prefill row that has figures.
func prefillValues(figure func(*rundoc.PrefillFigures) float64) func(*rundoc.Run) []CellValue {
	return func(r *rundoc.Run) []CellValue {
		var out []CellValue
		for _, p := range r.Prefill {
			if p.PrefillFigures != nil && (p.Status == rundoc.StatusValid || p.Status == rundoc.StatusPredicted) && Measured(figure(p.PrefillFigures)) {
				out = append(out, CellValue{Context: p.Context, Value: figure(p.PrefillFigures)})
			}
		}
		return out
	}
}

// runValue is a run-level figure of the summary.
func runValue(figure func(Summary) *float64) func(*rundoc.Run) []CellValue {
	return func(r *rundoc.Run) []CellValue {
		if v := figure(summarizeFigures(r)); v != nil {
			return []CellValue{{Value: *v}}
		}
		return nil
	}
}

// MetricByName finds a registered metric.
func MetricByName(name string) (CellMetric, bool) {
	i := slices.IndexFunc(CellMetrics, func(m CellMetric) bool { return m.Name == name })
	if i < 0 {
		return CellMetric{}, false
	}
	return CellMetrics[i], true
}

// MetricNames lists the registered metrics' names.
func MetricNames() []string {
	var out []string
	for _, m := range CellMetrics {
		out = append(out, m.Name)
	}
	return out
}

// RankKey orders a metric's values so that the best comes first in ascending order,
// whichever way the metric is better: one index then serves every metric.
func (m CellMetric) RankKey(v float64) float64 {
	if m.LowerIsBetter {
		return v
	}
	return -v
}

// cellValues reads every registered metric's values of a run, finite ones only.
func cellValues(r *rundoc.Run) []CellValue {
	var out []CellValue
	for _, m := range CellMetrics {
		for _, v := range m.Values(r) {
			if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) || math.IsNaN(v.Level) || math.IsInf(v.Level, 0) {
				continue
			}
			v.Metric = m.Name
			out = append(out, v)
		}
	}
	return out
}

// summaryRev is bumped when Summarize derives a column differently (family, size,
// author, mode; 3: the GPU by the catalog's name; 4: a figure a cell lacks is no
// figure (Measured), a GPU labelled with its memory and a quantization by the
// catalog's names; 5: run_accuracy; 6: the decode figure's interval), so that stored
// runs are summarised again.
const summaryRev = 6

// condRev is bumped when RateCond.Key writes the same conditions differently.
const condRev = 1

// Signature names the registry and the summary rules; a store whose runs were indexed
// under another signature re-reads them (store.Reindex).
func Signature() string {
	var b strings.Builder
	fmt.Fprintf(&b, "summary:%d|cond:%d", summaryRev, condRev)
	for _, m := range CellMetrics {
		fmt.Fprintf(&b, "|%s:%s:%t:%d", m.Name, m.Axis, m.LowerIsBetter, m.Rev)
		if m.Under != NoConditions {
			fmt.Fprintf(&b, ":%s", m.Under)
		}
	}
	h := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(h[:8])
}
