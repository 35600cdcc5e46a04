// Package calibrate owns the client's own ceiling: how many streamed tokens per second
// llmbench's client path can take in on this machine. It runs the same decode-cell code
// as llmbench run (bench.Runner) for a few seconds against a zero-compute server in this
// process (internal/zerostream, stepping as fast as the client reads) and takes the
// server's writer threads' CPU time out of the process's, so the figure is the client's.
package calibrate

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/llmbench/llmbench/internal/clock"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/zerostream"
)

// DefaultStreams is how many streams a measurement runs unless told otherwise.
const DefaultStreams = 256

// Options configure a measurement; zero values take the defaults.
type Options struct {
	Streams   int           // concurrent streams; default DefaultStreams
	Duration  time.Duration // the measurement window; default 3 s
	Settle    time.Duration // wait after every stream is in flight; default 500 ms
	MaxTokens int           // output tokens per request; default 4096
}

// Ceiling is what the client can take in.
type Ceiling struct {
	// TokS is the client's ceiling: tokens per client CPU-second times Cores, the rate
	// at which the client alone would keep every core it may use busy.
	TokS float64 `json:"ceiling_tok_s"`
	// Cores is how many CPUs the client may use (GOMAXPROCS).
	Cores int `json:"cores"`
	// TokPerCPUSecond is tokens read per CPU-second of the client (the process's CPU
	// time less the server writers').
	TokPerCPUSecond float64 `json:"tok_per_cpu_s"`
	// ReadTokS is the rate read during the window, with the server sharing the CPUs.
	ReadTokS   float64 `json:"read_tok_s"`
	Tokens     int64   `json:"tokens"`
	WindowS    float64 `json:"window_s"`
	ClientCPUS float64 `json:"client_cpu_s"`
	ServerCPUS float64 `json:"server_cpu_s"`
	Streams    int     `json:"streams"`
}

func (c Ceiling) String() string {
	return fmt.Sprintf("client ceiling %.0f tok/s on %d cores (%.0f tokens per CPU-second: %d tokens in %.1f s over %d streams, client CPU %.2f s, in-process server %.2f s)",
		c.TokS, c.Cores, c.TokPerCPUSecond, c.Tokens, c.WindowS, c.Streams, c.ClientCPUS, c.ServerCPUS)
}

func (o *Options) defaults() {
	if o.Streams <= 0 {
		o.Streams = DefaultStreams
	}
	if o.Duration <= 0 {
		o.Duration = 3 * time.Second
	}
	if o.Settle <= 0 {
		o.Settle = 500 * time.Millisecond
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = 4096
	}
}

// Measure runs the client against an in-process zero-compute server and returns its
// ceiling. It needs about Settle + Duration + a moment to start and stop.
func Measure(ctx context.Context, o Options) (Ceiling, error) {
	o.defaults()
	if !cpuMeasured {
		return Ceiling{}, errors.New("the client's ceiling needs per-thread CPU time, which this platform does not give")
	}
	srv, err := zerostream.Listen("127.0.0.1:0", zerostream.Config{LockThreads: true, ContinuousUsage: true})
	if err != nil {
		return Ceiling{}, fmt.Errorf("starting the zero-compute server: %w", err)
	}
	defer srv.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cell := NewCell(srv.URL(), o.Streams, o.MaxTokens, "calibrate", time.Minute)
	done := make(chan error, 1)
	go func() { done <- cell.Run(ctx) }()

	if err := waitActive(ctx, srv, o.Streams, done); err != nil {
		return Ceiling{}, err
	}
	if err := clock.SleepErr(ctx, o.Settle); err != nil {
		return Ceiling{}, err
	}
	cpu0, srv0, tok0, t0 := processCPU(), srv.WriterCPU(), cell.Tokens(), time.Now()
	if err := clock.SleepErr(ctx, o.Duration); err != nil {
		return Ceiling{}, err
	}
	cpu1, srv1, tok1, t1 := processCPU(), srv.WriterCPU(), cell.Tokens(), time.Now()
	cancel()
	<-done

	c := Ceiling{
		Cores: runtime.GOMAXPROCS(0), Streams: o.Streams, Tokens: tok1 - tok0,
		WindowS: t1.Sub(t0).Seconds(), ServerCPUS: (srv1 - srv0).Seconds(),
	}
	c.ClientCPUS = (cpu1 - cpu0).Seconds() - c.ServerCPUS
	if c.Tokens <= 0 || c.ClientCPUS <= 0 {
		return c, fmt.Errorf("the calibration read %d tokens on %.3f s of client CPU: nothing to measure", c.Tokens, c.ClientCPUS)
	}
	c.TokPerCPUSecond = float64(c.Tokens) / c.ClientCPUS
	c.TokS = c.TokPerCPUSecond * float64(c.Cores)
	c.ReadTokS = float64(c.Tokens) / c.WindowS
	return c, nil
}

func waitActive(ctx context.Context, srv *zerostream.Server, n int, done <-chan error) error {
	deadline := time.Now().Add(time.Minute)
	for srv.Stats().Active < int64(n) {
		select {
		case err := <-done:
			return fmt.Errorf("the calibration's client stopped before its streams started: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d calibration streams started within a minute", srv.Stats().Active, n)
		}
		if err := clock.SleepErr(ctx, 10*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// Record writes the ceiling into a run document's client block.
func (c Ceiling) Record(cl *rundoc.Client) {
	v := c.TokS
	cl.CeilingTokS, cl.Cores = &v, c.Cores
}
