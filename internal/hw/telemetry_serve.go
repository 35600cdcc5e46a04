package hw

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// AgentConfig is what "llmbench telemetry" serves: the address, the token runs must
// send (a random one when empty), the source to sample and how often.
type AgentConfig struct {
	Listen, Token, Source string
	Interval              time.Duration
}

// ServeAgent samples this machine's power and serves it to runs on other machines
// (AgentHandler) until ctx ends. It says on out where, with the token and the run
// command that uses it.
func ServeAgent(ctx context.Context, out io.Writer, cfg AgentConfig) error {
	if cfg.Listen == "" {
		return errors.New("--listen ADDR is required (e.g. --listen :9109)")
	}
	if cfg.Interval < 10*time.Millisecond || cfg.Interval > 5*time.Second {
		return fmt.Errorf("--interval %s: between 10ms and 5s", cfg.Interval)
	}
	token := cfg.Token
	if token == "" {
		token = randomToken()
	}
	m, err := StartTelemetry(ctx, cfg.Source, TelemetryOptions{Interval: cfg.Interval})
	if err != nil {
		return err
	}
	defer m.Close()
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", cfg.Listen, err)
	}
	srv := &http.Server{Handler: AgentHandler(m, token), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(out, "Serving %s telemetry on http://%s: %s\n", m.Name(), ln.Addr(), m.Info().Counted)
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

// randomToken is 16 random bytes in hex, made up when no token is given.
func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
