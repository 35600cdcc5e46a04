// Package power owns power telemetry's samples and their scoring: what a meter saw
// around a measurement window (Trace), turned into the window's watts and joules
// (Score) and a cell's or a prefill row's energy figures in the run document
// (DecodeEnergy, PrefillEnergyFor). Everything here is a pure function of the trace,
// the window and the counts, so a re-scored run gives the same numbers as the live
// one; internal/hw reads the meters, internal/bench calls Score after each window
// and internal/openloop over each cell's span.
package power

import (
	"context"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// Telemetry is the power meter of the server's machine. Summary is called once per
// measurement window, after it closed: it returns every sample from just before start
// to just after end (waiting a little for the samples after end to arrive), for every
// device counted, and says why the trace cannot be trusted when it cannot.
type Telemetry interface {
	Summary(ctx context.Context, start, end time.Time) Trace
}

// Sample is one reading of one device. Pointer fields are nil where the source
// does not report that quantity.
type Sample struct {
	At     time.Time `json:"at"`
	Device int       `json:"device"`
	// PowerW is the device's power draw in watts.
	PowerW *float64 `json:"power_w,omitempty"`
	// EnergyJ is a cumulative energy counter in joules (NVIDIA's
	// total_energy_consumption, RAPL's energy_uj, amd-smi's accumulator), already
	// unwrapped by the source so that it only grows.
	EnergyJ    *float64 `json:"energy_j,omitempty"`
	UtilPct    *float64 `json:"util_pct,omitempty"`
	MemUsedMiB *float64 `json:"mem_used_mib,omitempty"`
	// Throttle names the clock event reasons active at the sample (NVML's names:
	// sw_power_cap, hw_thermal_slowdown, …).
	Throttle []string `json:"throttle,omitempty"`
}

// Trace is what a telemetry source saw around one window.
type Trace struct {
	Source string `json:"source"`
	// Devices are the devices counted: every one of them must be covered by samples.
	Devices []int `json:"devices"`
	// Interval is how often the source samples.
	Interval time.Duration `json:"interval_ns"`
	Samples  []Sample      `json:"samples"`
	// Problem, when set, says why no figure may come from this trace (the sampler
	// died, the source could not be read).
	Problem string `json:"problem,omitempty"`
	// Foreign lists compute processes on the counted devices that are not the
	// server's: their power would be billed to the server's tokens.
	Foreign []string `json:"foreign,omitempty"`
}

// The least a window must carry before a figure comes from it. A power trace is
// integrated between samples, so a window shorter than a few sampling intervals says
// more about where the samples fell than about the server; an energy counter is read
// at the window's edges by interpolation, so two samples inside suffice.
const (
	minPowerSamples   = 5
	minCounterSamples = 2
)

// Score computes a window's power figures from a trace: energy from the counter
// when every sample carries one (interpolated at the window's edges), else by
// integrating the power samples (trapezoids, interpolated at the edges); mean power is
// energy over the window's length; the maximum is that of the devices' summed power.
func Score(tr Trace, start, end time.Time) rundoc.PowerStats {
	st := rundoc.PowerStats{Devices: len(tr.Devices)}
	fail := func(reason string) rundoc.PowerStats {
		st.Reason = reason
		return st
	}
	length := end.Sub(start).Seconds()
	switch {
	case tr.Problem != "":
		return fail(tr.Problem)
	case len(tr.Foreign) > 0:
		return fail(rundoc.EnergyForeign.Write(strings.Join(tr.Foreign, ", ")))
	case len(tr.Devices) == 0:
		return fail(rundoc.EnergyNoDevice.Write())
	case !(length > 0):
		return fail(rundoc.EnergyNoLength.Write())
	}
	w, reason := windowSamples(tr, start, end)
	st.Samples = w.inside
	if reason != "" {
		return fail(reason)
	}
	var total float64
	for _, dev := range tr.Devices {
		ss := w.byDevice[dev]
		var e float64
		var ok bool
		if w.counter {
			e, ok = counterEnergy(ss, start, end)
		} else {
			e, ok = integratePower(ss, start, end)
		}
		if !ok {
			return fail(rundoc.EnergyNoReading.Write(strconv.Itoa(dev)))
		}
		total += e
	}
	st.Method = rundoc.MethodSamples
	if w.counter {
		st.Method = rundoc.MethodCounter
	}
	st.EnergyJ = ptr(round(total, 2))
	st.PowerWMean = ptr(round(total/length, 1))
	w.describe(&st, tr.Devices, start, end)
	return st
}

// powerWindow is a trace's samples by device, sorted, with what the window's hold.
type powerWindow struct {
	byDevice map[int][]Sample
	counter  bool // every sample has the energy counter
	inside   int
	utilSum  float64
	utilN    int
	throttle map[string]bool
}

// windowSamples sorts the trace's samples by device and checks they cover the window
// (a sample at or before its start and at or after its end, no gap over the
// sampler's limit, enough inside); reason says why not.
func windowSamples(tr Trace, start, end time.Time) (powerWindow, string) {
	w := powerWindow{byDevice: map[int][]Sample{}, counter: true, throttle: map[string]bool{}}
	for _, s := range tr.Samples {
		w.byDevice[s.Device] = append(w.byDevice[s.Device], s)
	}
	for _, dev := range tr.Devices {
		ss := w.byDevice[dev]
		sort.SliceStable(ss, func(i, j int) bool { return ss[i].At.Before(ss[j].At) })
		w.byDevice[dev] = ss
		w.add(ss, start, end)
		if len(ss) == 0 || ss[0].At.After(start) {
			return w, rundoc.EnergyNoStart.Write(strconv.Itoa(dev))
		}
		if ss[len(ss)-1].At.Before(end) {
			return w, rundoc.EnergyNoEnd.Write(strconv.Itoa(dev))
		}
		if gap := largestGap(ss, start, end); gap > maxGap(tr.Interval) {
			return w, rundoc.EnergyGap.Write(strconv.Itoa(dev), strconv.FormatFloat(gap.Seconds(), 'f', 1, 64), tr.Interval.String())
		}
	}
	need := minPowerSamples
	if w.counter {
		need = minCounterSamples
	}
	for _, dev := range tr.Devices {
		if n := countInside(w.byDevice[dev], start, end); n < need {
			return w, rundoc.EnergyTooFew.Write(strconv.Itoa(n), strconv.Itoa(dev), strconv.FormatFloat(end.Sub(start).Seconds(), 'f', 2, 64), tr.Interval.String(), strconv.Itoa(need))
		}
	}
	return w, ""
}

// add counts a device's samples inside the window, their utilization and clock events.
func (w *powerWindow) add(ss []Sample, start, end time.Time) {
	for _, s := range ss {
		if s.At.After(start) && !s.At.After(end) {
			w.inside++
			if s.UtilPct != nil {
				w.utilSum += *s.UtilPct
				w.utilN++
			}
			for _, r := range s.Throttle {
				w.throttle[r] = true
			}
		}
		if s.EnergyJ == nil {
			w.counter = false
		}
	}
}

// describe sets the window's peak power, mean utilization, peak memory and clock
// events.
func (w *powerWindow) describe(st *rundoc.PowerStats, devices []int, start, end time.Time) {
	if peak, ok := peakSummedPower(w.byDevice, devices, start, end); ok {
		st.PowerWMax = ptr(round(peak, 1))
	}
	if w.utilN > 0 {
		st.GPUUtilMean = ptr(round(w.utilSum/float64(w.utilN), 1))
	}
	if mem, ok := peakSummedMemory(w.byDevice, devices, start, end); ok {
		st.GPUMemUsedMiB = ptr(mem)
	}
	for r := range w.throttle {
		st.Throttle = append(st.Throttle, r)
	}
	slices.Sort(st.Throttle)
}

// maxGap is the longest silence between two samples a window may contain: a few missed
// readings are tolerated, a stalled sampler is not.
func maxGap(interval time.Duration) time.Duration {
	if interval <= 0 {
		interval = 200 * time.Millisecond
	}
	return max(4*interval, time.Second)
}

func countInside(ss []Sample, start, end time.Time) int {
	n := 0
	for _, s := range ss {
		if s.At.After(start) && !s.At.After(end) {
			n++
		}
	}
	return n
}

// largestGap is the longest time between consecutive samples that overlaps the window.
func largestGap(ss []Sample, start, end time.Time) time.Duration {
	var gap time.Duration
	for i := 1; i < len(ss); i++ {
		if ss[i].At.Before(start) || ss[i-1].At.After(end) {
			continue
		}
		gap = max(gap, ss[i].At.Sub(ss[i-1].At))
	}
	return gap
}

// valueAt interpolates a quantity linearly at t between the two samples that carry it
// on either side of t.
func valueAt(ss []Sample, t time.Time, get func(Sample) *float64) (float64, bool) {
	var prev *float64
	var prevAt time.Time
	for _, s := range ss {
		v := get(s)
		if v == nil {
			continue
		}
		if s.At.Equal(t) {
			return *v, true
		}
		if s.At.After(t) {
			if prev == nil {
				return 0, false
			}
			f := t.Sub(prevAt).Seconds() / s.At.Sub(prevAt).Seconds()
			return *prev + (*v-*prev)*f, true
		}
		prev, prevAt = v, s.At
	}
	return 0, false
}

func powerOf(s Sample) *float64  { return s.PowerW }
func energyOf(s Sample) *float64 { return s.EnergyJ }

// counterEnergy is the counter's increase over the window.
func counterEnergy(ss []Sample, start, end time.Time) (float64, bool) {
	a, ok1 := valueAt(ss, start, energyOf)
	b, ok2 := valueAt(ss, end, energyOf)
	if !ok1 || !ok2 || b < a {
		return 0, false
	}
	return b - a, true
}

// integratePower integrates power over the window by trapezoids between the samples,
// with the power at the window's edges interpolated.
func integratePower(ss []Sample, start, end time.Time) (float64, bool) {
	p0, ok := valueAt(ss, start, powerOf)
	if !ok {
		return 0, false
	}
	pEnd, ok := valueAt(ss, end, powerOf)
	if !ok {
		return 0, false
	}
	var e float64
	t, p := start, p0
	for _, s := range ss {
		if s.PowerW == nil || !s.At.After(start) || !s.At.Before(end) {
			continue
		}
		e += (p + *s.PowerW) / 2 * s.At.Sub(t).Seconds()
		t, p = s.At, *s.PowerW
	}
	e += (p + pEnd) / 2 * end.Sub(t).Seconds()
	return e, true
}

// peakSummedPower is the largest sum of every device's power at one instant, taken at
// each sample time inside the window with the other devices interpolated.
func peakSummedPower(byDevice map[int][]Sample, devices []int, start, end time.Time) (float64, bool) {
	peak, found := 0.0, false
	for _, d := range devices {
		for _, s := range byDevice[d] {
			if s.PowerW == nil || !s.At.After(start) || s.At.After(end) {
				continue
			}
			sum, ok := 0.0, true
			for _, o := range devices {
				v, has := valueAt(byDevice[o], s.At, powerOf)
				if !has {
					ok = false
					break
				}
				sum += v
			}
			if ok {
				peak, found = max(peak, sum), true
			}
		}
	}
	return peak, found
}

// peakSummedMemory is the most memory the devices held together: each device's most
// inside the window, summed (memory changes slowly during a cell).
func peakSummedMemory(byDevice map[int][]Sample, devices []int, start, end time.Time) (float64, bool) {
	total, found := 0.0, false
	for _, d := range devices {
		best, has := 0.0, false
		for _, s := range byDevice[d] {
			if s.MemUsedMiB != nil && s.At.After(start) && !s.At.After(end) {
				best, has = max(best, *s.MemUsedMiB), true
			}
		}
		if has {
			total += best
			found = true
		}
	}
	return total, found
}

// DecodeEnergy turns a decode window's power figures into the cell's energy and cost:
// J/token = energy / output tokens in the window, tok/s/W = output tokens / energy,
// $/Mtok = price per second / total tok/s × 10⁶ (which needs no telemetry at all).
func DecodeEnergy(ps rundoc.PowerStats, outputTokens int, totalTokS float64, price *rundoc.Price) *rundoc.CellEnergy {
	ce := &rundoc.CellEnergy{PowerStats: ps}
	if ps.EnergyJ != nil {
		switch {
		case outputTokens <= 0:
			ce.Reason = "no output token arrived in the window"
		case *ps.EnergyJ <= 0:
			ce.Reason = "the telemetry source reported no energy for the window"
		default:
			ce.JoulesPerToken = ptr(round(*ps.EnergyJ/float64(outputTokens), 4))
			ce.TokSPerW = ptr(round(float64(outputTokens) / *ps.EnergyJ, 4))
		}
	}
	ce.USDPerMTok, ce.CostReason = rundoc.CostPerMTok(price, totalTokS)
	return ce
}

// PrefillEnergyFor turns a prefill row's power figures (over the cold request's time to
// first token) into joules per prompt token.
func PrefillEnergyFor(ps rundoc.PowerStats, promptTokens int) *rundoc.PrefillEnergy {
	pe := &rundoc.PrefillEnergy{PowerStats: ps}
	if ps.EnergyJ != nil && promptTokens > 0 && *ps.EnergyJ > 0 {
		pe.JoulesPerPromptToken = ptr(round(*ps.EnergyJ/float64(promptTokens), 6))
	}
	return pe
}

func ptr[T any](v T) *T { return &v }

func round(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}
