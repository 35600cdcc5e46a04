package store

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A model family is the base model a run's weights come from, so that one page holds
// Qwen/Qwen3.8-27B, RedHatAI/Qwen3.8-27B-INT4 and an Ollama "qwen3.8:27b-q4_K_M" alike:
// the same architecture, served in different formats or by different names. The
// family is derived from the model name alone — no catalog, no network — by dropping
// the publisher ("RedHatAI/"), the format and packaging words (INT4, AWQ, FP8, GGUF,
// Q4_K_M, w4a16, g128, Instruct …), and folding case and separators, so that the
// result is stable for a stored run whatever else changes. The queries at the end
// list the families and their models from run_groups and runs.

// formatWord matches a name part that says how the weights are packaged or tuned,
// not which model they are.
var formatWord = regexp.MustCompile(`^(?:int[248]|uint[248]|fp(?:4|8|16|32)|bf16|f16|f32|nvfp4|mxfp4|awq|gptq|gguf|ggml|mlx|exl2|exl3|bnb|nf4|marlin|` +
	`[0-9]+bit|w[0-9]+a[0-9]+|g[0-9]+|q[0-9](?:_[0-9a-z]+)*|iq[0-9](?:_[0-9a-z]+)*|k_?[sml]|dynamic|static|quantized|quant|` +
	`instruct|chat|it|hf|base|latest|sft|rlhf|dpo)$`)

// quantWord is a GGUF quantization name whose underscores became dashes (q4-k-m).
var quantWord = regexp.MustCompile(`\b(i?q[0-9])-(k|[0-9])(?:-([sml]|xs|xxs))?\b`)

// versionWord is a bare version number, which belongs to the name before it
// (Llama-3.1 and llama3.1 are one family).
var versionWord = regexp.MustCompile(`^[0-9]+(?:\.[0-9]+)*$`)

// sizeWord is a part naming the parameter count: 27b, 8x7b, 0.5b, 30b (of 30b-a3b).
var sizeWord = regexp.MustCompile(`^(?:([0-9]+)x)?([0-9]+(?:\.[0-9]+)?)b$`)

// Family returns the family key of a model name (lowercase, dash-separated, like the
// catalog's ids: "qwen3.8-27b") and the parameter count in billions the name states,
// or 0 when it states none.
func Family(model string) (family string, paramsB float64) {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	// Ollama's name:tag ("qwen3:32b-q4_K_M") and GGUF file names ("…-Q4_K_M.gguf").
	name = strings.TrimSuffix(name, ".gguf")
	name = strings.NewReplacer(":", "-", "_", "-", " ", "-").Replace(name)
	// Q4_K_M became q4-k-m above; put the quantization words back together so that
	// formatWord sees them whole.
	name = quantWord.ReplaceAllString(name, "${1}_${2}_${3}")
	var parts []string
	for _, p := range strings.Split(name, "-") {
		p = strings.Trim(p, "_")
		switch {
		case p == "" || formatWord.MatchString(p):
		case versionWord.MatchString(p) && len(parts) > 0:
			parts[len(parts)-1] += p
		default:
			parts = append(parts, p)
		}
	}
	if len(parts) > 1 && parts[0] == "meta" { // Meta-Llama-3.1-8B is Llama-3.1-8B
		parts = parts[1:]
	}
	for _, p := range parts {
		if m := sizeWord.FindStringSubmatch(p); m != nil && paramsB == 0 {
			v, _ := strconv.ParseFloat(m[2], 64)
			if m[1] != "" {
				n, _ := strconv.ParseFloat(m[1], 64)
				v *= n
			}
			paramsB = v
		}
	}
	family = strings.Join(parts, "-")
	if family == "" {
		family = strings.ToLower(strings.TrimSpace(model))
	}
	return family, paramsB
}

// SizeBucket is a range of model sizes the leaderboard filters by.
type SizeBucket struct {
	Name     string  // the URL's value: "10-20"
	Min, Max float64 // billions of parameters, Min inclusive, Max exclusive (0 = no bound)
}

// SizeBuckets are the sizes offered as filters.
var SizeBuckets = []SizeBucket{
	{"0-10", 0, 10}, {"10-20", 10, 20}, {"20-40", 20, 40}, {"40-100", 40, 100}, {"100-", 100, 0},
}

// SizeBucketByName finds a size bucket.
func SizeBucketByName(name string) (SizeBucket, bool) {
	for _, b := range SizeBuckets {
		if b.Name == name {
			return b, true
		}
	}
	return SizeBucket{}, false
}

// Families lists every model family with its run count and best measured figures.
func (s *Store) Families(ctx context.Context) ([]GroupStat, error) { return s.groups(ctx, "family") }

// FamilyStat returns the summary of one family's runs; ErrNotFound when it has none.
func (s *Store) FamilyStat(ctx context.Context, name string) (GroupStat, error) {
	return s.group(ctx, "family", name)
}

// FamilyModels lists the model names stored under a family, with their run counts.
func (s *Store) FamilyModels(ctx context.Context, family string) ([]Facet, error) {
	rows, err := s.db.QueryContext(ctx, s.rebind(`SELECT model, COUNT(*) FROM runs WHERE family = ? GROUP BY model ORDER BY model`), family)
	if err != nil {
		return nil, fmt.Errorf("listing the models of family %s: %w", family, err)
	}
	defer rows.Close()
	var out []Facet
	for rows.Next() {
		var f Facet
		if err := rows.Scan(&f.Value, &f.Runs); err != nil {
			return nil, fmt.Errorf("listing the models of family %s: %w", family, err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}
