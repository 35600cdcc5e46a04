package main

import (
	"os"

	"github.com/llmbench/llmbench/internal/site/client"
	"github.com/spf13/cobra"
)

func init() { commands = append(commands, newSubmitCmd) }

func newSubmitCmd() *cobra.Command {
	var server, token string
	cmd := &cobra.Command{
		Use:     "submit RUN.json",
		Short:   "Send a run document to an llmbench site",
		Long:    helpLong("submit"),
		Example: helpExamples("submit"),
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if token == "" {
				token = os.Getenv("LLMBENCH_TOKEN")
			}
			return client.SubmitFile(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), server, token, args[0])
		},
	}
	cmd.Flags().StringVar(&server, "server", "", "the site's URL (required)")
	cmd.Flags().StringVar(&token, "token", "", "API token (default $LLMBENCH_TOKEN)")
	return cmd
}
