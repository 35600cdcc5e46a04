package store

import (
	"context"
	"fmt"
	"time"

	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/stats"
)

// HistoryRun is one measured run in a GPU × model's history: its single-stream
// decode figure with that figure's 95% interval, and the engine and date it was
// measured with.
type HistoryRun struct {
	ID            string
	Engine        string
	EngineVersion string
	Quantization  string
	GPUCount      int
	DecodeTokS    float64
	DecodeCI      *stats.Interval // nil when the run gives none
	CreatedAt     time.Time
}

// MaxHistoryRuns is the most runs History reads: the newest, when a GPU × model has
// more.
const MaxHistoryRuns = 2000

// History returns the measured runs of gpu × model (of one weight format, or of any
// when quant is empty) that have a decode figure, newest first: at most limit of
// them (MaxHistoryRuns when limit is out of range), and whether there were more.
// Names match in any case and spelling, as filters do (spelled). It reads
// runs_gpu_model's rows of the pair, not the table.
func (s *Store) History(ctx context.Context, gpu, model, quant string, limit int) ([]HistoryRun, bool, error) {
	if limit <= 0 || limit > MaxHistoryRuns {
		limit = MaxHistoryRuns
	}
	q, err := s.spelled(ctx, Query{GPU: gpu, Model: model, Quantization: quant,
		Kinds: []string{"measured"}, Sort: metric.MetricDecode})
	if err != nil {
		return nil, false, fmt.Errorf("reading the history of %s × %s: %w", gpu, model, err)
	}
	where, args := s.where(q, anyIndex)
	out, err := queryRows(ctx, s.db, s.rebind(`SELECT id, engine, engine_version, quantization, gpu_count,
		decode_tok_s, decode_ci_low, decode_ci_high, created_at FROM runs`+where+` ORDER BY created_at DESC, id LIMIT ?`),
		append(args, limit+1), scanHistoryRun)
	if err != nil {
		return nil, false, fmt.Errorf("reading the history of %s × %s: %w", gpu, model, err)
	}
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

// scanHistoryRun reads a row of History's columns.
func scanHistoryRun(sc scanner) (HistoryRun, error) {
	var r HistoryRun
	var low, high *float64
	err := sc.Scan(&r.ID, &r.Engine, &r.EngineVersion, &r.Quantization, &r.GPUCount, &r.DecodeTokS, &low, &high, &r.CreatedAt)
	r.CreatedAt = r.CreatedAt.UTC()
	if low != nil && high != nil {
		r.DecodeCI = &stats.Interval{Low: *low, High: *high}
	}
	return r, err
}

// ciLow and ciHigh are an interval's ends as columns: NULL when there is none.
func ciLow(iv *stats.Interval) *float64 {
	if iv == nil {
		return nil
	}
	return &iv.Low
}

func ciHigh(iv *stats.Interval) *float64 {
	if iv == nil {
		return nil
	}
	return &iv.High
}

// HistoryPair is a GPU × model that has runs, and how many (of any kind and mode).
type HistoryPair struct {
	GPU, Model string
	Runs       int
}

// HistoryPairs lists the GPU × model pairs of one GPU (dim "gpu") or one model (dim
// "model"), as the store names it, from run_pairs' counts (no run is read): most runs
// first, then by name, at most limit. The hardware and model pages link each pair's
// history.
func (s *Store) HistoryPairs(ctx context.Context, dim, name string, limit int) ([]HistoryPair, error) {
	// run_pairs holds the pair as (model, gpu): model comes first in groupDims.
	own, other := "name_a", "name_b"
	if dim == "gpu" {
		own, other = "name_b", "name_a"
	} else if dim != "model" {
		return nil, fmt.Errorf("listing the pairs of %s %q: not gpu or model", dim, name)
	}
	out, err := queryRows(ctx, s.db, s.rebind(`SELECT name_b, name_a, runs FROM run_pairs WHERE dim_a = 'model' AND dim_b = 'gpu' AND `+own+
		` = ? ORDER BY runs DESC, `+other+` LIMIT ?`), []any{name, max(limit, 1)},
		func(sc scanner) (HistoryPair, error) {
			var p HistoryPair
			err := sc.Scan(&p.GPU, &p.Model, &p.Runs)
			return p, err
		})
	if err != nil {
		return nil, fmt.Errorf("listing the pairs of %s %q: %w", dim, name, err)
	}
	return out, nil
}
