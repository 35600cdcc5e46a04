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
