package main

import (
	"fmt"
	"net/http"
	"os"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/engine"
	"github.com/llmbench/llmbench/internal/session"
)

func init() { commands = append(commands, newProbeCmd) }

func newProbeCmd() *cobra.Command {
	var endpoint, apiKey, format string
	cmd := &cobra.Command{
		Use:     "probe [--endpoint URL]",
		Short:   "Say what a server is: engine, version, model, KV cache, limits",
		Long:    helpLong("probe"),
		Example: helpExamples("probe"),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if endpoint == "" {
				endpoint = session.EnvEndpoint(cmd.ErrOrStderr())
			}
			if endpoint == "" {
				return fmt.Errorf("--endpoint is required (e.g. --endpoint http://127.0.0.1:8000), or set $%s", baseURLEnv)
			}
			if err := textOrJSON(format); err != nil {
				return err
			}
			if apiKey == "" {
				apiKey = os.Getenv("OPENAI_API_KEY")
			}
			base, err := session.ServerBase(endpoint, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			info, err := engine.Probe(cmd.Context(), engine.WithAPIKey(&http.Client{}, apiKey), base)
			if err != nil {
				return session.ExplainServerError(err, base, apiKey != "")
			}
			return engine.WriteInfo(cmd.OutOrStdout(), base, info, format)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&endpoint, "endpoint", "", "server URL: its root or its /v1 base; also --base-url (default: $"+baseURLEnv+")")
	fl.StringVar(&apiKey, "api-key", "", "API key sent as a bearer token (default: $OPENAI_API_KEY)")
	fl.StringVar(&format, "format", "text", "output format: text or json")
	fl.SetNormalizeFunc(aliasFlags)
	return cmd
}
