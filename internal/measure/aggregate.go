package measure

import (
	"slices"
	"time"

	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// Per-request aggregates that every load shape reports the same way, and the
// arithmetic its figures are written with.

// Minimum sample counts for tail percentiles [MLPerf LoadGen early stopping]: below
// these, a p90 or p99 says more about luck than about the server.
const (
	MinSamplesP90 = 64
	MinSamplesP99 = 662
)

// Outcomes counts the requests by how they ended (nil for none).
func Outcomes(reqs []Request) map[string]int {
	if len(reqs) == 0 {
		return nil
	}
	m := map[string]int{}
	for i := range reqs {
		m[reqs[i].Ending().String()]++
	}
	return m
}

// Failures counts the requests that did not succeed (finished or cancelled).
func Failures(reqs []Request) int {
	n := 0
	for i := range reqs {
		if !reqs[i].Ending().Success() {
			n++
		}
	}
	return n
}

// FirstError is the first request's error ("" when none failed).
func FirstError(reqs []Request) string {
	for i := range reqs {
		if reqs[i].Error != "" {
			return reqs[i].Error
		}
	}
	return ""
}

// ErrorSamples are the first three distinct errors.
func ErrorSamples(reqs []Request) []string {
	var out []string
	for i := range reqs {
		e := reqs[i].Error
		if e == "" || slices.Contains(out, e) {
			continue
		}
		out = append(out, e)
		if len(out) == 3 {
			break
		}
	}
	return out
}

// Span is an interval on the run's clock, [From, To] in nanoseconds.
type Span struct{ From, To int64 }

// PeakOverlap is the most spans open at one instant: a sweep over their ends. A span
// that ends at the instant another starts counts before it, so two back-to-back
// requests on one slot are never counted as two.
func PeakOverlap(spans []Span) int {
	type edge struct {
		at    int64
		delta int
	}
	edges := make([]edge, 0, 2*len(spans))
	for _, s := range spans {
		edges = append(edges, edge{s.From, +1}, edge{s.To, -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if a.at != b.at {
			if a.at < b.at {
				return -1
			}
			return 1
		}
		return a.delta - b.delta // ends first
	})
	peak, now := 0, 0
	for _, e := range edges {
		now += e.delta
		peak = max(peak, now)
	}
	return peak
}

// Millis is d in milliseconds.
func Millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// RoundPtr is v rounded to decimals, as a figure the document may leave out.
func RoundPtr(v float64, decimals int) *float64 {
	r := stats.Round(v, decimals)
	return &r
}

// RelDiff is how far a is from b, as a share of b (0 when b is 0).
func RelDiff(a, b int) float64 {
	if b == 0 {
		return 0
	}
	d := float64(a - b)
	if d < 0 {
		d = -d
	}
	return d / float64(b)
}

// ReasoningSplit sums the requests' tokens by kind, as the client counted them by
// each chunk's field: reasoning (delta.reasoning_content or delta.reasoning) and
// answer. ok is false where no token came as reasoning: the model did not stream its
// thinking apart, and the time to first token is already the first answer's.
func ReasoningSplit(reqs []Request) (reasoning, answer int, ok bool) {
	for i := range reqs {
		reasoning += reqs[i].ReasoningTokens
		answer += reqs[i].Tokens - reqs[i].ReasoningTokens
	}
	return reasoning, answer, reasoning > 0
}

// FlagSpecRandomWords is rundoc.FlagSpecRandomWords, for the shapes that raise it.
const FlagSpecRandomWords = rundoc.FlagSpecRandomWords

// DraftedOnRandomWords says the server's counters show speculative decoding over a
// measurement whose prompts were random words: source is the prompts' (empty in logs
// from before any other source existed, whose prompts were random words).
func DraftedOnRandomWords(m *rundoc.ServerMetrics, source string) bool {
	return m != nil && m.SpecDecode != nil && (source == "" || source == prompt.RandomWords)
}
