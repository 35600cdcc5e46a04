package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"syscall"
	"time"

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
reason are printed. Submitting the same file twice is harmless.

The token comes from --token or the LLMBENCH_TOKEN environment variable; the site's
operator creates one with "llmbench serve token create".`,
		Example: `  llmbench submit run.json --server https://llmbench.example.org --token llmb_…
  LLMBENCH_TOKEN=llmb_… llmbench submit run.json --server http://localhost:8080`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if server == "" {
				return errors.New("--server is required (the site's URL, like http://localhost:8080)")
			}
			if token == "" {
				token = os.Getenv("LLMBENCH_TOKEN")
			}
			doc, err := os.ReadFile(args[0])
			if err != nil {
				return fmt.Errorf("reading the run document: %w", err)
			}
			client := &http.Client{Timeout: 2 * time.Minute}
			res, err := site.Submit(cmd.Context(), client, server, token, doc)
			if err != nil {
				return explainSiteError(err, server)
			}
			verb := "submitted"
			if !res.Created {
				verb = "already on the site (same document)"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s %s: %s\n", res.ID, verb, res.URL)
			return nil
		},
	}
	cmd.Flags().StringVar(&server, "server", "", "the site's URL (required)")
	cmd.Flags().StringVar(&token, "token", "", "API token (default $LLMBENCH_TOKEN)")
	return cmd
}

// explainSiteError says what to do when the site cannot be reached at all: the raw
// dial error names a socket call, not the site or the fix.
func explainSiteError(err error, server string) error {
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("cannot reach the site at %s: connection refused — is llmbench serve running there, and is --server its URL? (%w)", server, err)
	case errors.As(err, &dnsErr):
		return fmt.Errorf("cannot reach the site at %s: unknown host %s — check --server (%w)", server, dnsErr.Name, err)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("the site at %s did not answer in time — is --server its URL? (%w)", server, err)
	}
	return err
}
