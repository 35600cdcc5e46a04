package site

import "github.com/llmbench/llmbench/internal/bench"

// Energy fields of a submitted run (issue 18) make sense like the others: every figure
// finite and non-negative, a price positive.

func (v *validator) powerStats(f string, ps bench.PowerStats) {
	v.optNumber(f+".power_w_mean", ps.PowerWMean)
	v.optNumber(f+".power_w_max", ps.PowerWMax)
	v.optNumber(f+".energy_j", ps.EnergyJ)
	v.optNumber(f+".gpu_util_mean", ps.GPUUtilMean)
	v.optNumber(f+".gpu_memory_used_mib", ps.GPUMemUsedMiB)
	v.count(f+".telemetry_samples", ps.Samples)
	v.count(f+".telemetry_devices", ps.Devices)
}

func (v *validator) cellEnergy(f string, e *bench.CellEnergy) {
	if e == nil {
		return
	}
	v.powerStats(f, e.PowerStats)
	v.optNumber(f+".joules_per_token", e.JoulesPerToken)
	v.optNumber(f+".tok_s_per_w", e.TokSPerW)
	v.optNumber(f+".usd_per_mtok", e.USDPerMTok)
}

func (v *validator) prefillEnergy(f string, e *bench.PrefillEnergy) {
	if e == nil {
		return
	}
	v.powerStats(f, e.PowerStats)
	v.optNumber(f+".joules_per_prompt_token", e.JoulesPerPromptToken)
}

func (v *validator) runEnergy(e *bench.RunEnergy) {
	if e == nil {
		return
	}
	v.number("energy.interval_ms", e.IntervalMs)
	for _, d := range e.Devices {
		v.number("energy.devices.power_limit_w", d.PowerLimitW)
	}
	if p := e.Price; p != nil && !(p.USDPerHour > 0) {
		v.fail("energy.price.usd_per_hour", "must be a positive amount, got %v", p.USDPerHour)
	}
}
