package hw

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/power"
	"github.com/llmbench/llmbench/internal/rundoc"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/telemetry", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func lines(b []byte) []string { return strings.Split(strings.TrimRight(string(b), "\n"), "\n") }

func val(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestParseNvidiaStream reads the streaming query's lines: numbers, "[N/A]" as
// unknown, and the event-reason masks decoded.
func TestParseNvidiaStream(t *testing.T) {
	q := nvidiaQuery{power: "power.draw.instant", reasons: "clocks_event_reasons.active"}
	type row struct {
		Stamp            string
		Device           int
		Power, Util, Mem any
		Throttle         []string
	}
	var got []row
	for _, l := range lines(readFixture(t, "nvidia-smi/stream-2gpu.csv")) {
		p, ok := parseNvidiaLine(l, q, time.UTC)
		if !ok {
			t.Fatalf("line not parsed: %q", l)
		}
		got = append(got, row{p.stamp.Format("15:04:05.000"), p.sample.Device, val(p.sample.PowerW), val(p.sample.UtilPct), val(p.sample.MemUsedMiB), p.sample.Throttle})
	}
	want := []row{
		{"10:53:06.012", 0, 412.37, 97.0, 131072.0, nil},
		{"10:53:06.013", 1, 398.05, 96.0, 131040.0, nil},
		{"10:53:06.214", 0, 688.90, 100.0, 131072.0, []string{"sw_power_cap"}},
		{"10:53:06.215", 1, nil, 100.0, 131040.0, nil},
		{"10:53:06.416", 0, 78.29, 0.0, 0.0, []string{"gpu_idle"}},
		{"10:53:06.417", 1, 401.10, 99.0, 131040.0, []string{"sw_power_cap", "hw_thermal_slowdown"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("stream (-want +got):\n%s", d)
	}
	// A line of another query, or a broken one, is not a sample.
	for _, bad := range []string{"", "2026/11/30 10:53:06.012, 0, 412.37", "garbage, x, 1, 2, 3, 4, 5, 6", `Field "x" is not a valid field to query.`} {
		if _, ok := parseNvidiaLine(bad, q, time.UTC); ok {
			t.Errorf("%q parsed as a sample", bad)
		}
	}
}

// TestNvidiaEnergyCounter: total_energy_consumption is in mJ; the stream keeps the
// counter growing across a reset (a driver reload restarts it from zero).
func TestNvidiaEnergyCounter(t *testing.T) {
	q := nvidiaQuery{power: "power.draw", reasons: "clocks_event_reasons.active", energy: true}
	s := &nvidiaStream{q: q, carry: map[int]float64{}, last: map[int]float64{}}
	var got []any
	recv := time.Date(2026, 11, 30, 10, 53, 6, 30e6, time.UTC)
	for _, l := range lines(readFixture(t, "nvidia-smi/stream-energy.csv")) {
		p, ok := parseNvidiaLine(l, q, time.UTC)
		if !ok {
			t.Fatalf("line not parsed: %q", l)
		}
		got = append(got, val(s.sample(p, recv).EnergyJ))
		recv = recv.Add(200 * time.Millisecond)
	}
	if d := cmp.Diff([]any{1834567.890, 1834650.300, nil}, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-6 })); d != "" {
		t.Errorf("energy (-want +got):\n%s", d)
	}
	reset, _ := parseNvidiaLine("2026/11/30 10:53:07.000, 0, 410.00, 97, 1, 61, 1980, 0x0, 500", q, time.UTC)
	if e := *s.sample(reset, recv).EnergyJ; math.Abs(e-(1834650.300+0.5)) > 1e-6 {
		t.Errorf("after a counter reset: %.3f J, want the old total plus 0.5 J", e)
	}
}

// TestNvidiaSampleClock: a sample is placed at nvidia-smi's own timestamp, shifted by
// the smallest delay seen; a time zone the processes disagree on is absorbed.
func TestNvidiaSampleClock(t *testing.T) {
	q := nvidiaQuery{power: "power.draw"}
	s := &nvidiaStream{q: q, carry: map[int]float64{}, last: map[int]float64{}}
	base := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	zone := 9 * time.Hour // nvidia-smi writes local time in another zone
	var ats []time.Time
	for i, delay := range []time.Duration{40 * time.Millisecond, 5 * time.Millisecond, 300 * time.Millisecond} {
		taken := base.Add(time.Duration(i) * 200 * time.Millisecond)
		line := taken.Add(zone).Format(nvidiaTimeLayout) + ", 0, 100.00, 50, 1, 40, 1000"
		p, ok := parseNvidiaLine(line, q, time.UTC)
		if !ok {
			t.Fatalf("not parsed: %s", line)
		}
		ats = append(ats, s.sample(p, taken.Add(delay)).At)
	}
	// The third line arrived 300 ms late (a buffered pipe): it keeps its reading time.
	if got := ats[2].Sub(base); got != 400*time.Millisecond+5*time.Millisecond {
		t.Errorf("a late line is placed at %v after the base, want 405ms (its stamp + the 5 ms least delay)", got)
	}
}

// TestThrottleNamesCoverTheH200Recording: every clock event reason the real H200's
// `nvidia-smi -q` lists (driver 580.159.04, internal/hw/testdata/nvidia-smi/h200) has
// a bit in the table, and the recorded state (Idle active) decodes from mask 0x1.
func TestThrottleNamesCoverTheH200Recording(t *testing.T) {
	label := map[string]string{
		"Idle": "gpu_idle", "Applications Clocks Setting": "applications_clocks_setting", "SW Power Cap": "sw_power_cap",
		"HW Slowdown": "hw_slowdown", "HW Thermal Slowdown": "hw_thermal_slowdown", "HW Power Brake Slowdown": "hw_power_brake_slowdown",
		"Sync Boost": "sync_boost", "SW Thermal Slowdown": "sw_thermal_slowdown", "Display Clock Setting": "display_clock_setting",
	}
	f, err := os.Open("testdata/nvidia-smi/h200/nvidia-smi-q.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var active, listed []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "Clocks Event Reasons" {
			in = true
			continue
		}
		if in && !strings.HasPrefix(line, "        ") {
			break
		}
		if in {
			k, v, _ := strings.Cut(line, ":")
			name, ok := label[strings.TrimSpace(k)]
			if !ok {
				t.Errorf("the recording lists %q, which the test's label map lacks", strings.TrimSpace(k))
				continue
			}
			listed = append(listed, name)
			if strings.TrimSpace(v) == "Active" {
				active = append(active, name)
			}
		}
	}
	var table []string
	for _, r := range throttleReasons {
		table = append(table, r.name)
	}
	for _, n := range listed {
		if !slices.Contains(table, n) {
			t.Errorf("%s is in the recording, not in throttleReasons", n)
		}
	}
	if len(listed) != len(throttleReasons) {
		t.Errorf("the recording lists %d reasons, the table has %d", len(listed), len(throttleReasons))
	}
	if d := cmp.Diff(active, throttleNames("0x0000000000000001")); d != "" {
		t.Errorf("recorded active reasons vs mask 0x1 (-recording +decoded):\n%s", d)
	}
}

// TestComputeAppsAndCountedGPUs: the GPUs holding a compute process are counted; a
// process that appears later, or one known from before the launch, is foreign.
func TestComputeAppsAndCountedGPUs(t *testing.T) {
	devs := parseNvidiaDevices(readFixture(t, "nvidia-smi/devices-2gpu.csv"))
	if len(devs) != 2 || devs[0].name != "NVIDIA H200" || devs[0].powerLimitW != 700 {
		t.Fatalf("devices: %+v", devs)
	}
	uuids := map[string]int{}
	for _, d := range devs {
		uuids[d.uuid] = d.index
	}
	procs := parseComputeApps(readFixture(t, "nvidia-smi/compute-apps.csv"), uuids)
	if len(procs) != 2 || procs[1].device != 1 || procs[1].usedMiB != 130976 {
		t.Fatalf("processes: %+v", procs)
	}
	if got := countedDevices([]int{0, 1, 2, 3}, procs); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("counted %v, want the two GPUs with processes", got)
	}
	if got := countedDevices([]int{0, 1}, nil); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("no process visible: counted %v, want all", got)
	}
	if got := parseComputeApps([]byte("No running processes found\n"), uuids); len(got) != 0 {
		t.Errorf("no processes: %+v", got)
	}
	owner := newServerProcesses(t.TempDir(), procs, []int{48214}, nil)
	later := append(procs, gpuProcess{pid: 777, name: "train.py", device: 1, usedMiB: 2048}, gpuProcess{pid: 778, name: "other", device: 3})
	got := foreignProcesses(later, []int{0, 1}, owner.isServer)
	want := []string{"pid 48214 /usr/bin/python3 on GPU 1 (130976 MiB)", "pid 777 train.py on GPU 1 (2048 MiB)"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("foreign (-want +got):\n%s", d)
	}
}

// stubRunner answers commands from a table; anything else fails.
type stubRunner map[string]string

func (s stubRunner) Run(_ context.Context, name string, args ...string) ([]byte, error) {
	key := name + " " + strings.Join(args, " ")
	for k, v := range s {
		if strings.HasPrefix(key, k) {
			if strings.HasPrefix(v, "ERR ") {
				return []byte(v[4:]), fmt.Errorf("exit status 2")
			}
			return []byte(v), nil
		}
	}
	return nil, fmt.Errorf("exit status 2")
}

// TestProbeNvidia picks the fields this nvidia-smi accepts: power.draw.instant over
// power.draw, the event reasons by either name, the energy counter only when it reads.
func TestProbeNvidia(t *testing.T) {
	devices := string(readFixture(t, "nvidia-smi/devices-h200.csv"))
	for _, tc := range []struct {
		name string
		run  stubRunner
		want nvidiaQuery
	}{
		{"driver 580 style", stubRunner{
			"nvidia-smi --query-gpu=index,uuid":                        devices,
			"nvidia-smi --query-gpu=index,power.draw.instant":          "0, 78.29\n",
			"nvidia-smi --query-gpu=index,clocks_event_reasons.active": "0, 0x0000000000000001\n",
			"nvidia-smi --query-gpu=index,total_energy_consumption":    `ERR Field "total_energy_consumption" is not a valid field to query.`,
		}, nvidiaQuery{power: "power.draw.instant", reasons: "clocks_event_reasons.active"}},
		{"older driver", stubRunner{
			"nvidia-smi --query-gpu=index,uuid":                           devices,
			"nvidia-smi --query-gpu=index,clocks_throttle_reasons.active": "0, 0x0000000000000000\n",
			"nvidia-smi --query-gpu=index,total_energy_consumption":       "0, 1834567890\n",
		}, nvidiaQuery{power: "power.draw", reasons: "clocks_throttle_reasons.active", energy: true}},
		{"energy not supported on this GPU", stubRunner{
			"nvidia-smi --query-gpu=index,uuid":                     devices,
			"nvidia-smi --query-gpu=index,total_energy_consumption": "0, [Not Supported]\n",
		}, nvidiaQuery{power: "power.draw"}},
	} {
		devs, q, err := probeNvidia(context.Background(), tc.run)
		if err != nil || len(devs) != 1 {
			t.Fatalf("%s: %v %v", tc.name, devs, err)
		}
		if q != tc.want {
			t.Errorf("%s: query %+v, want %+v", tc.name, q, tc.want)
		}
	}
	if _, _, err := probeNvidia(context.Background(), stubRunner{}); err == nil {
		t.Error("no nvidia-smi: no error")
	}
}

// TestParseAMDSMI reads both JSON shapes amd-smi prints (fixtures written from
// amdsmi_cli/amdsmi_commands.py, see testdata/telemetry/README.md).
func TestParseAMDSMI(t *testing.T) {
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	ss, err := parseAMDSMI(readFixture(t, "amd-smi/metric-list.json"), at)
	if err != nil || len(ss) != 2 {
		t.Fatalf("%v %v", ss, err)
	}
	got := [][]any{{ss[0].Device, val(ss[0].PowerW), val(ss[0].EnergyJ), val(ss[0].UtilPct), val(ss[0].MemUsedMiB)},
		{ss[1].Device, val(ss[1].PowerW), val(ss[1].EnergyJ), val(ss[1].UtilPct), val(ss[1].MemUsedMiB)}}
	want := [][]any{{0, 542.0, 8123456.789, 87.0, 121344.0}, {1, nil, nil, 0.0, 68000.0}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("list form (-want +got):\n%s", d)
	}
	ss, err = parseAMDSMI(readFixture(t, "amd-smi/metric-gpu-data.json"), at)
	if err != nil || len(ss) != 1 || *ss[0].PowerW != 214 || *ss[0].EnergyJ != 1500.5 {
		t.Fatalf("gpu_data form: %+v %v", ss, err)
	}
	if _, err := parseAMDSMI([]byte("amd-smi: command failed"), at); err == nil {
		t.Error("no JSON: no error")
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAMDSysfsMeter meters a sysfs tree (the amdgpu files the kernel documents) and
// scores its constant 300 W.
func TestAMDSysfsMeter(t *testing.T) {
	root := t.TempDir()
	dev := filepath.Join(root, "sys/class/drm/card0/device")
	writeFile(t, filepath.Join(dev, "vendor"), "0x1002\n")
	writeFile(t, filepath.Join(dev, "mem_info_vram_total"), "206141652992\n")
	writeFile(t, filepath.Join(dev, "mem_info_vram_used"), "1073741824\n")
	writeFile(t, filepath.Join(dev, "gpu_busy_percent"), "93\n")
	writeFile(t, filepath.Join(dev, "product_name"), "AMD Instinct MI300X\n")
	writeFile(t, filepath.Join(dev, "hwmon/hwmon3/power1_average"), "300000000\n")
	m, err := StartTelemetry(context.Background(), SourceAMD, TelemetryOptions{Root: root, Interval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	st, _, _, _ := measureWindow(t, 50*time.Millisecond, 300*time.Millisecond, m.Summary)
	if st.Reason != "" {
		t.Fatal(st.Reason)
	}
	if math.Abs(*st.PowerWMean-300) > 0.1 || *st.GPUUtilMean != 93 || *st.GPUMemUsedMiB != 1024 {
		t.Errorf("power %v, util %v, memory %v; want 300 W, 93%%, 1024 MiB", *st.PowerWMean, *st.GPUUtilMean, *st.GPUMemUsedMiB)
	}
	if info := m.Info(); m.Name() != "amd-sysfs" || !strings.Contains(info.Counted, "MI300X") || !strings.Contains(info.Counted, "power1_average") {
		t.Errorf("info: %s %+v", m.Name(), info)
	}
}

// TestRAPLWrapAround: the package counter wraps at max_energy_range_uj; energy keeps
// growing by what was really used, and sub-domains are not counted twice.
func TestRAPLWrapAround(t *testing.T) {
	root := t.TempDir()
	pkg := filepath.Join(root, "sys/class/powercap/intel-rapl:0")
	writeFile(t, filepath.Join(pkg, "name"), "package-0\n")
	writeFile(t, filepath.Join(pkg, "max_energy_range_uj"), "262143328850\n")
	writeFile(t, filepath.Join(pkg, "energy_uj"), "262143000000\n")
	writeFile(t, filepath.Join(root, "sys/class/powercap/intel-rapl:0:0/name"), "core\n")
	writeFile(t, filepath.Join(root, "sys/class/powercap/intel-rapl:0:0/energy_uj"), "5\n")
	writeFile(t, filepath.Join(root, "sys/class/powercap/intel-rapl:1/name"), "psys\n")
	zones, err := raplZones(root)
	if err != nil || len(zones) != 1 || zones[0].name != "package-0" {
		t.Fatalf("zones %v, %v", zones, err)
	}
	z := zones[0]
	var got []float64
	for _, uj := range []string{"262143000000", "262143328000", "671150", "2671150"} {
		writeFile(t, z.energy, uj+"\n")
		e, err := z.read()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, math.Round(e*1e6)/1e6)
	}
	// +0.328 J; then the wrap: 850 µJ to the top + 671,150 µJ = 0.672 J; then +2 J.
	want := []float64{0, 0.328, 1, 3}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("energy across the wrap (-want +got):\n%s", d)
	}
	if _, err := raplZones(t.TempDir()); err == nil {
		t.Error("no powercap tree: no error")
	}
}

// TestPowermetricsParse reads powermetrics' text: one sample per block, the combined
// SoC power, placed mid-interval.
func TestPowermetricsParse(t *testing.T) {
	var p powermetricsReader
	now := time.Date(2026, 11, 30, 10, 53, 6, 0, time.UTC)
	var got []any
	var ats []time.Duration
	for _, l := range lines(readFixture(t, "powermetrics/m2max.txt")) {
		if s, ok := p.line(l, now); ok {
			got = append(got, val(s.PowerW))
			ats = append(ats, now.Sub(s.At))
		}
		now = now.Add(5 * time.Millisecond)
	}
	if d := cmp.Diff([]any{19.124, 19.2}, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })); d != "" {
		t.Errorf("watts (-want +got):\n%s", d)
	}
	if len(ats) != 2 || ats[0] < 100*time.Millisecond {
		t.Errorf("samples placed %v before their combined line, want about half the elapsed time", ats)
	}
}

// fakeNvidiaPath puts testdata's fake nvidia-smi first on PATH.
func fakeNvidiaPath(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the fake nvidia-smi is a POSIX shell script using GNU date")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir, err := filepath.Abs("testdata/telemetry/fake-bin")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// TestNvidiaMeterWithFakeSMI: the long-lived stream from a fake nvidia-smi reporting
// two GPUs at 250 W gives 500 W over a window; a process that appears on a counted GPU
// voids the next window's figures.
func TestNvidiaMeterWithFakeSMI(t *testing.T) {
	fakeNvidiaPath(t)
	apps := filepath.Join(t.TempDir(), "apps.csv")
	writeFile(t, apps, "101, vllm, GPU-fake-0000, 70000\n102, vllm, GPU-fake-0001, 70000\n")
	t.Setenv("FAKE_SMI_GPUS", "0 1")
	t.Setenv("FAKE_SMI_WATTS", "250")
	t.Setenv("FAKE_SMI_APPS", apps)
	m, err := StartTelemetry(context.Background(), "auto", TelemetryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.Name() != SourceNvidia {
		t.Fatalf("auto chose %s", m.Name())
	}
	info := m.Info()
	if len(info.Devices) != 2 || info.Devices[1].PowerLimitW != 700 || len(info.Processes) != 2 || !strings.Contains(info.Counted, "power.draw.instant") {
		t.Errorf("info %+v", info)
	}
	// Windows of 2.5 s: on a loaded machine the fake's shell loop runs well below 5 Hz.
	st, _, _, _ := measureWindow(t, 300*time.Millisecond, 2500*time.Millisecond, m.Summary)
	if st.Reason != "" {
		t.Fatal(st.Reason)
	}
	if math.Abs(*st.PowerWMean-500) > 0.01 || st.Devices != 2 || st.Samples < 10 {
		t.Errorf("mean %v W over %d devices, %d samples; want 500 W, 2, at least 10", *st.PowerWMean, st.Devices, st.Samples)
	}
	if !slices.Equal(st.Throttle, []string{"sw_power_cap"}) || *st.GPUUtilMean != 87 || *st.GPUMemUsedMiB != 140000 {
		t.Errorf("throttle %v, util %v, memory %v", st.Throttle, *st.GPUUtilMean, *st.GPUMemUsedMiB)
	}
	writeFile(t, apps, "101, vllm, GPU-fake-0000, 70000\n102, vllm, GPU-fake-0001, 70000\n4242, python3, GPU-fake-0001, 2048\n")
	st, _, _, _ = measureWindow(t, 0, 2500*time.Millisecond, m.Summary)
	if st.EnergyJ != nil || !strings.Contains(st.Reason, "pid 4242 python3 on GPU 1") {
		t.Errorf("a foreign process: energy %v, reason %q", val(st.EnergyJ), st.Reason)
	}
}

// TestNvidiaMeterEnergyCounter: where nvidia-smi accepts total_energy_consumption,
// energy comes from the counter.
func TestNvidiaMeterEnergyCounter(t *testing.T) {
	fakeNvidiaPath(t)
	t.Setenv("FAKE_SMI_ENERGY", "1")
	t.Setenv("FAKE_SMI_WATTS", "300")
	m, err := StartTelemetry(context.Background(), SourceNvidia, TelemetryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	st, _, _, _ := measureWindow(t, 300*time.Millisecond, 2500*time.Millisecond, m.Summary)
	if st.Reason != "" || st.Method != rundoc.MethodCounter {
		t.Fatalf("method %s, reason %s", st.Method, st.Reason)
	}
	// The fake's counter is W × its own elapsed ms; its stamps and counter are taken a
	// few ms apart, so allow 3%.
	if math.Abs(*st.PowerWMean-300)/300 > 0.03 {
		t.Errorf("mean %.1f W from the counter, want 300", *st.PowerWMean)
	}
}

// TestNvidiaMeterSamplerDies: when nvidia-smi exits, the windows it leaves uncovered
// get no figure and say why.
func TestNvidiaMeterSamplerDies(t *testing.T) {
	fakeNvidiaPath(t)
	t.Setenv("FAKE_SMI_DIE_AFTER", "3")
	m, err := StartTelemetry(context.Background(), SourceNvidia, TelemetryOptions{Wait: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	st, _, _, _ := measureWindow(t, 200*time.Millisecond, 1500*time.Millisecond, m.Summary)
	if st.EnergyJ != nil || !strings.Contains(st.Reason, "exit status 15") || !strings.Contains(st.Reason, "Unknown Error") {
		t.Errorf("energy %v, reason %q; want none, and nvidia-smi's exit and message", val(st.EnergyJ), st.Reason)
	}
}

// TestRemoteAgentOverLoopback: the agent serves a meter over real loopback HTTP; a
// wrong token is refused; a right one gets the window's 500 W even though the agent's
// clock runs 37 s ahead of this one (the timestamps exchanged align them).
func TestRemoteAgentOverLoopback(t *testing.T) {
	fakeNvidiaPath(t)
	t.Setenv("FAKE_SMI_GPUS", "0 1")
	m, err := StartTelemetry(context.Background(), SourceNvidia, TelemetryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	srv := httptest.NewServer(agentHandler(m, "s3cret", 37*time.Second))
	defer srv.Close()
	if _, err := DialRemote(context.Background(), srv.URL, "wrong"); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("wrong token: %v, want 401", err)
	}
	r, err := DialRemote(context.Background(), srv.URL, "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	if info := r.Info(); len(info.Devices) != 2 || !strings.HasPrefix(info.Telemetry, srv.URL) {
		t.Errorf("info %+v", info)
	}
	st, tr, start, end := measureWindow(t, 300*time.Millisecond, 2500*time.Millisecond, r.Summary)
	if st.Reason != "" {
		t.Fatal(st.Reason)
	}
	if math.Abs(*st.PowerWMean-500) > 0.01 {
		t.Errorf("remote mean %.2f W, want 500", *st.PowerWMean)
	}
	// The samples are back on this machine's clock: around the window, not 37 s off.
	for _, s := range tr.Samples {
		if s.At.Before(start.Add(-time.Second)) || s.At.After(end.Add(time.Second)) {
			t.Fatalf("sample at %v, window %v–%v: clocks not aligned", s.At, start, end)
		}
	}
}

// FuzzParseNvidiaLine: no line of the stream makes the parser panic, and a parsed line
// has a device index and finite numbers.
func FuzzParseNvidiaLine(f *testing.F) {
	for _, l := range lines(mustRead(f, "testdata/telemetry/nvidia-smi/stream-2gpu.csv")) {
		f.Add(l)
	}
	f.Add("2026/11/30 10:53:06.012, 0, 410.00, 97, 131072, 61, 1980, 0xzz, 1e309")
	q := nvidiaQuery{power: "power.draw", reasons: "clocks_event_reasons.active", energy: true}
	q8 := nvidiaQuery{power: "power.draw", reasons: "clocks_event_reasons.active"}
	f.Fuzz(func(t *testing.T, line string) {
		for _, q := range []nvidiaQuery{q, q8} {
			if l, ok := parseNvidiaLine(line, q, time.UTC); ok {
				for _, p := range []*float64{l.sample.PowerW, l.sample.UtilPct, l.sample.MemUsedMiB, l.energyJ} {
					if p != nil && math.IsNaN(*p) {
						t.Errorf("NaN from %q", line)
					}
				}
			}
		}
	})
}

// FuzzParseAMDSMI: no output of amd-smi makes the parser panic.
func FuzzParseAMDSMI(f *testing.F) {
	f.Add(mustRead(f, "testdata/telemetry/amd-smi/metric-list.json"))
	f.Add(mustRead(f, "testdata/telemetry/amd-smi/metric-gpu-data.json"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = parseAMDSMI(b, time.Time{})
	})
}

func mustRead(f *testing.F, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// TestServerProcessFamily: a GPU process that appears later is the server's when it
// descends from the process listening on the server's port (a /proc tree written the
// way Linux lays it out: proc/net/tcp, proc/PID/stat, proc/PID/fd/N → socket:[inode]).
func TestServerProcessFamily(t *testing.T) {
	root := t.TempDir()
	// 100 `ollama serve` listens on 127.0.0.1:11434 (0x2CAA), socket inode 5555; its child
	// 200 is the model runner; 300 is someone else's job.
	writeFile(t, filepath.Join(root, "proc/net/tcp"), "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"+
		"   0: 0100007F:2CAA 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5555 1 0000000000000000 100 0 0 10 0\n"+
		"   1: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 6666 1 0000000000000000 100 0 0 10 0\n")
	for pid, ppid := range map[int]int{100: 1, 200: 100, 300: 1} {
		writeFile(t, filepath.Join(root, fmt.Sprintf("proc/%d/stat", pid)), fmt.Sprintf("%d (a (weird) name) S %d 0 0", pid, ppid))
		if err := os.MkdirAll(filepath.Join(root, fmt.Sprintf("proc/%d/fd", pid)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("socket:[5555]", filepath.Join(root, "proc/100/fd/3")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("socket:[6666]", filepath.Join(root, "proc/300/fd/3")); err != nil {
		t.Fatal(err)
	}
	listeners := listeningPIDs(root, 11434)
	if !slices.Equal(listeners, []int{100}) {
		t.Fatalf("listeners on 11434: %v", listeners)
	}
	owner := newServerProcesses(root, nil, nil, listeners)
	now := []gpuProcess{{pid: 200, name: "ollama", device: 0}, {pid: 300, name: "train.py", device: 0}}
	if got := foreignProcesses(now, []int{0}, owner.isServer); !slices.Equal(got, []string{"pid 300 train.py on GPU 0 (0 MiB)"}) {
		t.Errorf("foreign %v, want only the job that does not descend from the server", got)
	}
}

// measureWindow waits through a window of length d that opens lead from now, then
// scores what summary returns for it. A loaded machine can stop this process, or the
// fake nvidia-smi's shell loop, for longer than the meter's gap limit, and the meter
// then rightly refuses the window ("… between two samples"). That is the machine, not
// the code under test, so such a window is measured again, at most twice.
func measureWindow(t *testing.T, lead, d time.Duration, summary func(ctx context.Context, start, end time.Time) power.Trace) (rundoc.PowerStats, power.Trace, time.Time, time.Time) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		start := time.Now().Add(lead)
		end := start.Add(d)
		time.Sleep(time.Until(end))
		tr := summary(context.Background(), start, end)
		st := power.Score(tr, start, end)
		if !strings.Contains(st.Reason, "between two samples") || attempt == 3 {
			return st, tr, start, end
		}
		t.Logf("attempt %d: the machine stalled the sampler (%s); measuring again", attempt, st.Reason)
	}
}
