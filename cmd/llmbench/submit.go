package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/site"
)

func init() { commands = append(commands, newSubmitCmd) }

func newSubmitCmd() *cobra.Command {
	var server, token string
	cmd := &cobra.Command{
		Use:   "submit RUN.json",
		Short: "Send a run document to an llmbench site",
		Long: `submit posts a run document, byte for byte, to a site's API (POST /api/v1/runs).
The site checks it against schema v1; when it refuses, the field at fault and the
reason are printed. Submitting the same file twice is harmless. A site that answers
429 or 503 with Retry-After (its rate limit, or busy) is tried again after the wait it
asks for, up to 5 times and a minute a wait, saying so on stderr.

The token comes from --token or the LLMBENCH_TOKEN environment variable; the site's
operator creates one with "llmbench serve token create".`,
		Example: `  llmbench submit run.json --server https://llmbench.example.org --token llmb_…
  LLMBENCH_TOKEN=llmb_… llmbench submit run.json --server http://localhost:8080`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if token == "" {
				token = os.Getenv("LLMBENCH_TOKEN")
			}
			return site.SubmitFile(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), server, token, args[0])
		},
	}
	cmd.Flags().StringVar(&server, "server", "", "the site's URL (required)")
	cmd.Flags().StringVar(&token, "token", "", "API token (default $LLMBENCH_TOKEN)")
	return cmd
}
