package site

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/llmbench/llmbench/internal/site/store"
)

// Config is what "llmbench serve" is asked for: where to listen, the database, and the
// limits that become Options.
type Config struct {
	Addr, DB       string
	MaxBody        int64
	Rate, IPRate   float64
	Burst, IPBurst int
	TrustProxy     bool
	PageTTL        time.Duration // 0 renders every request
}

// DefaultDB is the SQLite file the site uses without --db: in the XDG data directory,
// else ./llmbench-data.
func DefaultDB() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "llmbench", "site.db")
	}
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return filepath.Join(h, ".local", "share", "llmbench", "site.db")
	}
	return filepath.Join("llmbench-data", "site.db")
}

// pageTTLOption is --page-ttl as Options.PageTTL, where 0 means the default and a
// negative TTL none.
func pageTTLOption(d time.Duration) time.Duration {
	if d <= 0 {
		return -1
	}
	return d
}

// options are the Server's options for cfg over the opened store.
func (cfg Config) options(st *store.Store) Options {
	opt := Options{Store: st, Logger: slog.Default(),
		MaxBodyBytes: cfg.MaxBody, RatePerToken: cfg.Rate, RateBurst: cfg.Burst,
		RatePerIP: cfg.IPRate, BurstPerIP: cfg.IPBurst, TrustProxy: cfg.TrustProxy, PageTTL: pageTTLOption(cfg.PageTTL)}
	return Wired(opt)
}

// Serve serves the site until ctx ends, then shuts it down gracefully. It says on out
// where it listens once it does.
func Serve(ctx context.Context, out io.Writer, cfg Config) error {
	st, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer st.Close()
	srv, err := New(cfg.options(st))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", cfg.Addr, err)
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute}
	where := cfg.DB
	if store.IsPostgresURL(cfg.DB) {
		where = "PostgreSQL"
	}
	fmt.Fprintf(out, "llmbench site on http://%s (database: %s)\n", ln.Addr(), where)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	go optimizeHourly(ctx, st)
	select {
	case err := <-errc:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("stopping the server: %w", err)
	}
	return nil
}

// optimizeHourly keeps SQLite's planner statistics fresh as runs accumulate.
func optimizeHourly(ctx context.Context, st *store.Store) {
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := st.Optimize(ctx); err != nil {
				slog.Warn("optimizing the database", "err", err)
			}
		}
	}
}
