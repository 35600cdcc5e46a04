package hw

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/power"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Telemetry during a run: a Meter samples the machine's power (and, where the source
// tells, utilization, memory and clock event reasons) in the background, at 5 Hz by
// default, and answers power.Telemetry's Summary for each measurement window. The
// sources live beside this file: nvidia-smi (one long-lived process whose CSV is parsed
// as it streams), AMD (sysfs hwmon, or amd-smi's JSON), RAPL (energy_uj, wrap-around
// handled), Apple's powermetrics (where it may run), and a remote agent over HTTP.

// Telemetry source names, as --telemetry takes them.
const (
	SourceNvidia       = "nvidia-smi"
	SourceAMD          = "amd-smi"
	SourceRAPL         = "rapl"
	SourcePowermetrics = "powermetrics"
	SourceNone         = "none"
)

// DefaultInterval is how often a meter samples: 5 Hz.
const DefaultInterval = 200 * time.Millisecond

// TelemetryOptions configure a meter.
type TelemetryOptions struct {
	// Root is the filesystem root sysfs is read under ("/" on a live system).
	Root     string
	Interval time.Duration
	// Wait bounds how long Summary waits for the samples after a window's end.
	Wait time.Duration
	// ForeignPIDs are processes known not to be the server's (those on the GPUs before
	// llmbench launched it): seen on a counted GPU, they void the energy figures.
	ForeignPIDs []int
	// ServerPort is the port the server listens on, when it is on this machine: a new
	// GPU process descending from the process listening there is the server's.
	ServerPort int
}

func (o TelemetryOptions) withDefaults() TelemetryOptions {
	if o.Root == "" {
		o.Root = "/"
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.Wait <= 0 {
		o.Wait = max(3*time.Second, 5*o.Interval)
	}
	return o
}

// Meter is a running telemetry source.
type Meter struct {
	name     string
	interval time.Duration
	wait     time.Duration
	info     rundoc.RunEnergy
	devices  []int
	// foreign, if set, lists the compute processes on the counted devices that are not
	// the server's, checked once per Summary.
	foreign func(ctx context.Context) []string

	mu       sync.Mutex
	samples  []power.Sample
	problems []problem
	stopped  string // why sampling ended for good, "" while it runs
	updated  chan struct{}

	cancel context.CancelFunc
	done   chan struct{}
}

type problem struct {
	at   time.Time
	text string
}

// keepSamples bounds the meter's memory: windows are read right after they close, so
// older samples are never asked for again.
const keepSamples = 30 * time.Minute

func newMeter(name string, o TelemetryOptions, devices []rundoc.TelemetryDevice, counted []int, what string) *Meter {
	m := &Meter{name: name, interval: o.Interval, wait: o.Wait, updated: make(chan struct{}), done: make(chan struct{}), devices: counted}
	m.info = rundoc.RunEnergy{Telemetry: name, Devices: devices, Counted: what, IntervalMs: float64(o.Interval) / float64(time.Millisecond)}
	return m
}

// run starts the sampling loop; loop returns when ctx ends or the source is gone.
func (m *Meter) run(parent context.Context, loop func(ctx context.Context) error) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	m.cancel = cancel
	go func() {
		defer close(m.done)
		err := loop(ctx)
		m.mu.Lock()
		defer m.mu.Unlock()
		switch {
		case ctx.Err() != nil:
			m.stopped = m.name + " was stopped"
		case err != nil:
			m.stopped = err.Error()
		default:
			m.stopped = m.name + " stopped"
		}
		m.problems = append(m.problems, problem{time.Now(), m.stopped})
		close(m.updated)
		m.updated = make(chan struct{})
	}()
}

// Close stops sampling.
func (m *Meter) Close() {
	if m.cancel != nil {
		m.cancel()
		<-m.done
	}
}

// Name is the source's name (nvidia-smi, amd-smi, rapl, powermetrics, or the agent's URL).
func (m *Meter) Name() string { return m.name }

// Info describes what the meter measures, for the run document.
func (m *Meter) Info() rundoc.RunEnergy { return m.info }

func (m *Meter) add(ss ...power.Sample) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.samples = append(m.samples, ss...)
	if len(m.samples) > 0 {
		cut := m.samples[len(m.samples)-1].At.Add(-keepSamples)
		i := 0
		for i < len(m.samples) && m.samples[i].At.Before(cut) {
			i++
		}
		if i > len(m.samples)/2 {
			m.samples = append(m.samples[:0:0], m.samples[i:]...)
		}
	}
	close(m.updated)
	m.updated = make(chan struct{})
}

// fail records that sampling broke at this moment (the process died, a read failed); a
// window around it gets no figure.
func (m *Meter) fail(text string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.problems = append(m.problems, problem{time.Now(), text})
}

// Summary waits (up to the meter's wait) until every counted device has a sample at
// or after end, then returns the samples around [start, end], any problem recorded
// in that span, and any foreign compute process seen now.
func (m *Meter) Summary(ctx context.Context, start, end time.Time) power.Trace {
	m.waitCovered(ctx, end)
	tr := power.Trace{Source: m.name, Devices: append([]int(nil), m.devices...), Interval: m.interval}
	to := end.Add(2 * m.interval)
	m.mu.Lock()
	tr.Samples = around(m.samples, start, end)
	var texts []string
	for _, p := range m.problems {
		if !p.at.Before(start.Add(-m.interval)) && !p.at.After(to) {
			texts = append(texts, p.at.Format("15:04:05.000")+": "+p.text)
		}
	}
	stopped := m.stopped
	m.mu.Unlock()
	if len(texts) > 0 {
		tr.Problem = strings.Join(texts, "; ")
	} else if stopped != "" && !hasAfter(tr.Samples, end) {
		tr.Problem = stopped
	}
	if m.foreign != nil {
		tr.Foreign = m.foreign(ctx)
	}
	return tr
}

// waitCovered waits until every counted device has a sample at or after end, sampling
// has stopped, the meter's wait is over, or ctx ends.
func (m *Meter) waitCovered(ctx context.Context, end time.Time) {
	deadline := time.NewTimer(m.wait)
	defer deadline.Stop()
	for {
		m.mu.Lock()
		ready, ch := m.coveredLocked(end) || m.stopped != "", m.updated
		m.mu.Unlock()
		if ready {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// around returns the samples inside [start, end] and, for each device, the last one
// before start and the first one after end, however far: the scoring needs them to
// interpolate the edges, and its gap rule judges whether they are close enough.
func around(samples []power.Sample, start, end time.Time) []power.Sample {
	before := map[int]int{}
	after := map[int]int{}
	var out []power.Sample
	for i, s := range samples {
		switch {
		case s.At.Before(start):
			before[s.Device] = i
		case s.At.After(end):
			if _, ok := after[s.Device]; !ok {
				after[s.Device] = i
			}
		default:
			out = append(out, s)
		}
	}
	for _, i := range before {
		out = append(out, samples[i])
	}
	for _, i := range after {
		out = append(out, samples[i])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}

// hasAfter reports whether a sample was taken at or after end.
func hasAfter(ss []power.Sample, end time.Time) bool {
	for _, s := range ss {
		if !s.At.Before(end) {
			return true
		}
	}
	return false
}

func (m *Meter) coveredLocked(end time.Time) bool {
	seen := map[int]bool{}
	for i := len(m.samples) - 1; i >= 0 && !m.samples[i].At.Before(end); i-- {
		seen[m.samples[i].Device] = true
	}
	for _, d := range m.devices {
		if !seen[d] {
			return false
		}
	}
	return true
}

// ready waits until every counted device has a sample, so that a run never opens a
// window before its meter has begun.
func (m *Meter) ready(ctx context.Context, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		m.mu.Lock()
		seen := map[int]bool{}
		for _, s := range m.samples {
			seen[s.Device] = true
		}
		all := true
		for _, d := range m.devices {
			all = all && seen[d]
		}
		stopped, ch := m.stopped, m.updated
		m.mu.Unlock()
		switch {
		case all:
			return nil
		case stopped != "":
			return fmt.Errorf("%s: %s", m.name, stopped)
		}
		select {
		case <-ch:
		case <-deadline.C:
			return fmt.Errorf("%s gave no sample for every device within %s", m.name, timeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// readyTimeout bounds how long a new meter may take to give its first samples.
const readyTimeout = 10 * time.Second

// ErrNoTelemetry says no source could meter this machine.
var ErrNoTelemetry = errors.New("no telemetry source found")

// StartTelemetry starts the named source (nvidia-smi, amd-smi, rapl, powermetrics) or,
// for "auto", the first that works here: NVIDIA, then AMD, then Apple, then RAPL.
func StartTelemetry(ctx context.Context, source string, o TelemetryOptions) (*Meter, error) {
	m, err := startSource(ctx, source, o.withDefaults())
	if err != nil {
		return nil, err
	}
	if err := m.ready(ctx, readyTimeout); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

func startSource(ctx context.Context, source string, o TelemetryOptions) (*Meter, error) {
	switch source {
	case SourceNvidia:
		return startNvidia(ctx, o)
	case SourceAMD:
		return startAMD(ctx, o)
	case SourceRAPL:
		return startRAPL(ctx, o)
	case SourcePowermetrics:
		return startPowermetrics(ctx, o)
	case "auto", "":
		var why []string
		for _, s := range []struct {
			name  string
			start func(context.Context, TelemetryOptions) (*Meter, error)
		}{{SourceNvidia, startNvidia}, {SourceAMD, startAMD}, {SourcePowermetrics, startPowermetrics}, {SourceRAPL, startRAPL}} {
			if s.name == SourcePowermetrics && runtime.GOOS != "darwin" {
				continue
			}
			m, err := s.start(ctx, o)
			if err == nil {
				return m, nil
			}
			why = append(why, err.Error())
		}
		return nil, fmt.Errorf("%w: %s", ErrNoTelemetry, strings.Join(why, "; "))
	}
	return nil, fmt.Errorf("unknown telemetry source %q (use nvidia-smi, amd-smi, rapl, powermetrics, none or http://HOST:PORT)", source)
}

func fptr(v float64) *float64 { return &v }

// readNumber reads a sysfs file holding one number.
func readNumber(path string) (float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
}
