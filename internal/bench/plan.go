package bench

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// K is the context-size unit of the seed page and of every flag: 56K = 57,344 tokens.
const K = 1024

// ParseTokens parses a token count: a plain number ("8192") or a number of K
// ("8K", "56k", "0.5K"), K = 1024.
func ParseTokens(s string) (int, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty token count")
	}
	mult := 1.0
	switch t[len(t)-1] {
	case 'k', 'K':
		mult, t = K, t[:len(t)-1]
	case 'm', 'M':
		mult, t = K*K, t[:len(t)-1]
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("%q is not a token count (use a number like 8192 or 8K, K = 1024)", s)
	}
	n := f * mult
	if n != float64(int(n)) {
		return 0, fmt.Errorf("%q is not a whole number of tokens", s)
	}
	return int(n), nil
}

// ParseTokenList parses a comma-separated list of token counts ("0,16K,32K,56K").
func ParseTokenList(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		n, err := ParseTokens(part)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// ParseIntList parses a comma-separated list of positive integers ("1,2,4,8").
func ParseIntList(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		p := strings.TrimSpace(part)
		if p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive whole number", p)
		}
		out = append(out, n)
	}
	return out, nil
}

// FormatTokens writes a token count the way the seed page does: 57344 → "56K",
// 0 → "0", 1000 → "1000".
func FormatTokens(n int) string {
	if n != 0 && n%K == 0 {
		return strconv.Itoa(n/K) + "K"
	}
	return strconv.Itoa(n)
}

// Fit reports whether a cell fits the server, by the seed page's rule: a cell with
// concurrency × (context + max_output) > KV cache tokens is over capacity, and so is one
// with context + max_output > max_model_len. Unknown limits (nil) never exclude a cell.
// The reason is empty when the cell fits.
func Fit(context, concurrency, maxOutput int, kvCacheTokens, maxModelLen *int64) (fits bool, reason string) {
	perRequest := int64(context) + int64(maxOutput)
	if maxModelLen != nil && perRequest > *maxModelLen {
		return false, fmt.Sprintf("context + max output = %d tokens exceeds max_model_len %d", perRequest, *maxModelLen)
	}
	if kvCacheTokens != nil {
		need := int64(concurrency) * perRequest
		if need > *kvCacheTokens {
			return false, fmt.Sprintf("%d requests × %d tokens = %d exceeds the KV cache (%d tokens)", concurrency, perRequest, need, *kvCacheTokens)
		}
	}
	return true, ""
}

// Plan fills a new run document's prefill rows and decode cells from its config and the
// server's limits: over-capacity cells are marked (and never sent), the rest pending.
func Plan(doc *Run, kvCacheTokens, maxModelLen *int64) {
	cfg := doc.Config
	doc.Prefill = doc.Prefill[:0]
	for _, c := range sortedUnique(cfg.PrefillContexts) {
		row := PrefillRow{Context: c, Status: StatusPending}
		if ok, reason := Fit(c, 1, 1, nil, maxModelLen); !ok {
			row.Status, row.Reason = StatusOverCapacity, reason
		}
		doc.Prefill = append(doc.Prefill, row)
	}
	doc.Decode = doc.Decode[:0]
	for _, c := range sortedUnique(cfg.Contexts) {
		for _, n := range sortedUnique(cfg.Concurrency) {
			cell := DecodeCell{Context: c, Concurrency: n, Status: StatusPending}
			if ok, reason := Fit(c, n, cfg.MaxOutputTokens, kvCacheTokens, maxModelLen); !ok {
				cell.Status, cell.Reason = StatusOverCapacity, reason
			}
			doc.Decode = append(doc.Decode, cell)
		}
	}
}

// PlanFit says how much of a planned document the server can run.
type PlanFit struct {
	Runnable int // prefill rows and cells to measure
	Total    int
	// Cells and RunnableCells count the decode cells alone.
	Cells, RunnableCells int
	// ByLength counts what is over capacity because context + max output exceeds
	// max_model_len (the rest of the over-capacity cells exceed the KV cache).
	ByLength int
}

// CheckPlan counts what a planned document can run on its server.
func CheckPlan(doc *Run) PlanFit {
	var f PlanFit
	count := func(s Status, reason string) {
		f.Total++
		switch {
		case s != StatusOverCapacity:
			f.Runnable++
		case strings.Contains(reason, "max_model_len"):
			f.ByLength++
		}
	}
	for _, p := range doc.Prefill {
		count(p.Status, p.Reason)
	}
	for _, c := range doc.Decode {
		count(c.Status, c.Reason)
		f.Cells++
		if c.Status != StatusOverCapacity {
			f.RunnableCells++
		}
	}
	return f
}

// TooSmall says whether the server cannot run the plan: nothing fits, no decode cell
// does, or most of it is over capacity because its max_model_len is small.
func (f PlanFit) TooSmall() bool {
	return f.Total > 0 && (f.Runnable == 0 || f.Cells > 0 && f.RunnableCells == 0 || 2*f.ByLength > f.Total)
}

// FitPlan shrinks a plan to a server's limits: the longest request one server slot
// takes (max_model_len, and the KV cache when smaller). Max output becomes a quarter
// of that limit (a power of two) when it is more, and every decode or prefill context
// that does not fit with it becomes the largest that does (whole K from 1K up, else a
// power of two); the concurrency columns stay, for the KV rule to mark. It returns the
// new config and a line per change, as flags.
func FitPlan(cfg Config, kvCacheTokens, maxModelLen *int64) (Config, []string) {
	limit := int64(0)
	for _, l := range []*int64{maxModelLen, kvCacheTokens} {
		if l != nil && *l > 0 && (limit == 0 || *l < limit) {
			limit = *l
		}
	}
	if limit == 0 {
		return cfg, nil
	}
	out := cfg
	var changes []string
	if out.MaxOutputTokens > 0 && int64(out.MaxOutputTokens) > limit/4 {
		out.MaxOutputTokens = max(int(floorPow2(limit/4)), 1)
		changes = append(changes, fmt.Sprintf("--max-output %d (was %d)", out.MaxOutputTokens, cfg.MaxOutputTokens))
	}
	fit := func(contexts []int, output int) []int {
		var fitted []int
		for _, c := range contexts {
			if int64(c+output) > limit {
				c = int(roundContext(limit - int64(output)))
			}
			if c >= 0 && !slices.Contains(fitted, c) {
				fitted = append(fitted, c)
			}
		}
		return fitted
	}
	if c := fit(sortedUnique(cfg.Contexts), out.MaxOutputTokens); !slices.Equal(c, sortedUnique(cfg.Contexts)) {
		out.Contexts = c
		changes = append(changes, fmt.Sprintf("--contexts %s (was %s)", FormatTokenList(c), FormatTokenList(cfg.Contexts)))
	}
	if p := fit(sortedUnique(cfg.PrefillContexts), 1); !slices.Equal(p, sortedUnique(cfg.PrefillContexts)) {
		out.PrefillContexts = p
		changes = append(changes, fmt.Sprintf("--prefill %s (was %s)", FormatTokenList(p), FormatTokenList(cfg.PrefillContexts)))
	}
	return out, changes
}

func floorPow2(n int64) int64 {
	p := int64(1)
	for p*2 <= n {
		p *= 2
	}
	if n < 1 {
		return 0
	}
	return p
}

// roundContext rounds a context down to whole K from 1K up, else to a power of two.
func roundContext(n int64) int64 {
	if n >= K {
		return n / K * K
	}
	return floorPow2(n)
}

// FormatTokenList writes token counts as the flags take them: "0,16K,32K".
func FormatTokenList(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = FormatTokens(n)
	}
	return strings.Join(parts, ",")
}
