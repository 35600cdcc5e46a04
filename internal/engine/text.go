package engine

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteInfo writes what probe found: format "json" is Info itself, indented (null
// where unknown); anything else the text of WriteText.
func WriteInfo(w io.Writer, base string, i *Info, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(i)
	}
	WriteText(w, base, i)
	return nil
}

// WriteText prints one fact a line, "unknown" for what the server does not say, then
// the notes.
func WriteText(w io.Writer, base string, i *Info) {
	for _, r := range textRows(base, i) {
		fmt.Fprintf(w, "%-17s %s\n", r[0]+":", r[1])
	}
	if len(i.Notes) > 0 {
		fmt.Fprintln(w, "\nnotes:")
		for _, note := range i.Notes {
			fmt.Fprintf(w, "  - %s\n", note)
		}
	}
}

// textRows are the label–value lines, in order: "unknown" for what the server did not
// say; optional lines (build, preset, revision …) only when it did.
func textRows(base string, i *Info) [][2]string {
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
	)
	if i.Slots != nil {
		rows = append(rows, [2]string{"slots", fmt.Sprintf("%d of %s tokens each (a request fits one; more wait)", *i.Slots, unknownCount(i.MaxModelLen))})
	}
	rows = append(rows,
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
