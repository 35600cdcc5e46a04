package bench

import (
	"fmt"
	"slices"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Plan fills a new run document's prefill rows and decode cells from its config and the
// server's limits: over-capacity cells are marked (and never sent), the rest pending.
func Plan(doc *rundoc.Run, limits rundoc.Limits) {
	cfg := doc.Config
	doc.Prefill = doc.Prefill[:0]
	for _, c := range sortedUnique(cfg.PrefillContexts) {
		row := rundoc.PrefillRow{Context: c, Status: rundoc.StatusPending}
		if reason, _ := limits.Check(c, c, 1, 1); reason != "" {
			row.Status, row.Reason = rundoc.StatusOverCapacity, reason
		}
		doc.Prefill = append(doc.Prefill, row)
	}
	doc.Decode = doc.Decode[:0]
	for _, c := range sortedUnique(cfg.Contexts) {
		for _, n := range sortedUnique(cfg.Concurrency) {
			cell := rundoc.DecodeCell{Context: c, Concurrency: n, Status: rundoc.StatusPending}
			if reason, _ := limits.Check(c, c, n, cfg.MaxOutputTokens); reason != "" {
				cell.Status, cell.Reason = rundoc.StatusOverCapacity, reason
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
	// max_model_len or a slot's context (the rest of the over-capacity cells exceed
	// the KV cache).
	ByLength int
}

// CheckPlan counts what a planned document can run on its server.
func CheckPlan(doc *rundoc.Run) PlanFit {
	var f PlanFit
	count := func(s rundoc.Status, reason string) {
		f.Total++
		switch {
		case s != rundoc.StatusOverCapacity:
			f.Runnable++
		case rundoc.IsLengthReason(reason):
			f.ByLength++
		}
	}
	for _, p := range doc.Prefill {
		count(p.Status, p.Reason)
	}
	for _, c := range doc.Decode {
		count(c.Status, c.Reason)
		f.Cells++
		if c.Status != rundoc.StatusOverCapacity {
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
// takes (max_model_len, a slot's context, and the KV cache when smaller). Max output
// becomes a quarter of that limit (a power of two) when it is more, and every decode
// or prefill context that does not fit with it becomes the largest that does (whole K
// from 1K up, else a power of two); the concurrency columns stay, for the KV rule to
// mark. It returns the new config and a line per change, as flags.
func FitPlan(cfg rundoc.Config, limits rundoc.Limits) (rundoc.Config, []string) {
	limit := limits.Smallest()
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
		changes = append(changes, fmt.Sprintf("--contexts %s (was %s)", rundoc.FormatTokenList(c), rundoc.FormatTokenList(cfg.Contexts)))
	}
	if p := fit(sortedUnique(cfg.PrefillContexts), 1); !slices.Equal(p, sortedUnique(cfg.PrefillContexts)) {
		out.PrefillContexts = p
		changes = append(changes, fmt.Sprintf("--prefill %s (was %s)", rundoc.FormatTokenList(p), rundoc.FormatTokenList(cfg.PrefillContexts)))
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
	if n >= rundoc.K {
		return n / rundoc.K * rundoc.K
	}
	return floorPow2(n)
}

// failPending marks every measurement not done yet failed, for reason.
func failPending(doc *rundoc.Run, reason string) {
	for i := range doc.Prefill {
		if !measure.StatusDone(doc.Prefill[i].Status) {
			doc.Prefill[i].Status, doc.Prefill[i].Reason = rundoc.StatusFailed, reason
		}
	}
	for i := range doc.Decode {
		if !measure.StatusDone(doc.Decode[i].Status) {
			doc.Decode[i].Status, doc.Decode[i].Reason = rundoc.StatusFailed, reason
		}
	}
}
