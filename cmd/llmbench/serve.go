package main

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
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/site"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/wire"
)

func init() { commands = append(commands, newServeCmd) }

// defaultDB is the SQLite file the site uses without --db: in the XDG data directory,
// else ./llmbench-data.
func defaultDB() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "llmbench", "site.db")
	}
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return filepath.Join(h, ".local", "share", "llmbench", "site.db")
	}
	return filepath.Join("llmbench-data", "site.db")
}

func newServeCmd() *cobra.Command {
	var o serveFlags
	cmd := &cobra.Command{
		Use:     "serve",
		Short:   "Run the site: leaderboard, run pages, hardware, models, compare, calculator and the API",
		Long:    serveLong,
		Example: serveExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runServe(cmd.Context(), cmd.OutOrStdout(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on (default: this machine only; --addr :8080 serves every interface)")
	cmd.PersistentFlags().StringVar(&o.db, "db", defaultDB(), "database: a SQLite file path, or a postgres:// URL")
	f.Int64Var(&o.maxBody, "max-body", 4<<20, "largest run document accepted, in bytes")
	f.Float64Var(&o.rate, "rate", 30, "submissions allowed per minute per token (with PostgreSQL, across all instances)")
	f.IntVar(&o.burst, "burst", 10, "submissions a token may make at once before --rate applies")
	f.Float64Var(&o.ipRate, "ip-rate", 0, "requests allowed per minute per client address, pages and API alike (0 = unlimited; set it on a public site not behind a limiting proxy)")
	f.IntVar(&o.ipBurst, "ip-burst", 60, "requests a client address may make at once before --ip-rate applies")
	f.BoolVar(&o.proxied, "trust-proxy", false, "the site runs behind its own reverse proxy: take the client address from the last X-Forwarded-For entry")
	f.DurationVar(&o.pageTTL, "page-ttl", 10*time.Second, "how long a rendered page or API answer is reused for other readers (0 = render every request); this instance's own submissions show at once, another instance's within it")
	cmd.AddCommand(newTokenCmd(&o.db))
	return cmd
}

type serveFlags struct {
	addr, db       string
	maxBody        int64
	rate, ipRate   float64
	burst, ipBurst int
	proxied        bool
	pageTTL        time.Duration
}

// pageTTLOption is --page-ttl as site.Options.PageTTL, where 0 means the default and a
// negative TTL none.
func pageTTLOption(d time.Duration) time.Duration {
	if d <= 0 {
		return -1
	}
	return d
}

// runServe serves the site until ctx ends, then shuts it down gracefully.
func runServe(ctx context.Context, out io.Writer, o serveFlags) error {
	st, err := store.Open(ctx, o.db)
	if err != nil {
		return err
	}
	defer st.Close()
	srv, err := site.New(wire.Options(site.Options{Store: st, Logger: slog.Default(),
		MaxBodyBytes: o.maxBody, RatePerToken: o.rate, RateBurst: o.burst,
		RatePerIP: o.ipRate, BurstPerIP: o.ipBurst, TrustProxy: o.proxied, PageTTL: pageTTLOption(o.pageTTL)}))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", o.addr, err)
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute}
	where := o.db
	if store.IsPostgresURL(o.db) {
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

const serveLong = `serve runs the llmbench web site and its JSON API (described at /api/openapi.json).

Runs are stored in SQLite by default (a file in the data directory, or the file --db
names), or in PostgreSQL with --db postgres://… so that several instances can share one
database behind a load balancer; then the rate limits (--rate, --ip-rate and failed
logins) are kept in the database and hold across all instances, and a page another
instance stored a run for shows it within --page-ttl. The schema is created
and migrated on start, and runs stored before a newer metric registry are re-indexed.

People submit runs with "llmbench submit" and an API token that the operator creates
with "llmbench serve token create".`

const serveExample = `  llmbench serve                                   # http://localhost:8080, SQLite in ~/.local/share/llmbench
  llmbench serve --addr 127.0.0.1:9000 --db ./site.db
  llmbench serve --db postgres://llmbench:secret@db:5432/llmbench
  llmbench serve token create --user @alice --org "Acme Labs"`

func newTokenCmd(db *string) *cobra.Command {
	token := &cobra.Command{
		Use:   "token",
		Short: "Manage API tokens for submitting runs",
		Args:  cobra.NoArgs,
		Example: `  llmbench serve token create --user @alice
  llmbench serve token create --user @bob --org "Acme Labs" --db postgres://…
  llmbench serve token list
  llmbench serve token revoke 3f9a1c0b7d2e`,
	}
	token.AddCommand(newTokenCreateCmd(db), newTokenListCmd(db), newTokenRevokeCmd(db))
	return token
}

func newTokenCreateCmd(db *string) *cobra.Command {
	var user, org string
	create := &cobra.Command{
		Use:   "create",
		Short: "Create an API token for a user (printed once, on the last line; stored hashed)",
		Long: `create makes an API token for --user (created if new, and put in --org if given).
The token is printed once, on the last line of the output; the site stores only its
SHA-256 hash, so a lost token cannot be recovered — create another.`,
		Example: `  llmbench serve token create --user @alice
  TOKEN=$(llmbench serve token create --user @bob --org "Acme Labs" | tail -1)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if user == "" {
				return errors.New("--user is required (like --user @alice)")
			}
			st, err := store.Open(cmd.Context(), *db)
			if err != nil {
				return err
			}
			defer st.Close()
			tok, err := st.CreateToken(cmd.Context(), user, org)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "API token for %s", user)
			if org != "" {
				fmt.Fprintf(out, " (%s)", org)
			}
			fmt.Fprintln(out, "; it is shown only now:")
			fmt.Fprintln(out, tok)
			return nil
		},
	}
	create.Flags().StringVar(&user, "user", "", "the user the token submits as, like @alice (required)")
	create.Flags().StringVar(&org, "org", "", "the user's organisation")

	return create
}

func newTokenListCmd(db *string) *cobra.Command {
	list := &cobra.Command{
		Use:   "list",
		Short: "List API tokens: ID, user, created (the tokens themselves are not stored)",
		Example: `  llmbench serve token list
  llmbench serve token list --db postgres://…`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := store.Open(cmd.Context(), *db)
			if err != nil {
				return err
			}
			defer st.Close()
			tokens, err := st.Tokens(cmd.Context())
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if len(tokens) == 0 {
				fmt.Fprintln(out, "no tokens; create one with: llmbench serve token create --user @name")
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tUSER\tCREATED")
			for _, t := range tokens {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", t.ID, t.User, t.CreatedAt.Format(time.RFC3339))
			}
			return tw.Flush()
		},
	}

	return list
}

func newTokenRevokeCmd(db *string) *cobra.Command {
	var revokeUser string
	revoke := &cobra.Command{
		Use:   "revoke [TOKEN|ID]",
		Short: "Revoke an API token (by the token or its ID from list), or every token of --user",
		Long: `revoke deletes a token so that it can no longer submit. Name it by the token itself
(llmb_…) or by its ID from "llmbench serve token list", or revoke every token of a user
with --user. Runs already submitted stay.`,
		Example: `  llmbench serve token revoke 3f9a1c0b7d2e
  llmbench serve token revoke "$LEAKED_TOKEN"
  llmbench serve token revoke --user @alice`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (len(args) == 1) == (revokeUser != "") {
				return errors.New("give a token or token ID, or --user @name (one of them)")
			}
			st, err := store.Open(cmd.Context(), *db)
			if err != nil {
				return err
			}
			defer st.Close()
			out := cmd.OutOrStdout()
			if revokeUser != "" {
				n, err := st.RevokeUserTokens(cmd.Context(), revokeUser)
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "revoked %d token(s) of %s\n", n, revokeUser)
				return nil
			}
			if err := st.RevokeToken(cmd.Context(), args[0]); err != nil {
				if errors.Is(err, store.ErrNotFound) {
					return errors.New("no such token (llmbench serve token list shows the IDs)")
				}
				return err
			}
			fmt.Fprintln(out, "revoked")
			return nil
		},
	}
	revoke.Flags().StringVar(&revokeUser, "user", "", "revoke every token of this user, like @alice")
	return revoke
}
