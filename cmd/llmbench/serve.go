package main

import (
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/site"
	"github.com/llmbench/llmbench/internal/site/wire"
)

func init() { commands = append(commands, newServeCmd) }

func newServeCmd() *cobra.Command {
	c := site.Config{Join: wire.Options}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the site: leaderboard, run pages, hardware, models, compare, calculator and the API",
		Long: `serve runs the llmbench web site and its JSON API (described at /api/openapi.json).

Runs are stored in SQLite by default (a file in the data directory, or the file --db
names), or in PostgreSQL with --db postgres://… so that several instances can share one
database behind a load balancer; then the rate limits (--rate, --ip-rate and failed
logins) are kept in the database and hold across all instances, and a page another
instance stored a run for shows it within --page-ttl. The schema is created
and migrated on start, and runs stored before a newer metric registry are re-indexed.

People submit runs with "llmbench submit" and an API token that the operator creates
with "llmbench serve token create".`,
		Example: `  llmbench serve                                   # http://localhost:8080, SQLite in ~/.local/share/llmbench
  llmbench serve --addr 127.0.0.1:9000 --db ./site.db
  llmbench serve --db postgres://llmbench:secret@db:5432/llmbench
  llmbench serve token create --user @alice --org "Acme Labs"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return site.Serve(cmd.Context(), cmd.OutOrStdout(), c) },
	}
	f := cmd.Flags()
	f.StringVar(&c.Addr, "addr", "127.0.0.1:8080", "address to listen on (default: this machine only; --addr :8080 serves every interface)")
	cmd.PersistentFlags().StringVar(&c.DB, "db", site.DefaultDB(), "database: a SQLite file path, or a postgres:// URL")
	f.Int64Var(&c.MaxBody, "max-body", 4<<20, "largest run document accepted, in bytes")
	f.Float64Var(&c.Rate, "rate", 30, "submissions allowed per minute per token (with PostgreSQL, across all instances)")
	f.IntVar(&c.Burst, "burst", 10, "submissions a token may make at once before --rate applies")
	f.Float64Var(&c.IPRate, "ip-rate", 0, "requests allowed per minute per client address, pages and API alike (0 = unlimited; set it on a public site not behind a limiting proxy)")
	f.IntVar(&c.IPBurst, "ip-burst", 60, "requests a client address may make at once before --ip-rate applies")
	f.BoolVar(&c.TrustProxy, "trust-proxy", false, "the site runs behind its own reverse proxy: take the client address from the last X-Forwarded-For entry")
	f.DurationVar(&c.PageTTL, "page-ttl", 10*time.Second, "how long a rendered page or API answer is reused for other readers (0 = render every request); this instance's own submissions show at once, another instance's within it")
	cmd.AddCommand(newTokenCmd(&c.DB))
	return cmd
}

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
	var user, org, revokeUser string
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
			return site.CreateToken(cmd.Context(), cmd.OutOrStdout(), *db, user, org)
		},
	}
	create.Flags().StringVar(&user, "user", "", "the user the token submits as, like @alice (required)")
	create.Flags().StringVar(&org, "org", "", "the user's organisation")
	list := &cobra.Command{
		Use:   "list",
		Short: "List API tokens: ID, user, created (the tokens themselves are not stored)",
		Example: `  llmbench serve token list
  llmbench serve token list --db postgres://…`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return site.ListTokens(cmd.Context(), cmd.OutOrStdout(), *db)
		},
	}
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
			// The token is args[0]; with --user there is none.
			return site.RevokeTokens(cmd.Context(), cmd.OutOrStdout(), *db, append(args, "")[0], revokeUser)
		},
	}
	revoke.Flags().StringVar(&revokeUser, "user", "", "revoke every token of this user, like @alice")
	token.AddCommand(create, list, revoke)
	return token
}
