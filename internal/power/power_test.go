package power

import (
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/bench/benchtest"
	"github.com/llmbench/llmbench/internal/rundoc"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// trace samples power(device, seconds since t0) for each device every interval over
// [from, to] seconds, with the counter (the exact integral) when counter is set.
func trace(devices []int, interval time.Duration, from, to float64, power func(dev int, s float64) float64, integral func(dev int, s float64) float64) Trace {
	tr := Trace{Source: "test", Devices: devices, Interval: interval}
	for s := from; s <= to+1e-9; s += interval.Seconds() {
		for _, d := range devices {
			ps := Sample{At: t0.Add(time.Duration(s * float64(time.Second))), Device: d, PowerW: ptr(power(d, s)),
				UtilPct: ptr(50.0 + float64(d)), MemUsedMiB: ptr(1000.0 * float64(d+1))}
			if integral != nil {
				ps.EnergyJ = ptr(integral(d, s))
			}
			tr.Samples = append(tr.Samples, ps)
		}
	}
	return tr
}

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// TestScorePowerArithmetic: two GPUs, one at a constant 300 W and one ramping linearly
// from 100 W by 10 W/s; a window from 1.1 s to 11.1 s holds 3,000 J + (100·10 + 5·(11.1² −
// 1.1²)) J, whatever the window's offset from the samples (trapezoids are exact on
// lines), and the energy counter gives the same.
func TestScorePowerArithmetic(t *testing.T) {
	power := func(d int, s float64) float64 {
		if d == 0 {
			return 300
		}
		return 100 + 10*s
	}
	integral := func(d int, s float64) float64 {
		if d == 0 {
			return 1e6 + 300*s
		}
		return 5e5 + 100*s + 5*s*s
	}
	start, end := at(1.1), at(11.1)
	wantE := 300*10.0 + (100*10 + 5*(11.1*11.1-1.1*1.1))
	for _, counter := range []bool{false, true} {
		var in func(int, float64) float64
		method := rundoc.MethodSamples
		if counter {
			in, method = integral, rundoc.MethodCounter
		}
		st := Score(trace([]int{0, 1}, 200*time.Millisecond, 0, 12, power, in), start, end)
		if st.Reason != "" {
			t.Fatalf("counter %v: %s", counter, st.Reason)
		}
		benchtest.Near(t, "energy", st.EnergyJ, wantE, 0.02)
		benchtest.Near(t, "mean power", st.PowerWMean, wantE/10, 0.06)
		// The summed power peaks at the last sample inside the window (11.0 s): 300 + 210.
		benchtest.Near(t, "max power", st.PowerWMax, 510, 0.06)
		benchtest.Near(t, "util", st.GPUUtilMean, 50.5, 0.06)
		benchtest.Near(t, "memory", st.GPUMemUsedMiB, 3000, 1e-9)
		if st.Method != method || st.Devices != 2 || st.Samples != 100 {
			t.Errorf("counter %v: method %s devices %d samples %d, want %s 2 100", counter, st.Method, st.Devices, st.Samples, method)
		}
	}
}

// TestScorePowerEdges: every way a trace can fall short gives no figure and says why.
func TestScorePowerEdges(t *testing.T) {
	flat := func(int, float64) float64 { return 250 }
	base := func() Trace { return trace([]int{0}, 200*time.Millisecond, 0, 10, flat, nil) }
	for _, tc := range []struct {
		name       string
		tr         Trace
		start, end time.Time
		want       string
	}{
		{"sampler died", func() Trace {
			tr := base()
			tr.Problem = "nvidia-smi exited at 12:00:03: exit status 9"
			return tr
		}(), at(1), at(5), "exit status 9"},
		{"foreign process", func() Trace { tr := base(); tr.Foreign = []string{"pid 4242 python3 on GPU 0"}; return tr }(), at(1), at(5), "pid 4242"},
		{"no devices", Trace{Interval: time.Second}, at(1), at(5), "no device"},
		{"window before the first sample", base(), at(-1), at(5), "at or before the window's start"},
		{"window after the last sample", base(), at(5), at(11), "at or after the window's end"},
		{"too few samples", base(), at(1.05), at(1.65), "too few samples: 3"},
		{"a device without samples", func() Trace { tr := base(); tr.Devices = []int{0, 1}; return tr }(), at(1), at(5), "device 1"},
		{"gap", func() Trace {
			tr := base()
			var keep []Sample
			for _, s := range tr.Samples {
				if s.At.Before(at(3)) || s.At.After(at(5)) {
					keep = append(keep, s)
				}
			}
			tr.Samples = keep
			return tr
		}(), at(1), at(8), "s between two samples"},
	} {
		st := Score(tc.tr, tc.start, tc.end)
		if st.EnergyJ != nil || st.PowerWMean != nil || !strings.Contains(st.Reason, tc.want) {
			t.Errorf("%s: energy %v, reason %q; want no figure and a reason containing %q", tc.name, st.EnergyJ, st.Reason, tc.want)
		}
	}
	// A counter needs only two samples inside: a short prefill still gets energy.
	in := func(_ int, s float64) float64 { return 250 * s }
	st := Score(trace([]int{0}, 200*time.Millisecond, 0, 10, flat, in), at(1.05), at(1.65))
	benchtest.Near(t, "short window by counter", st.EnergyJ, 150, 1e-6)
}

// TestDecodeEnergyAndCost: the cell's figures are the arithmetic of its counts.
func TestDecodeEnergyAndCost(t *testing.T) {
	ps := rundoc.PowerStats{EnergyJ: ptr(9000.0), PowerWMean: ptr(300.0)}
	// 30 s at 300 W over 4,500 tokens (150 tok/s): 2 J/token, 0.5 tokens per joule;
	// $3.60 an hour is $0.001 a second, over 150 tok/s: $6.6667 per million tokens.
	ce := DecodeEnergy(ps, 4500, 150, &rundoc.Price{USDPerHour: 3.6, Source: "--price-per-hour"})
	benchtest.Near(t, "J/token", ce.JoulesPerToken, 2, 1e-9)
	benchtest.Near(t, "tok/s/W", ce.TokSPerW, 0.5, 1e-9)
	benchtest.Near(t, "$/Mtok", ce.USDPerMTok, 6.6667, 1e-9)
	// Without a price: energy still, no cost, the reason stated.
	ce = DecodeEnergy(ps, 4500, 150, nil)
	if ce.USDPerMTok != nil || !strings.Contains(ce.CostReason, "--price-per-hour") {
		t.Errorf("no price: $/Mtok %v, reason %q", ce.USDPerMTok, ce.CostReason)
	}
	// Without telemetry: cost still, energy fields null with the reason kept.
	ce = DecodeEnergy(rundoc.PowerStats{Reason: "no telemetry"}, 4500, 150, &rundoc.Price{USDPerHour: 3.6})
	if ce.JoulesPerToken != nil || ce.TokSPerW != nil || ce.Reason != "no telemetry" || ce.USDPerMTok == nil {
		t.Errorf("no telemetry: %+v", ce)
	}
	pe := PrefillEnergyFor(rundoc.PowerStats{EnergyJ: ptr(410.0)}, 8192)
	benchtest.Near(t, "J/prompt token", pe.JoulesPerPromptToken, 410.0/8192, 1e-6)
}
