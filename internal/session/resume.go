package session

import (
	"fmt"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/engine"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// SameServer checks that the server probed at base is the one the document measured:
// the same engine, version, model and KV capacity, where both sides know them. A
// resumed run on another server would mix two servers' numbers in one document.
func SameServer(doc *rundoc.Run, info *engine.Info, base string) error {
	var diffs []string
	differ := func(what, was, now string) {
		if was != "" && now != "" && was != now {
			diffs = append(diffs, fmt.Sprintf("%s %s, now %s", what, was, now))
		}
	}
	differ("engine", doc.Engine.Name, info.Engine)
	differ("version", doc.Engine.Version, orEmpty(info.Version))
	id, _ := rundoc.ModelName(orEmpty(info.ModelID))
	differ("model id", doc.Model.ID, id)
	if was, now := doc.Engine.KVCacheTokens, info.KVCacheTokens; was != nil && now != nil && *was != *now {
		diffs = append(diffs, fmt.Sprintf("KV cache %d tokens, now %d", *was, *now))
	}
	if doc.Model.ServedName != "" && len(info.Models) > 0 && !slices.Contains(info.Models, doc.Model.ServedName) && !slices.Contains(info.Models, doc.Model.ServedName+":latest") && listedAs(info.Models, doc.Model.ServedName) == "" {
		diffs = append(diffs, fmt.Sprintf("model %s, now %s", doc.Model.ServedName, strings.Join(info.Models, ", ")))
	}
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("%s is not the server this run measured (%s): %s; a resumed run finishes on the same server, or starts a new document without --resume", base, EndpointOf(doc), strings.Join(diffs, "; "))
}

// RecordEndpoint adds base to the endpoints the document used.
func RecordEndpoint(doc *rundoc.Run, base string) {
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

func EndpointOf(doc *rundoc.Run) string {
	if doc.Config.Endpoint == "" {
		return "the built-in emulator"
	}
	return doc.Config.Endpoint
}

func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// resumeTarget points a resumed run at the server the document measured: its
// recorded endpoint and model (the API comes from its config). A measured document
// that records no endpoint is refused rather than resumed on the built-in emulator; so
// is a --model other than the recorded one.
func resumeTarget(c *Config, doc *rundoc.Run) error {
	if c.Endpoint == "" && doc.Kind() != rundoc.RunEmulated {
		if doc.Config.Endpoint == "" {
			return fmt.Errorf("%s records no endpoint (it was written by an older llmbench): give the server it measured with --endpoint", c.Resume)
		}
		c.Endpoint = doc.Config.Endpoint
	}
	switch {
	case c.Model == "":
		c.Model = doc.Model.ServedName
	case doc.Model.ServedName != "" && c.Model != doc.Model.ServedName:
		return fmt.Errorf("--model %s: %s measured %s, and a resumed run measures the same model", c.Model, c.Resume, doc.Model.ServedName)
	}
	if doc.Engine.Preset != "" && !c.PresetGiven {
		c.Preset = doc.Engine.Preset
	}
	return nil
}

// ResumeHint is the command that finishes an interrupted run: the document, and the
// flags that are not recorded in it but that the run needs again (its events log, the
// command that launches the server, the power meter). apiKeyFlag says the key was
// given as --api-key, which the hint does not repeat.
func ResumeHint(c Config, apiKeyFlag bool) string {
	args := []string{"llmbench", "run", "--resume", shellQuote(c.Out)}
	if c.Events != "" {
		args = append(args, "--events", shellQuote(c.Events))
	}
	if c.Launch != "" {
		args = append(args, "--launch", shellQuote(c.Launch))
	}
	if c.TelemetryGiven {
		args = append(args, "--telemetry", shellQuote(c.Telemetry))
	}
	if c.PriceGiven {
		args = append(args, "--price-per-hour", shellQuote(c.Price))
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
