package bench

import (
	"context"
)

// The runner's hook into energy scoring: after a decode window or a prefill row's cold
// request, the telemetry source is read once for that span and the pure functions of
// energy.go score it. Neither changes a cell's status: a missing meter is not a fault
// of the server.

// scoreCellEnergy fills a measured cell's energy and cost.
func (r *Runner) scoreCellEnergy(ctx context.Context, cell *DecodeCell, win Window) {
	if (r.Opts.Telemetry == nil && r.Opts.Price == nil) || cell.DecodeFigures == nil || cell.WindowStats == nil {
		return
	}
	ps := PowerStats{Reason: "no telemetry"}
	if r.Opts.Telemetry != nil {
		ps = ScorePower(r.Opts.Telemetry.Summary(ctx, win.Open, win.Close), win.Open, win.Close)
	}
	cell.CellEnergy = DecodeEnergy(ps, cell.OutputTokens, cell.TotalTokS, r.Opts.Price)
}

// scorePrefillEnergy fills a measured prefill row's energy, over its time to first
// token (its cold request's record, on the run's clock).
func (r *Runner) scorePrefillEnergy(ctx context.Context, row *PrefillRow, q *Request) {
	if r.Opts.Telemetry == nil || row.PrefillFigures == nil || q == nil || q.FirstToken == 0 {
		return
	}
	res := q.result()
	tokens := row.PromptTokens
	if tokens == 0 {
		tokens = row.Context
	}
	ps := ScorePower(r.Opts.Telemetry.Summary(ctx, res.Sent, res.FirstToken), res.Sent, res.FirstToken)
	row.PrefillEnergy = PrefillEnergyFor(ps, tokens)
}
