package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/engine"
	"github.com/llmbench/llmbench/internal/session"
)

func init() { commands = append(commands, newProbeCmd) }

func newProbeCmd() *cobra.Command {
	var endpoint, apiKey, format string
	cmd := &cobra.Command{
		Use:   "probe [--endpoint URL]",
		Short: "Say what a server is: engine, version, model, KV cache, limits",
		Long: `probe asks an OpenAI-compatible server what it is, using each engine's own
endpoints (vLLM, SGLang, llama.cpp, Ollama, TGI, TensorRT-LLM, LM Studio, and
llmbench's emulator): engine and version, served model and its id or path,
max_model_len, KV cache size in tokens, KV cache dtype, prefix caching, max
concurrent sequences, quantization, and the route that counts tokens.

What the server does not expose is shown as "unknown" (null in JSON), never guessed.
The notes say where derived figures come from.`,
		Example: `  llmbench probe --endpoint http://127.0.0.1:8000
  llmbench probe --endpoint http://127.0.0.1:8000/v1 --format json
  llmbench probe --endpoint http://gpu-box:11434 --api-key sk-...`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if endpoint == "" {
				endpoint = session.EnvEndpoint(cmd.ErrOrStderr())
			}
			if endpoint == "" {
				return fmt.Errorf("--endpoint is required (e.g. --endpoint http://127.0.0.1:8000), or set $%s", baseURLEnv)
			}
			if format != "text" && format != "json" {
				return fmt.Errorf("--format %q: use text or json", format)
			}
			if apiKey == "" {
				apiKey = os.Getenv("OPENAI_API_KEY")
			}
			base, err := session.ServerBase(endpoint, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			c := engine.WithAPIKey(&http.Client{}, apiKey)
			info, err := engine.Probe(cmd.Context(), c, base)
			if err != nil {
				return session.ExplainServerError(err, base, apiKey != "")
			}
			if format == "json" {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(info)
			}
			writeProbeText(cmd.OutOrStdout(), base, info)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&endpoint, "endpoint", "", "server URL: its root or its /v1 base; also --base-url (default: $"+baseURLEnv+")")
	fl.StringVar(&apiKey, "api-key", "", "API key sent as a bearer token (default: $OPENAI_API_KEY)")
	fl.StringVar(&format, "format", "text", "output format: text or json")
	fl.SetNormalizeFunc(aliasFlags)
	return cmd
}

// writeProbeText prints one fact a line, "unknown" for what the server does not say.
func writeProbeText(w io.Writer, base string, i *engine.Info) {
	for _, r := range probeRows(base, i) {
		fmt.Fprintf(w, "%-17s %s\n", r[0]+":", r[1])
	}
	if len(i.Notes) > 0 {
		fmt.Fprintln(w, "\nnotes:")
		for _, note := range i.Notes {
			fmt.Fprintf(w, "  - %s\n", note)
		}
	}
}

// probeRows are probe's label–value lines, in order: "unknown" for what the server
// did not say; optional lines (build, preset, revision …) only when it did.
func probeRows(base string, i *engine.Info) [][2]string {
	tokenize := unknownOr(i.Tokenize)
	if i.Tokenize == nil {
		tokenize = "none found (prompt length calibrated from usage.prompt_tokens)"
	}
	rows := [][2]string{{"endpoint", base}, {"engine", i.Engine}, {"version", unknownOr(i.Version)}}
	rows = appendIfSet(rows, "build", i.Build)
	rows = appendIfSet(rows, "preset", i.Preset)
	rows = append(rows, [2]string{"served model", unknownOr(i.ServedModel)}, [2]string{"model id", unknownOr(i.ModelID)})
	rows = appendIfSet(rows, "revision", i.Revision)
	rows = append(rows,
		[2]string{"max model len", unknownCount(i.MaxModelLen)},
		[2]string{"KV cache tokens", unknownCount(i.KVCacheTokens)},
		[2]string{"KV cache dtype", unknownOr(i.KVCacheDtype)},
		[2]string{"prefix caching", unknownBool(i.PrefixCaching, "on", "off")},
		[2]string{"max num seqs", unknownCount(i.MaxNumSeqs)},
		[2]string{"quantization", unknownOr(i.Quantization)},
		[2]string{"tokenize", tokenize},
	)
	rows = appendIfSet(rows, "apply template", i.ApplyTemplate)
	rows = append(rows,
		[2]string{"token-id prompts", unknownBool(i.TokenIDPrompts, "yes", "no")},
		[2]string{"ignore_eos", unknownBool(i.IgnoreEOS, "honoured", "not honoured")},
		[2]string{"min_tokens", unknownBool(i.MinTokens, "honoured", "not honoured")},
		[2]string{"metrics", unknownOr(i.Metrics)},
	)
	rows = appendIfSet(rows, "loads", i.Loads)
	if len(i.Models) > 1 {
		rows = append(rows, [2]string{"models", strings.Join(i.Models, ", ")})
	}
	return rows
}

func appendIfSet(rows [][2]string, label string, v *string) [][2]string {
	if v == nil {
		return rows
	}
	return append(rows, [2]string{label, *v})
}

func unknownOr(p *string) string {
	if p == nil {
		return "unknown"
	}
	return *p
}

func unknownCount(p *int64) string {
	if p == nil {
		return "unknown"
	}
	return strconv.FormatInt(*p, 10)
}

func unknownBool(p *bool, yes, no string) string {
	switch {
	case p == nil:
		return "unknown"
	case *p:
		return yes
	default:
		return no
	}
}
