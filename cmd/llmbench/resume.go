package main

import (
	"fmt"
	"strings"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/spf13/cobra"
)

// resumeTarget points a resumed run at the server the document measured: its
// recorded endpoint and model (the API comes from its config). A measured document
// that records no endpoint is refused rather than resumed on the built-in emulator; so
// is a --model other than the recorded one.
func resumeTarget(cmd *cobra.Command, f *runFlags, doc *rundoc.Run) error {
	if f.endpoint == "" && doc.Kind() != rundoc.RunEmulated {
		if doc.Config.Endpoint == "" {
			return fmt.Errorf("%s records no endpoint (it was written by an older llmbench): give the server it measured with --endpoint", f.resume)
		}
		f.endpoint = doc.Config.Endpoint
	}
	switch {
	case f.model == "":
		f.model = doc.Model.ServedName
	case doc.Model.ServedName != "" && f.model != doc.Model.ServedName:
		return fmt.Errorf("--model %s: %s measured %s, and a resumed run measures the same model", f.model, f.resume, doc.Model.ServedName)
	}
	if doc.Engine.Preset != "" && !cmd.Flags().Changed("preset") {
		f.preset = doc.Engine.Preset
	}
	return nil
}

// resumeHint is the command that finishes an interrupted run: the document, and the
// flags that are not recorded in it but that the run needs again (its events log, the
// command that launches the server, the power meter).
func resumeHint(cmd *cobra.Command, f *runFlags, apiKeyFlag bool) string {
	args := []string{"llmbench", "run", "--resume", shellQuote(f.out)}
	changed := cmd.Flags().Changed
	if f.events != "" {
		args = append(args, "--events", shellQuote(f.events))
	}
	if f.launch != "" {
		args = append(args, "--launch", shellQuote(f.launch))
	}
	if changed("telemetry") {
		args = append(args, "--telemetry", shellQuote(f.telemetry))
	}
	if changed("price-per-hour") {
		args = append(args, "--price-per-hour", shellQuote(f.price))
	}
	hint := strings.Join(args, " ")
	if apiKeyFlag {
		hint += " --api-key …  (or set OPENAI_API_KEY)"
	}
	return hint
}

// shellQuote quotes s for a POSIX shell where it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
