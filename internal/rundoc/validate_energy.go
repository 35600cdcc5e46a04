package rundoc

// Energy fields of a submitted run (issue 18) make sense like the others: every figure
// finite, non-negative and plausible, a price positive.

// Bounds of the energy figures, far beyond any real machine.
const (
	maxPowerW  = 1e7  // all devices of one run together
	maxEnergyJ = 1e13 // a 10 MW machine for 10⁶ s
	maxPerUnit = 1e9  // joules per token, tok/s per W, USD per million tokens
)

func (v *validator) powerStats(f string, ps PowerStats) {
	v.optNumber(f+".power_w_mean", ps.PowerWMean, maxPowerW)
	v.optNumber(f+".power_w_max", ps.PowerWMax, maxPowerW)
	v.optNumber(f+".energy_j", ps.EnergyJ, maxEnergyJ)
	v.optNumber(f+".gpu_util_mean", ps.GPUUtilMean, 100)
	v.optNumber(f+".gpu_memory_used_mib", ps.GPUMemUsedMiB, float64(maxGPUs)*maxVRAMBytes/(1<<20))
	v.count(f+".telemetry_samples", ps.Samples)
	v.count(f+".telemetry_devices", ps.Devices)
}

func (v *validator) cellEnergy(f string, e *CellEnergy) {
	if e == nil {
		return
	}
	v.powerStats(f, e.PowerStats)
	v.optNumber(f+".joules_per_token", e.JoulesPerToken, maxPerUnit)
	v.optNumber(f+".tok_s_per_w", e.TokSPerW, maxPerUnit)
	v.optNumber(f+".usd_per_mtok", e.USDPerMTok, maxPerUnit)
}

func (v *validator) prefillEnergy(f string, e *PrefillEnergy) {
	if e == nil {
		return
	}
	v.powerStats(f, e.PowerStats)
	v.optNumber(f+".joules_per_prompt_token", e.JoulesPerPromptToken, maxPerUnit)
}

func (v *validator) runEnergy(e *RunEnergy) {
	if e == nil {
		return
	}
	v.number("energy.interval_ms", e.IntervalMs, maxMs)
	for _, d := range e.Devices {
		v.number("energy.devices.power_limit_w", d.PowerLimitW, maxWatts)
	}
	if p := e.Price; p != nil && !(p.USDPerHour > 0) {
		v.fail("energy.price.usd_per_hour", "must be a positive amount, got %v", p.USDPerHour)
	}
}
