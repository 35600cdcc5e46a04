package hw

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/clock"
	"github.com/llmbench/llmbench/internal/power"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Apple silicon: powermetrics prints, every interval, a block that opens with
//
//	*** Sampled system activity (Mon Nov 30 10:53:06 2026 +0000) (200.41ms elapsed) ***
//
// and, with the cpu_power sampler, holds "Combined Power (CPU + GPU + ANE): 1290 mW":
// the SoC's average over that elapsed time. It needs root; without it the power of a
// Mac is unknown, and the run says so.

var (
	pmHeader   = regexp.MustCompile(`^\*\*\* Sampled system activity .*\(([0-9.]+)ms elapsed\) \*\*\*`)
	pmCombined = regexp.MustCompile(`^Combined Power \(CPU \+ GPU \+ ANE\):\s*([0-9.]+)\s*(mW|W)`)
)

// powermetricsReader turns powermetrics' text into samples, one per block, placed at
// the middle of the block's elapsed time (it is an average over that time).
type powermetricsReader struct {
	elapsed  time.Duration
	received time.Time
}

func (p *powermetricsReader) line(line string, now time.Time) (power.Sample, bool) {
	if m := pmHeader.FindStringSubmatch(line); m != nil {
		ms, _ := strconv.ParseFloat(m[1], 64)
		p.elapsed, p.received = time.Duration(ms*float64(time.Millisecond)), now
		return power.Sample{}, false
	}
	m := pmCombined.FindStringSubmatch(line)
	if m == nil || p.received.IsZero() {
		return power.Sample{}, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return power.Sample{}, false
	}
	if m[2] == "mW" {
		v /= 1000
	}
	at := p.received.Add(-p.elapsed / 2)
	p.received = time.Time{}
	return power.Sample{At: at, Device: 0, PowerW: fptr(v)}, true
}

func startPowermetrics(ctx context.Context, o TelemetryOptions) (*Meter, error) {
	if runtime.GOOS != "darwin" {
		return nil, errors.New("powermetrics: only on macOS")
	}
	bin, err := exec.LookPath("powermetrics")
	if err != nil {
		return nil, errors.New("powermetrics: not found")
	}
	if os.Geteuid() != 0 {
		return nil, errors.New("powermetrics needs root: run llmbench with sudo to meter this Mac (without it the power is unknown)")
	}
	what := "the SoC's combined CPU + GPU + ANE power as powermetrics reports it. Memory, display and power supply are not included."
	m := newMeter(SourcePowermetrics, o, []rundoc.TelemetryDevice{{Index: 0, Name: "Apple SoC"}}, []int{0}, what)
	m.run(ctx, func(ctx context.Context) error {
		for attempt := 0; attempt <= nvidiaRestarts; attempt++ {
			cmd := exec.CommandContext(ctx, bin, "-i", strconv.FormatInt(o.Interval.Milliseconds(), 10), "--samplers", "cpu_power,gpu_power")
			out, err := cmd.StdoutPipe()
			if err != nil {
				return err
			}
			if err := cmd.Start(); err != nil {
				return fmt.Errorf("starting powermetrics: %w", err)
			}
			readPowermetrics(out, m)
			werr := cmd.Wait()
			if ctx.Err() != nil {
				return nil
			}
			m.fail(fmt.Sprintf("powermetrics exited: %v", werr))
			if !clock.Sleep(ctx, time.Second) {
				return nil
			}
		}
		return errors.New("powermetrics kept exiting; not restarted")
	})
	return m, nil
}

func readPowermetrics(r io.Reader, m *Meter) {
	br := bufio.NewReader(r)
	var p powermetricsReader
	for {
		line, err := br.ReadString('\n')
		if s, ok := p.line(strings.TrimRight(line, "\r\n"), time.Now()); ok {
			m.add(s)
		}
		if err != nil {
			return
		}
	}
}
