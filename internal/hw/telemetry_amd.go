package hw

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/clock"
	"github.com/llmbench/llmbench/internal/power"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// AMD GPUs are metered from files or a short command, read every interval: the amdgpu
// driver's hwmon power (sysfs), or amd-smi's JSON where no such file is readable.

// amdCard is one amdgpu device's readable files.
type amdCard struct {
	index int
	name  string
	power string // hwmon power1_average or power1_input, µW
	busy  string // gpu_busy_percent
	vram  string // mem_info_vram_used, bytes
}

// amdCards finds the amdgpu devices (amdDevices) and their hwmon power files. The
// amdgpu documentation: power1_average is the average power the GPU uses, in
// microwatts; newer kernels add power1_input, the instantaneous power, on GPUs that
// have it.
func amdCards(root string) []amdCard {
	var cards []amdCard
	for _, d := range amdDevices(root) {
		c := amdCard{index: len(cards), name: cmp.Or(d.product, "AMD GPU")}
		for _, f := range []string{"power1_input", "power1_average"} {
			if m, _ := filepath.Glob(filepath.Join(d.dir, "hwmon/hwmon*", f)); len(m) > 0 {
				c.power = m[0]
				break
			}
		}
		c.busy = filepath.Join(d.dir, "gpu_busy_percent")
		c.vram = filepath.Join(d.dir, "mem_info_vram_used")
		cards = append(cards, c)
	}
	return cards
}

// startAMD meters AMD GPUs from sysfs when their power files are readable, else by
// polling amd-smi.
func startAMD(ctx context.Context, o TelemetryOptions) (*Meter, error) {
	cards := amdCards(o.Root)
	readable := len(cards) > 0
	for _, c := range cards {
		if c.power == "" {
			readable = false
			break
		}
		if _, err := readNumber(c.power); err != nil {
			readable = false
			break
		}
	}
	if readable {
		return startAMDSysfs(ctx, o, cards), nil
	}
	return startAMDSMI(ctx, o)
}

func startAMDSysfs(ctx context.Context, o TelemetryOptions, cards []amdCard) *Meter {
	var infos []rundoc.TelemetryDevice
	var devs, names []string
	var idx []int
	for _, c := range cards {
		infos = append(infos, rundoc.TelemetryDevice{Index: c.index, Name: c.name})
		idx = append(idx, c.index)
		devs = append(devs, fmt.Sprintf("GPU %d (%s)", c.index, c.name))
		names = append(names, filepath.Base(c.power))
	}
	what := fmt.Sprintf("power of %s from the amdgpu driver's hwmon %s (sysfs). The host's CPU, memory and power supply are not included.", strings.Join(devs, ", "), strings.Join(uniq(names), "/"))
	m := newMeter("amd-sysfs", o, infos, idx, what)
	m.run(ctx, func(ctx context.Context) error {
		tick := time.NewTicker(o.Interval)
		defer tick.Stop()
		for {
			now := time.Now()
			var ss []power.Sample
			for _, c := range cards {
				uw, err := readNumber(c.power)
				if err != nil {
					m.fail("reading " + c.power + ": " + err.Error())
					continue
				}
				s := power.Sample{At: now, Device: c.index, PowerW: fptr(uw / 1e6)}
				if v, err := readNumber(c.busy); err == nil {
					s.UtilPct = fptr(v)
				}
				if v, err := readNumber(c.vram); err == nil {
					s.MemUsedMiB = fptr(v / (1 << 20))
				}
				ss = append(ss, s)
			}
			m.add(ss...)
			select {
			case <-ctx.Done():
				return nil
			case <-tick.C:
			}
		}
	})
	return m
}

// uniq keeps the first of each value, in order.
func uniq(xs []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// AMDSMIQuery is the amd-smi command polled where sysfs cannot be read: power, the
// energy accumulator, activity and VRAM in JSON.
var AMDSMIQuery = []string{"metric", "--power", "--energy", "--usage", "--mem-usage", "--json"}

// amdsmiValue reads amd-smi's {"value": X, "unit": U} (or a bare number); "N/A" is nil.
func amdsmiValue(raw json.RawMessage) (float64, string, bool) {
	var vu struct {
		Value json.RawMessage `json:"value"`
		Unit  string          `json:"unit"`
	}
	if json.Unmarshal(raw, &vu) == nil && vu.Value != nil {
		var f float64
		if json.Unmarshal(vu.Value, &f) == nil {
			return f, vu.Unit, true
		}
		return 0, "", false
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil {
		return f, "", true
	}
	return 0, "", false
}

// amdsmiGPU is one GPU's metrics; a whole group can be "N/A" instead of an object.
type amdsmiGPU struct {
	GPU    int             `json:"gpu"`
	Power  json.RawMessage `json:"power"`
	Energy json.RawMessage `json:"energy"`
	Usage  json.RawMessage `json:"usage"`
	Mem    json.RawMessage `json:"mem_usage"`
}

// amdsmiGroup reads one group's entries; "N/A" or anything else is empty.
func amdsmiGroup(raw json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// parseAMDSMI reads `amd-smi metric --power --energy --usage --mem-usage --json`: a list
// of per-GPU objects (amd-smi 24.x, amdsmi_cli/amdsmi_commands.py) or the same list
// under "gpu_data" (later releases). socket_power is in W, the energy accumulator's
// total_energy_consumption in J, gfx_activity in %, used_vram in MB.
func parseAMDSMI(out []byte, at time.Time) ([]power.Sample, error) {
	start := strings.IndexAny(string(out), "[{")
	if start < 0 {
		return nil, errors.New("amd-smi printed no JSON")
	}
	out = out[start:] // a warning line may come first
	var list []amdsmiGPU
	if err := json.Unmarshal(out, &list); err != nil {
		var wrapped struct {
			GPUData []amdsmiGPU `json:"gpu_data"`
		}
		if err2 := json.Unmarshal(out, &wrapped); err2 != nil {
			return nil, fmt.Errorf("parsing amd-smi JSON: %w", err)
		}
		list = wrapped.GPUData
	}
	var ss []power.Sample
	for _, g := range list {
		s := power.Sample{At: at, Device: g.GPU}
		if v, _, ok := amdsmiValue(amdsmiGroup(g.Power)["socket_power"]); ok {
			s.PowerW = fptr(v)
		}
		if v, unit, ok := amdsmiValue(amdsmiGroup(g.Energy)["total_energy_consumption"]); ok {
			switch unit {
			case "", "J":
				s.EnergyJ = fptr(v)
			case "mJ":
				s.EnergyJ = fptr(v / 1000)
			case "uJ", "µJ":
				s.EnergyJ = fptr(v / 1e6)
			}
		}
		if v, _, ok := amdsmiValue(amdsmiGroup(g.Usage)["gfx_activity"]); ok {
			s.UtilPct = fptr(v)
		}
		if v, _, ok := amdsmiValue(amdsmiGroup(g.Mem)["used_vram"]); ok {
			s.MemUsedMiB = fptr(v)
		}
		ss = append(ss, s)
	}
	if len(ss) == 0 {
		return nil, errors.New("amd-smi listed no GPU")
	}
	return ss, nil
}

// startAMDSMI polls amd-smi as often as it answers (it is a Python program: each call
// takes a noticeable fraction of a second, so the rate may fall below 5 Hz; the
// energy accumulator, where reported, makes that harmless). Each sample is placed at
// the middle of its call.
func startAMDSMI(ctx context.Context, o TelemetryOptions) (*Meter, error) {
	if _, err := exec.LookPath("amd-smi"); err != nil {
		return nil, errors.New("amd-smi: not found on PATH and no readable amdgpu hwmon power file")
	}
	run := ExecRunner{}
	poll := func(ctx context.Context) ([]power.Sample, error) {
		before := time.Now()
		out, err := run.Run(ctx, "amd-smi", AMDSMIQuery...)
		if err != nil {
			return nil, err
		}
		after := time.Now()
		return parseAMDSMI(out, before.Add(after.Sub(before)/2))
	}
	first, err := poll(ctx)
	if err != nil {
		return nil, fmt.Errorf("amd-smi: %w", err)
	}
	var infos []rundoc.TelemetryDevice
	var idx []int
	var names []string
	energy := true
	for _, s := range first {
		infos = append(infos, rundoc.TelemetryDevice{Index: s.Device, Name: "AMD GPU"})
		idx = append(idx, s.Device)
		names = append(names, fmt.Sprintf("GPU %d", s.Device))
		energy = energy && s.EnergyJ != nil
	}
	what := "socket power of " + strings.Join(names, ", ") + " as amd-smi reports it"
	if energy {
		what += " (energy from its accumulator)"
	}
	m := newMeter(SourceAMD, o, infos, idx, what+". The host's CPU, memory and power supply are not included.")
	m.add(first...)
	m.run(ctx, func(ctx context.Context) error {
		for clock.Sleep(ctx, o.Interval) {
			ss, err := poll(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				m.fail("amd-smi: " + err.Error())
				continue
			}
			m.add(ss...)
		}
		return nil
	})
	return m, nil
}
