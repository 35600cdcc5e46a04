package capacity

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// This file holds the targets a capacity is judged against and the --capacity flag's syntax.

// Targets are what every one of the simultaneous requests must get for the server to
// count as serving them: at least TokS tokens per second each, and the first token
// within TTFTMs. The TTFT is the matrix's warm TTFT (the row's context already in the
// server's prefix cache: a turn of a conversation under way), not that plus a cold
// prefill (docs/capacity.md says why).
type Targets struct {
	TokS   float64 `json:"tok_s"`
	TTFTMs float64 `json:"ttft_ms"`
}

// Default targets and why: 20 tok/s is about three times the speed people read at
// (roughly 5–7 tokens a second), so text streams faster than it is read, with room for
// a reader who skims; the first token within 1 s keeps a reader's flow of thought
// unbroken (the response-time limit of 1 s that interface guidelines use for "feels
// immediate enough").
const (
	DefaultTokS   = 20
	DefaultTTFTMs = 1000
)

// TableSpeeds are the per-user speeds of the capacity table (tok/s): a slow reader's
// stream, the default, and a fast one for agents and code.
var TableSpeeds = []float64{10, 20, 40}

// DefaultTargets are 20 tok/s each and the first token within 1 s.
func DefaultTargets() Targets { return Targets{TokS: DefaultTokS, TTFTMs: DefaultTTFTMs} }

// WithSpeed is t at another per-user speed.
func (t Targets) WithSpeed(tokS float64) Targets { t.TokS = tokS; return t }

// ParseTargets reads the --capacity flag: "tok/s=20,ttft=1s" (a TTFT is a Go duration
// or a number of ms; either key may be left out to keep its default).
func ParseTargets(s string) (Targets, error) {
	t := DefaultTargets()
	kvs, bad := rundoc.ParseKeyValues(s)
	if bad != "" {
		return t, fmt.Errorf("--capacity %q: write key=value, e.g. tok/s=20,ttft=1s", bad)
	}
	for _, kv := range kvs {
		switch kv.Key {
		case "tok/s", "toks", "tok_s", "speed":
			v, err := strconv.ParseFloat(kv.Value, 64)
			if err != nil || !(v > 0) || math.IsInf(v, 0) {
				return t, fmt.Errorf("--capacity %q: the speed is a positive number of tokens per second per user", kv.Item)
			}
			t.TokS = v
		case "ttft":
			v, err := rundoc.ParseMillis(kv.Value)
			if err != nil {
				return t, fmt.Errorf("--capacity %q: %w", kv.Item, err)
			}
			t.TTFTMs = v
		default:
			return t, fmt.Errorf("--capacity %q: the keys are tok/s and ttft", kv.Item)
		}
	}
	return t, nil
}

// String writes t as --capacity takes it: "tok/s=20,ttft=1s".
func (t Targets) String() string {
	ttft := strconv.FormatFloat(t.TTFTMs, 'f', -1, 64) + "ms"
	if math.Mod(t.TTFTMs, 1000) == 0 {
		ttft = strconv.FormatFloat(t.TTFTMs/1000, 'f', -1, 64) + "s"
	}
	return "tok/s=" + strconv.FormatFloat(t.TokS, 'f', -1, 64) + ",ttft=" + ttft
}

// Speeds are the capacity table's speeds: TableSpeeds, and t's own where it is not one.
func Speeds(t Targets) []float64 {
	s := slices.Clone(TableSpeeds)
	if !slices.Contains(s, t.TokS) {
		s = append(s, t.TokS)
		slices.Sort(s)
	}
	return s
}
