package hw

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/clock"
	"github.com/llmbench/llmbench/internal/power"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// NVIDIA telemetry: one nvidia-smi process for the whole run, looping every 200 ms
// (-lms) over
//
//	timestamp,index,POWER,utilization.gpu,memory.used,temperature.gpu,clocks.sm,REASONS[,total_energy_consumption]
//
// and parsed line by line as it streams. POWER is power.draw.instant where the driver
// knows it, else power.draw (on Ampere and newer a one-second average, which lags a
// change of load by up to a second: harmless over a 30 s window, not over a 0.3 s
// prefill). REASONS is clocks_event_reasons.active (clocks_throttle_reasons.active on
// drivers before the rename). total_energy_consumption, NVML's energy counter in mJ,
// is asked for only where this nvidia-smi accepts the field: public reports say many
// drivers reject it ("not a valid field to query"), and the power samples are
// integrated instead.

// nvidiaQuery is the streaming query's variable part, found by probing.
type nvidiaQuery struct {
	power   string // power.draw.instant | power.draw
	reasons string // clocks_event_reasons.active | clocks_throttle_reasons.active | ""
	energy  bool   // total_energy_consumption
}

func (q nvidiaQuery) fields() []string {
	f := []string{"timestamp", "index", q.power, "utilization.gpu", "memory.used", "temperature.gpu", "clocks.sm"}
	if q.reasons != "" {
		f = append(f, q.reasons)
	}
	if q.energy {
		f = append(f, "total_energy_consumption")
	}
	return f
}

// args is the streaming command line.
func (q nvidiaQuery) args(interval time.Duration) []string {
	return []string{"--query-gpu=" + strings.Join(q.fields(), ","), "--format=csv,noheader,nounits", "-lms", strconv.FormatInt(interval.Milliseconds(), 10)}
}

// nvidiaDevice is one GPU as the probe sees it.
type nvidiaDevice struct {
	index       int
	uuid, name  string
	powerLimitW float64
}

// NvidiaDeviceQuery is the probe's device listing (and its recording's name in testdata).
var NvidiaDeviceQuery = []string{"--query-gpu=index,uuid,name,power.limit", "--format=csv,noheader,nounits"}

// NvidiaAppsQuery lists compute processes (--help-query-compute-apps).
var NvidiaAppsQuery = []string{"--query-compute-apps=pid,process_name,gpu_uuid,used_memory", "--format=csv,noheader,nounits"}

func parseNvidiaDevices(out []byte) []nvidiaDevice {
	var devs []nvidiaDevice
	for _, rec := range csvRecords(out) {
		if len(rec) < 4 {
			continue
		}
		i, err := strconv.Atoi(rec[0])
		if err != nil {
			continue
		}
		d := nvidiaDevice{index: i, uuid: rec[1], name: rec[2]}
		if v := parseNum(rec[3]); v != nil {
			d.powerLimitW = *v
		}
		devs = append(devs, d)
	}
	return devs
}

// parseNum reads a number as nvidia-smi prints it with nounits; "[N/A]",
// "[Not Supported]", "N/A" and the like are nil.
func parseNum(s string) *float64 {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasPrefix(s, "[") || strings.EqualFold(s, "N/A") {
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// throttleReasons are NVML's clock event reason bits (nvmlClocksEventReason*, the same
// values as the older nvmlClocksThrottleReason* names).
var throttleReasons = []struct {
	bit  uint64
	name string
}{
	{0x1, "gpu_idle"},
	{0x2, "applications_clocks_setting"},
	{0x4, "sw_power_cap"},
	{0x8, "hw_slowdown"},
	{0x10, "sync_boost"},
	{0x20, "sw_thermal_slowdown"},
	{0x40, "hw_thermal_slowdown"},
	{0x80, "hw_power_brake_slowdown"},
	{0x100, "display_clock_setting"},
}

// throttleNames decodes clocks_event_reasons.active ("0x0000000000000004").
func throttleNames(s string) []string {
	if !isHexMask(s) {
		return nil
	}
	v, _ := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "0x"), 16, 64)
	var out []string
	for _, r := range throttleReasons {
		if v&r.bit != 0 {
			out = append(out, r.name)
			v &^= r.bit
		}
	}
	if v != 0 {
		out = append(out, fmt.Sprintf("0x%x", v))
	}
	return out
}

func isHexMask(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	_, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	return strings.HasPrefix(s, "0x") && err == nil
}

// nvidiaTimeLayout is how nvidia-smi's CSV writes timestamp (local time).
const nvidiaTimeLayout = "2006/01/02 15:04:05.000"

// nvidiaLine is one parsed line of the stream.
type nvidiaLine struct {
	stamp   time.Time // nvidia-smi's own timestamp, zero if it could not be read
	sample  power.Sample
	energyJ *float64 // the raw counter, before unwrapping
}

// parseNvidiaLine reads one line of the streaming query q.
func parseNvidiaLine(line string, q nvidiaQuery, loc *time.Location) (nvidiaLine, bool) {
	recs := csvRecords([]byte(line))
	if len(recs) != 1 || len(recs[0]) != len(q.fields()) {
		return nvidiaLine{}, false
	}
	rec := recs[0]
	idx, err := strconv.Atoi(rec[1])
	if err != nil {
		return nvidiaLine{}, false
	}
	var l nvidiaLine
	if t, err := time.ParseInLocation(nvidiaTimeLayout, rec[0], loc); err == nil {
		l.stamp = t
	}
	l.sample = power.Sample{Device: idx, PowerW: parseNum(rec[2]), UtilPct: parseNum(rec[3]), MemUsedMiB: parseNum(rec[4])}
	i := 7
	if q.reasons != "" {
		l.sample.Throttle = throttleNames(rec[i])
		i++
	}
	if q.energy {
		if mj := parseNum(rec[i]); mj != nil {
			l.energyJ = fptr(*mj / 1000)
		}
	}
	return l, true
}

// gpuProcess is one compute process on a GPU.
type gpuProcess struct {
	pid     int
	name    string
	device  int
	usedMiB float64
}

func (p gpuProcess) String() string {
	return fmt.Sprintf("pid %d %s on GPU %d (%.0f MiB)", p.pid, p.name, p.device, p.usedMiB)
}

// parseComputeApps reads NvidiaAppsQuery's output; uuids maps GPU UUIDs to indexes.
func parseComputeApps(out []byte, uuids map[string]int) []gpuProcess {
	var ps []gpuProcess
	for _, rec := range csvRecords(out) {
		if len(rec) < 3 {
			continue
		}
		pid, err := strconv.Atoi(rec[0])
		if err != nil {
			continue // "No running processes found"
		}
		dev, ok := uuids[rec[2]]
		if !ok {
			dev = -1
		}
		p := gpuProcess{pid: pid, name: rec[1], device: dev}
		if len(rec) > 3 {
			if v := parseNum(rec[3]); v != nil {
				p.usedMiB = *v
			}
		}
		ps = append(ps, p)
	}
	return ps
}

// probeNvidia lists the GPUs and finds which optional fields this nvidia-smi accepts.
func probeNvidia(ctx context.Context, run CommandRunner) ([]nvidiaDevice, nvidiaQuery, error) {
	out, err := run.Run(ctx, "nvidia-smi", NvidiaDeviceQuery...)
	if err != nil {
		return nil, nvidiaQuery{}, fmt.Errorf("nvidia-smi: %w", err)
	}
	devs := parseNvidiaDevices(out)
	if len(devs) == 0 {
		return nil, nvidiaQuery{}, fmt.Errorf("nvidia-smi lists no GPU")
	}
	accepts := func(field string) bool {
		out, err := run.Run(ctx, "nvidia-smi", "--query-gpu=index,"+field, "--format=csv,noheader,nounits")
		if err != nil {
			return false
		}
		recs := csvRecords(out)
		if len(recs) == 0 {
			return false
		}
		for _, rec := range recs {
			if len(rec) < 2 {
				return false
			}
			if v := rec[1]; parseNum(v) == nil && !isHexMask(v) {
				return false
			}
		}
		return true
	}
	q := nvidiaQuery{power: "power.draw"}
	if accepts("power.draw.instant") {
		q.power = "power.draw.instant"
	}
	switch {
	case accepts("clocks_event_reasons.active"):
		q.reasons = "clocks_event_reasons.active"
	case accepts("clocks_throttle_reasons.active"):
		q.reasons = "clocks_throttle_reasons.active"
	}
	q.energy = accepts("total_energy_consumption")
	return devs, q, nil
}

// startNvidia probes the GPUs, decides which to count (those that hold a compute
// process when the run begins: the server's; all of them when none is visible, as in
// a container that hides other namespaces' processes), and starts the stream.
func startNvidia(ctx context.Context, o TelemetryOptions) (*Meter, error) {
	bin, err := exec.LookPath("nvidia-smi")
	if err != nil {
		return nil, fmt.Errorf("nvidia-smi: not found on PATH")
	}
	run := ExecRunner{}
	devs, q, err := probeNvidia(ctx, run)
	if err != nil {
		return nil, err
	}
	uuids := map[string]int{}
	var all []int
	var infos []rundoc.TelemetryDevice
	for _, d := range devs {
		uuids[d.uuid] = d.index
		all = append(all, d.index)
		infos = append(infos, rundoc.TelemetryDevice{Index: d.index, Name: d.name, PowerLimitW: d.powerLimitW})
	}
	var procs []gpuProcess
	if out, err := run.Run(ctx, "nvidia-smi", NvidiaAppsQuery...); err == nil {
		procs = parseComputeApps(out, uuids)
	}
	counted := countedDevices(all, procs)
	what := describeNvidia(devs, counted, q, len(procs) == 0)
	m := newMeter(SourceNvidia, o, infos, counted, what)
	for _, p := range procs {
		if slices.Contains(counted, p.device) {
			m.info.Processes = append(m.info.Processes, p.String())
		}
	}
	owner := newServerProcesses(o.Root, procs, o.ForeignPIDs, listeningPIDs(o.Root, o.ServerPort))
	m.foreign = func(ctx context.Context) []string {
		out, err := run.Run(ctx, "nvidia-smi", NvidiaAppsQuery...)
		if err != nil {
			return nil
		}
		return foreignProcesses(parseComputeApps(out, uuids), counted, owner.isServer)
	}
	s := &nvidiaStream{bin: bin, q: q, interval: o.Interval, m: m}
	m.run(ctx, s.loop)
	return m, nil
}

// countedDevices are the GPUs holding a compute process, or all when none is seen.
func countedDevices(all []int, procs []gpuProcess) []int {
	var used []int
	for _, p := range procs {
		if p.device >= 0 && !slices.Contains(used, p.device) {
			used = append(used, p.device)
		}
	}
	if len(used) == 0 {
		return all
	}
	slices.Sort(used)
	return used
}

// foreignProcesses are the processes on counted GPUs that are not the server's.
func foreignProcesses(now []gpuProcess, counted []int, isServer func(pid int) bool) []string {
	var out []string
	for _, p := range now {
		if slices.Contains(counted, p.device) && !isServer(p.pid) {
			out = append(out, p.String())
		}
	}
	return out
}

// serverProcesses decides which GPU processes are the server's: those on the GPUs when
// the run began (unless known foreign from before a launch), and any later one that
// descends from them or from the process listening on the server's port.
type serverProcesses struct {
	root    string
	mu      sync.Mutex
	known   map[int]bool // the server's
	foreign map[int]bool // not the server's, whatever their descendants
	family  map[int]bool // ancestors whose descendants are the server's
}

func newServerProcesses(root string, start []gpuProcess, foreignPIDs, listeners []int) *serverProcesses {
	s := &serverProcesses{root: root, known: map[int]bool{}, foreign: map[int]bool{}, family: map[int]bool{}}
	for _, pid := range foreignPIDs {
		s.foreign[pid] = true
	}
	for _, p := range start {
		if !s.foreign[p.pid] {
			s.known[p.pid], s.family[p.pid] = true, true
		}
	}
	for _, pid := range listeners {
		if !s.foreign[pid] {
			s.family[pid] = true
		}
	}
	return s
}

func (s *serverProcesses) isServer(pid int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.foreign[pid]:
		return false
	case s.known[pid]:
		return true
	case descendsFrom(s.root, pid, s.family):
		s.known[pid] = true
		return true
	}
	return false
}

func describeNvidia(devs []nvidiaDevice, counted []int, q nvidiaQuery, noProcs bool) string {
	var names []string
	for _, d := range devs {
		if slices.Contains(counted, d.index) {
			names = append(names, fmt.Sprintf("GPU %d (%s)", d.index, d.name))
		}
	}
	s := "board power of " + strings.Join(names, ", ") + " as nvidia-smi reports it (" + q.power
	if q.energy {
		s += ", energy from total_energy_consumption"
	}
	s += ")"
	if noProcs {
		s += "; no compute process was visible, so every GPU is counted"
	} else if len(counted) < len(devs) {
		s += "; GPUs without a compute process are not counted"
	}
	return s + ". The host's CPU, memory and power supply are not included."
}

// nvidiaStream runs and rereads the nvidia-smi process; it is restarted a few times if
// it dies, each death recorded so that the windows it spoils get no figure.
type nvidiaStream struct {
	bin      string
	q        nvidiaQuery
	interval time.Duration
	m        *Meter

	offset    time.Duration // receive time − nvidia-smi's timestamp, the smallest seen
	hasOffset bool
	carry     map[int]float64 // energy lost to counter resets, per device
	last      map[int]float64
}

const nvidiaRestarts = 5

func (s *nvidiaStream) loop(ctx context.Context) error {
	s.carry, s.last = map[int]float64{}, map[int]float64{}
	var err error
	for attempt := 0; attempt <= nvidiaRestarts; attempt++ {
		err = s.once(ctx)
		if ctx.Err() != nil {
			return nil
		}
		s.m.fail(err.Error())
		if !clock.Sleep(ctx, time.Second) {
			return nil
		}
	}
	return fmt.Errorf("%s; not restarted after %d attempts", err, nvidiaRestarts)
}

// once runs nvidia-smi until it exits, feeding the meter. Its output goes through
// stdbuf -oL where stdbuf exists, so that a C library's block buffering of a pipe
// cannot hold lines back.
func (s *nvidiaStream) once(ctx context.Context) error {
	args := s.q.args(s.interval)
	name := s.bin
	if sb, err := exec.LookPath("stdbuf"); err == nil {
		args = append([]string{"-oL", s.bin}, args...)
		name = sb
	}
	cmd := exec.CommandContext(ctx, name, args...)
	var stderr tailBuffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("nvidia-smi: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting nvidia-smi: %w", err)
	}
	s.read(out)
	werr := cmd.Wait()
	msg := "nvidia-smi exited"
	if werr != nil {
		msg += ": " + werr.Error()
	}
	if t := strings.TrimSpace(stderr.String()); t != "" {
		msg += " (" + t + ")"
	}
	return fmt.Errorf("%s", msg)
}

func (s *nvidiaStream) read(r io.Reader) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if l, ok := parseNvidiaLine(strings.TrimRight(line, "\r\n"), s.q, time.Local); ok {
			s.m.add(s.sample(l, time.Now()))
		}
		if err != nil {
			return
		}
	}
}

// sample places a line on this process's clock: nvidia-smi's own timestamp (when the
// reading was taken) shifted by the smallest delay seen between a timestamp and its
// line's arrival, which also absorbs a time zone the two processes disagree on.
func (s *nvidiaStream) sample(l nvidiaLine, received time.Time) power.Sample {
	ps := l.sample
	ps.At = received
	if !l.stamp.IsZero() {
		d := received.Sub(l.stamp)
		if !s.hasOffset || d < s.offset {
			s.offset, s.hasOffset = d, true
		}
		ps.At = l.stamp.Add(s.offset)
	}
	if l.energyJ != nil {
		e := *l.energyJ
		if last, ok := s.last[ps.Device]; ok && e < last {
			s.carry[ps.Device] += last // the counter restarted (driver reload)
		}
		s.last[ps.Device] = e
		ps.EnergyJ = fptr(e + s.carry[ps.Device])
	}
	return ps
}

// tailBuffer keeps the last few hundred bytes written to it (a process's stderr).
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 400 {
		t.b = t.b[len(t.b)-400:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// NvidiaComputePIDs lists the compute processes on the GPUs now (before a launch, to
// know which are not the server's).
func NvidiaComputePIDs(ctx context.Context) []int {
	out, err := ExecRunner{}.Run(ctx, "nvidia-smi", NvidiaAppsQuery...)
	if err != nil {
		return nil
	}
	var pids []int
	for _, p := range parseComputeApps(out, nil) {
		pids = append(pids, p.pid)
	}
	return pids
}
