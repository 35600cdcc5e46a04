package api

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/llmbench/llmbench/internal/site/board"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// condOf is what an open-loop ranking's values were measured under.
func condOf(c board.Cell) *wire.Conditions {
	out := &wire.Conditions{InputLen: c.Context, OutputLen: c.Cond.OutputLen, Arrival: c.Cond.Arrival, LenDist: c.Cond.LenDist,
		MaxConcurrency: c.Cond.MaxConcurrency, PrefixShare: c.Cond.PrefixShare, Requests: c.Cond.Requests, DurationS: c.Cond.DurationS}
	if c.Cond.SLO != nil {
		slo := *c.Cond.SLO
		slo.Target = c.Cond.Target // 0 (left out) unless the metric depends on it
		out.SLO = &slo
	}
	return out
}

// Leaderboard answers GET /api/v1/leaderboard: one page of runs ranked by a cell.
func (s *API) Leaderboard(w http.ResponseWriter, r *http.Request) {
	q, ferr := board.Filters(r.URL.Query(), 100)
	if ferr == nil {
		q.Accuracy, ferr = board.AccuracyFilter(r.URL.Query())
	}
	cell, cerr := board.CellFromQuery(r.URL.Query())
	if ferr == nil {
		ferr = cerr
	}
	if ferr != nil {
		reason := ferr.Reason
		if board.MissingSLO(ferr, r.URL.Query()) {
			reason += s.sloHint(r.Context(), cell.Metric.Name)
		}
		wire.WriteError(w, http.StatusBadRequest, ferr.Field, reason)
		return
	}
	q = board.Defaults(q, r.URL.Query())
	ranked, marks, next, err := s.board.Rank(r.Context(), cell, q, board.Grouped(r.URL.Query()))
	if err != nil {
		s.log.Error("ranking runs", "err", err)
		wire.WriteError(w, http.StatusInternalServerError, "", "could not rank runs")
		return
	}
	out := wire.Leaderboard{Metric: cell.Metric.Name, LowerIsBetter: cell.Metric.LowerIsBetter, Unit: cell.Metric.Unit, Entries: []wire.Entry{}}
	if cell.Metric.Axis != metric.AxisRun {
		c := cell.Context
		out.Context = &c
	}
	switch cell.Metric.Axis {
	case metric.AxisConcurrency:
		out.Concurrency = &cell.Level
	case metric.AxisRate:
		rate := wire.Rate(cell.Level)
		out.Rate = &rate
	case metric.AxisTarget:
		out.Speed = &cell.Level
	}
	if cell.Rated() {
		out.Conditions = condOf(cell)
	}
	out.Grouped = board.Grouped(r.URL.Query())
	if q.Accuracy.On {
		out.AccuracyWithin = &q.Accuracy.WithinPoints
	}
	for i, rr := range ranked {
		e := wire.Entry{Rank: q.Offset + i + 1, RunID: rr.ID, URL: "/runs/" + url.PathEscape(rr.ID), Value: rr.Value,
			Title: rr.Title, Kind: rr.Kind, Model: rr.Model, Family: rr.Family, GPU: rr.GPU, GPUCount: rr.GPUCount, Engine: rr.Engine,
			EngineVersion: rr.EngineVersion, Quantization: rr.Quantization, Profile: rr.Profile, Mode: rr.Mode, Submitter: rr.Submitter}
		markJSON(&e, marks[i], cell)
		out.Entries = append(out.Entries, e)
	}
	if next >= 0 {
		out.NextOffset = &next
	}
	for _, m := range metric.CellMetrics {
		out.Metrics = append(out.Metrics, wire.Metric{Name: m.Name, Axis: string(m.Axis), LowerIsBetter: m.LowerIsBetter, Unit: m.Unit, Conditions: m.Under.String()})
	}
	wire.Write(w, http.StatusOK, out)
}

// sloHint names the SLOs a metric's runs on this site were judged against, for the
// reason of a request that states none.
func (s *API) sloHint(ctx context.Context, metric string) string {
	cells, err := s.store.MetricCells(ctx, metric)
	if err != nil {
		s.log.Warn("listing the SLOs runs were judged against", "err", err)
		return ""
	}
	known := board.KnownSLOs(cells, 5)
	if len(known) == 0 {
		return " (no run on this site has " + metric + " yet)"
	}
	return " (runs on this site were judged against: slo=" + strings.Join(known, ", slo=") + ")"
}

func markJSON(e *wire.Entry, m board.Mark, cell board.Cell) {
	e.TiedWithPrevious = m.Tied
	if m.CI != nil {
		iv := m.CI.Round(cell.Metric.Decimals + 1)
		e.CI = &iv
	}
	if m.Runs > 1 {
		e.Runs, e.Spread, e.RunIDs = m.Runs, m.Spread, m.RunIDs
	}
}
