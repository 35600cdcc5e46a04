package measure

import (
	"context"
	"time"

	"github.com/llmbench/llmbench/internal/power"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Energy scoring, for every load shape: after a measurement, the telemetry source is
// read once for its span, the trace and the price are logged (an "energy" event, or
// inside the shape's own), and the pure functions below score them — the same ones a
// re-score applies to the log. Neither changes a measurement's status: a missing meter
// is not a fault of the server.

// EnergyInput is what scoring a measurement's energy needs besides the measurement:
// the power trace over it (nil: no telemetry) and the price of the machine.
type EnergyInput struct {
	Trace *power.Trace  `json:"trace,omitempty"`
	Price *rundoc.Price `json:"price,omitempty"`
}

// Decode is a decode measurement's energy and cost over [from, to], for its output
// tokens and rate.
func (in EnergyInput) Decode(from, to time.Time, tokens int, tokS float64) *rundoc.CellEnergy {
	ps := rundoc.PowerStats{Reason: "no telemetry"}
	if in.Trace != nil {
		ps = power.Score(*in.Trace, from, to)
	}
	return power.DecodeEnergy(ps, tokens, tokS, in.Price)
}

// Prefill is a prefill's energy over its request's time to first token, for the
// prompt tokens it read; nil without a trace or a first token.
func (in EnergyInput) Prefill(q *Request, tokens int) *rundoc.PrefillEnergy {
	if in.Trace == nil || q == nil || q.FirstToken == 0 {
		return nil
	}
	return power.PrefillEnergyFor(power.Score(*in.Trace, Time(q.Sent), Time(q.FirstToken)), tokens)
}

// ReadEnergy reads the meter over [from, to] for a decode measurement: nil when the
// run is neither metered nor priced, the price alone when it is not metered.
func (o *Options) ReadEnergy(ctx context.Context, from, to time.Time) *EnergyInput {
	if o.Telemetry == nil && o.Price == nil {
		return nil
	}
	in := &EnergyInput{Price: o.Price}
	if o.Telemetry == nil {
		return in
	}
	tr := power.Trace{Problem: "no request of the cell ended: it has no span to meter"}
	if to.After(from) {
		tr = o.Telemetry.Summary(ctx, from, to)
	}
	in.Trace = &tr
	return in
}
