package bench

import (
	"context"
	"time"

	"github.com/llmbench/llmbench/internal/power"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// The runner's hook into energy scoring: after a decode window or a prefill row's cold
// request, the telemetry source is read once for that span, the trace and the price are
// logged ("energy" event), and the pure functions below score them — the same ones
// RescoreAll applies to the log. Neither changes a cell's status: a missing meter is
// not a fault of the server.

// EnergyInput is what scoring a measurement's energy needs besides the measurement:
// the power trace over it (nil: no telemetry) and the price of the machine.
type EnergyInput struct {
	Trace *power.Trace  `json:"trace,omitempty"`
	Price *rundoc.Price `json:"price,omitempty"`
}

// ScoreCellEnergy fills a measured cell's energy and cost from its window's trace.
func ScoreCellEnergy(cell *rundoc.DecodeCell, run *CellRun, in EnergyInput) {
	if cell.DecodeFigures == nil || cell.WindowStats == nil {
		return
	}
	ps := rundoc.PowerStats{Reason: "no telemetry"}
	if in.Trace != nil {
		open, close := time.Unix(0, run.Open), time.Unix(0, run.Close)
		ps = power.Score(*in.Trace, open, close)
	}
	cell.CellEnergy = power.DecodeEnergy(ps, cell.OutputTokens, cell.TotalTokS, in.Price)
}

// ScorePrefillEnergy fills a measured prefill row's energy, over its time to first
// token (its cold request's record, on the run's clock).
func ScorePrefillEnergy(row *rundoc.PrefillRow, q *Request, in EnergyInput) {
	if in.Trace == nil || row.PrefillFigures == nil || q == nil || q.FirstToken == 0 {
		return
	}
	res := q.Result()
	tokens := row.PromptTokens
	if tokens == 0 {
		tokens = row.Context
	}
	row.PrefillEnergy = power.PrefillEnergyFor(power.Score(*in.Trace, res.Sent, res.FirstToken), tokens)
}

// scoreCellEnergy reads the meter over a cell's window, logs it and scores it.
func (r *Runner) scoreCellEnergy(ctx context.Context, meta EventMeta, cell *rundoc.DecodeCell, run *CellRun) {
	if (r.Opts.Telemetry == nil && r.Opts.Price == nil) || cell.DecodeFigures == nil || cell.WindowStats == nil {
		return
	}
	in := EnergyInput{Price: r.Opts.Price}
	if r.Opts.Telemetry != nil {
		tr := r.Opts.Telemetry.Summary(ctx, time.Unix(0, run.Open), time.Unix(0, run.Close))
		in.Trace = &tr
	}
	meta.Phase = "decode"
	r.Opts.Events.Energy(meta, in)
	ScoreCellEnergy(cell, run, in)
}

// scorePrefillEnergy reads the meter over a prefill row's time to first token, logs
// it and scores it.
func (r *Runner) scorePrefillEnergy(ctx context.Context, meta EventMeta, row *rundoc.PrefillRow, q *Request) {
	if r.Opts.Telemetry == nil || row.PrefillFigures == nil || q == nil || q.FirstToken == 0 {
		return
	}
	res := q.Result()
	tr := r.Opts.Telemetry.Summary(ctx, res.Sent, res.FirstToken)
	in := EnergyInput{Trace: &tr}
	r.Opts.Events.Energy(meta, in)
	ScorePrefillEnergy(row, q, in)
}

func ptr[T any](v T) *T { return &v }
