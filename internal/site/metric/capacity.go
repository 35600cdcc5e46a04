package metric

import (
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// This file holds the capacity metrics (issue 36): how many users a run serves, as
// internal/capacity answers it, ranked per GPU, per kW and per $/h.

// AxisTarget: values per context and target per-user speed (tok/s), the level: the
// capacity metrics, at each speed of capacity.TableSpeeds and the default first-token
// target (1 s). A row with no answer (its first cell not valid) has no value; a row
// that serves no one has 0.
const AxisTarget Axis = "target"

// DefaultSpeed is the capacity metrics' level when a ranking names none.
const DefaultSpeed = capacity.DefaultTokS

// capacityValues reads one figure of every answered row at every table speed.
func capacityValues(figure func(capacity.Row) *float64) func(*rundoc.Run) []CellValue {
	return func(r *rundoc.Run) []CellValue {
		if len(r.Decode) == 0 {
			return nil
		}
		var out []CellValue
		for _, speed := range capacity.TableSpeeds {
			for _, row := range capacity.Of(r, capacity.DefaultTargets().WithSpeed(speed)).Rows {
				if !row.Answered() {
					continue
				}
				if v := figure(row); v != nil {
					out = append(out, CellValue{Context: row.Context, Level: speed, Value: *v})
				}
			}
		}
		return out
	}
}

// The capacity metrics join the registry after the matrix's and the open loop's; the
// leaderboard's menu lists them with the matrix's (they are not open-loop metrics).
func init() { CellMetrics = append(CellMetrics, capacityMetrics...) }

var capacityMetrics = []CellMetric{
	{Name: "users", Axis: AxisTarget, Unit: "users", Decimals: 0,
		Values: capacityValues(func(r capacity.Row) *float64 { u := float64(r.Users); return &u })},
	{Name: "users_per_gpu", Axis: AxisTarget, Unit: "users/GPU", Decimals: 1,
		Values: capacityValues(func(r capacity.Row) *float64 { return r.PerGPU })},
	{Name: "users_per_kw", Axis: AxisTarget, Unit: "users/kW", Decimals: 1,
		Values: capacityValues(func(r capacity.Row) *float64 { return r.PerKW })},
	{Name: "users_per_usd_h", Axis: AxisTarget, Unit: "users per $/h", Decimals: 2,
		Values: capacityValues(func(r capacity.Row) *float64 { return r.PerUSDHour })},
}
