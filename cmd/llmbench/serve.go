package main

import (
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/site"
	"github.com/llmbench/llmbench/internal/site/guard"
)

func init() { commands = append(commands, newServeCmd) }

func newServeCmd() *cobra.Command {
	var c site.Config
	cmd := &cobra.Command{
		Use:     "serve",
		Short:   "Run the site: leaderboard, run pages, hardware, models, compare, calculator and the API",
		Long:    helpLong("serve"),
		Example: helpExamples("serve"),
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return site.Serve(cmd.Context(), cmd.OutOrStdout(), c) },
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
		Use:     "token",
		Short:   "Manage API tokens for submitting runs",
		Args:    cobra.NoArgs,
		Example: helpExamples("serve-token"),
	}
	var user, org, revokeUser string
	create := &cobra.Command{
		Use:     "create",
		Short:   "Create an API token for a user (printed once, on the last line; stored hashed)",
		Long:    helpLong("serve-token-create"),
		Example: helpExamples("serve-token-create"),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return guard.CreateToken(cmd.Context(), cmd.OutOrStdout(), *db, user, org)
		},
	}
	create.Flags().StringVar(&user, "user", "", "the user the token submits as, like @alice (required)")
	create.Flags().StringVar(&org, "org", "", "the user's organisation")
	list := &cobra.Command{
		Use:     "list",
		Short:   "List API tokens: ID, user, created (the tokens themselves are not stored)",
		Example: helpExamples("serve-token-list"),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return guard.ListTokens(cmd.Context(), cmd.OutOrStdout(), *db)
		},
	}
	revoke := &cobra.Command{
		Use:     "revoke [TOKEN|ID]",
		Short:   "Revoke an API token (by the token or its ID from list), or every token of --user",
		Long:    helpLong("serve-token-revoke"),
		Example: helpExamples("serve-token-revoke"),
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (len(args) == 1) == (revokeUser != "") {
				return errors.New("give a token or token ID, or --user @name (one of them)")
			}
			// The token is args[0]; with --user there is none.
			return guard.RevokeTokens(cmd.Context(), cmd.OutOrStdout(), *db, append(args, "")[0], revokeUser)
		},
	}
	revoke.Flags().StringVar(&revokeUser, "user", "", "revoke every token of this user, like @alice")
	token.AddCommand(create, list, revoke)
	return token
}
