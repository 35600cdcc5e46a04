package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/engine"
)

// resumeTarget points a resumed run at the server the document measured: its
// recorded endpoint and model (the API comes from its config). A measured document
// that records no endpoint is refused rather than resumed on the built-in emulator; so
// is a --model other than the recorded one.
func resumeTarget(cmd *cobra.Command, f *runFlags, doc *bench.Run) error {
	if f.endpoint == "" && doc.Kind() != bench.RunEmulated {
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

// sameServer checks that the server probed at base is the one the document measured:
// the same engine, version, model and KV capacity, where both sides know them. A
// resumed run on another server would mix two servers' numbers in one document.
func sameServer(doc *bench.Run, info *engine.Info, base string) error {
	var diffs []string
	differ := func(what, was, now string) {
		if was != "" && now != "" && was != now {
			diffs = append(diffs, fmt.Sprintf("%s %s, now %s", what, was, now))
		}
	}
	differ("engine", doc.Engine.Name, info.Engine)
	differ("version", doc.Engine.Version, deref0(info.Version))
	differ("model id", doc.Model.ID, deref0(info.ModelID))
	if was, now := doc.Engine.KVCacheTokens, info.KVCacheTokens; was != nil && now != nil && *was != *now {
		diffs = append(diffs, fmt.Sprintf("KV cache %d tokens, now %d", *was, *now))
	}
	if doc.Model.ServedName != "" && len(info.Models) > 0 && !slices.Contains(info.Models, doc.Model.ServedName) && !slices.Contains(info.Models, doc.Model.ServedName+":latest") {
		diffs = append(diffs, fmt.Sprintf("model %s, now %s", doc.Model.ServedName, strings.Join(info.Models, ", ")))
	}
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("%s is not the server this run measured (%s): %s; a resumed run finishes on the same server, or starts a new document without --resume", base, endpointOf(doc), strings.Join(diffs, "; "))
}

// recordEndpoint adds base to the endpoints the document used.
func recordEndpoint(doc *bench.Run, base string) {
	c := &doc.Config
	if c.Endpoint == "" || base == c.Endpoint && len(c.Endpoints) == 0 {
		return
	}
	if len(c.Endpoints) == 0 {
		c.Endpoints = []string{c.Endpoint}
	}
	if !slices.Contains(c.Endpoints, base) {
		c.Endpoints = append(c.Endpoints, base)
	}
}

func endpointOf(doc *bench.Run) string {
	if doc.Config.Endpoint == "" {
		return "the built-in emulator"
	}
	return doc.Config.Endpoint
}

func deref0(s *string) string {
	if s == nil {
		return ""
	}
	return *s
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
