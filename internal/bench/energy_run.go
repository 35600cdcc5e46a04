package bench

import (
	"context"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// The matrix's hook into energy scoring (measure's energy.go): after a decode window
// or a prefill row's cold request, the meter is read once for that span, logged
// ("energy" event) and scored by the pure functions below — the same ones RescoreAll
// applies to the log.

// ScoreCellEnergy fills a measured cell's energy and cost from its window's trace.
func ScoreCellEnergy(cell *rundoc.DecodeCell, run *CellRun, in measure.EnergyInput) {
	if cell.DecodeFigures == nil || cell.WindowStats == nil {
		return
	}
	cell.CellEnergy = in.Decode(measure.Time(run.Open), measure.Time(run.Close), cell.OutputTokens, cell.TotalTokS)
}

// ScorePrefillEnergy fills a measured prefill row's energy, over its time to first
// token (its cold request's record, on the run's clock).
func ScorePrefillEnergy(row *rundoc.PrefillRow, q *measure.Request, in measure.EnergyInput) {
	if row.PrefillFigures == nil {
		return
	}
	tokens := row.PromptTokens
	if tokens == 0 {
		tokens = row.Context
	}
	if e := in.Prefill(q, tokens); e != nil {
		row.PrefillEnergy = e
	}
}

// scoreCellEnergy reads the meter over a cell's window, logs it and scores it.
func (r *Runner) scoreCellEnergy(ctx context.Context, meta measure.EventMeta, cell *rundoc.DecodeCell, run *CellRun) {
	if cell.DecodeFigures == nil || cell.WindowStats == nil {
		return
	}
	in := r.Opts.ReadEnergy(ctx, measure.Time(run.Open), measure.Time(run.Close))
	if in == nil {
		return
	}
	meta.Phase = "decode"
	r.Opts.Events.Energy(meta, *in)
	ScoreCellEnergy(cell, run, *in)
}

// scorePrefillEnergy reads the meter over a prefill row's time to first token, logs
// it and scores it.
func (r *Runner) scorePrefillEnergy(ctx context.Context, meta measure.EventMeta, row *rundoc.PrefillRow, q *measure.Request) {
	if r.Opts.Telemetry == nil || row.PrefillFigures == nil || q == nil || q.FirstToken == 0 {
		return
	}
	tr := r.Opts.Telemetry.Summary(ctx, measure.Time(q.Sent), measure.Time(q.FirstToken))
	in := measure.EnergyInput{Trace: &tr}
	r.Opts.Events.Energy(meta, in)
	ScorePrefillEnergy(row, q, in)
}

func ptr[T any](v T) *T { return &v }
