package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/hw"
)

func init() { commands = append(commands, newTelemetryCmd) }

type telemetryFlags struct {
	listen, token, source string
	interval              time.Duration
}

func newTelemetryCmd() *cobra.Command {
	f := &telemetryFlags{}
	cmd := &cobra.Command{
		Use:   "telemetry",
		Short: "Serve this machine's power telemetry to a run measuring it from elsewhere",
		Long: `telemetry runs on the machine of an inference server that llmbench measures from
another machine. It samples this machine's power (nvidia-smi, amd-smi, RAPL or
powermetrics, 5 times a second) and serves the samples over HTTP to
"llmbench run --telemetry http://HOST:PORT", which asks for each measurement
window after it closes. Every request needs the token (Authorization: Bearer);
one is made up and printed unless --token or $LLMBENCH_TELEMETRY_TOKEN gives it.
The two machines' clocks are aligned by exchanging timestamps before every window,
so they need not agree. Stop it with Ctrl-C.`,
		Example: `  # On the GPU server:
  llmbench telemetry --listen :9109
  # On the measuring machine, with the token it printed:
  llmbench run --endpoint http://gpu-box:8000 --telemetry http://gpu-box:9109 --telemetry-token TOKEN`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runTelemetry(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", "", "address to serve on, e.g. :9109 or 10.0.0.5:9109 (required)")
	fl.StringVar(&f.token, "token", "", "the token runs must send (default: $LLMBENCH_TELEMETRY_TOKEN, else a random one, printed)")
	fl.StringVar(&f.source, "source", "auto", "what to sample: auto, nvidia-smi, amd-smi, rapl or powermetrics")
	fl.DurationVar(&f.interval, "interval", hw.DefaultInterval, "sampling interval")
	return cmd
}

func runTelemetry(cmd *cobra.Command, f *telemetryFlags) error {
	if f.listen == "" {
		return errors.New("--listen ADDR is required (e.g. --listen :9109)")
	}
	if f.interval < 10*time.Millisecond || f.interval > 5*time.Second {
		return fmt.Errorf("--interval %s: between 10ms and 5s", f.interval)
	}
	token := f.token
	if token == "" {
		token = os.Getenv("LLMBENCH_TELEMETRY_TOKEN")
	}
	if token == "" {
		token = randomHex(16)
	}
	ctx := cmd.Context()
	m, err := hw.StartTelemetry(ctx, f.source, hw.TelemetryOptions{Interval: f.interval})
	if err != nil {
		return err
	}
	defer m.Close()
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", f.listen, err)
	}
	srv := &http.Server{Handler: hw.AgentHandler(m, token), ReadHeaderTimeout: 10 * time.Second}
	info := m.Info()
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "Serving %s telemetry on http://%s: %s\n", m.Name(), ln.Addr(), info.Counted)
	fmt.Fprintf(out, "token: %s\n", token)
	fmt.Fprintf(out, "On the measuring machine: llmbench run --endpoint http://THIS-HOST:PORT --telemetry http://THIS-HOST:%d --telemetry-token %s\n", ln.Addr().(*net.TCPAddr).Port, token)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		return nil
	case err := <-errc:
		return fmt.Errorf("serving telemetry: %w", err)
	}
}
