package session

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/engine"
	"github.com/llmbench/llmbench/internal/progress"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// DryRunText is what --dry-run prints once the server is probed and the plan made:
// what would be measured and how long its windows alone take, so that a user sees a
// 30-minute plan before starting it.
func DryRunText(doc *rundoc.Run, info *engine.Info, model string) string {
	var w strings.Builder
	fmt.Fprintf(&w, "Dry run: the server was probed and the plan made; nothing was measured and no file written.\n")
	fmt.Fprintf(&w, "Server: %s %s, model %s%s\n", info.Engine, deref(info.Version), model, capacityNote(doc))
	writePlan(&w, doc)
	for _, n := range doc.Notes {
		fmt.Fprintf(&w, "Note: %s\n", n)
	}
	return w.String()
}

// writePlan is the plan part of DryRunText.
func writePlan(w io.Writer, doc *rundoc.Run) {
	cfg := doc.Config
	if cfg.Rate != nil {
		writeRatePlan(w, doc)
		return
	}
	pf := bench.CheckPlan(doc)
	prefill := "prefill at " + rundoc.FormatTokenList(cfg.PrefillContexts)
	if len(cfg.PrefillContexts) == 0 {
		prefill = "no prefill rows"
	}
	fmt.Fprintf(w, "Plan: contexts %s × concurrency %s, %s, %d max output tokens\n",
		rundoc.FormatTokenList(cfg.Contexts), intList(cfg.Concurrency), prefill, cfg.MaxOutputTokens)
	writeWorkloadPlan(w, cfg.Workload)
	fmt.Fprintf(w, "  %d of %d measurements run (%d of %d decode cells); %d over capacity, not sent\n",
		pf.Runnable, pf.Total, pf.RunnableCells, pf.Cells, pf.Total-pf.Runnable)
	repeats := max(cfg.Repeat, 1)
	fmt.Fprintf(w, "  %s of measurement windows (%s per cell", progress.FormatDuration(time.Duration(pf.RunnableCells*repeats)*cfg.Duration()), cfg.Duration())
	if repeats > 1 {
		fmt.Fprintf(w, ", %d times", repeats)
	}
	fmt.Fprintf(w, "), plus each row's prompt read\n")
}

// writeRatePlan is the open loop's plan: its rates (or the search's), request sizes
// and schedules' time.
func writeRatePlan(w io.Writer, doc *rundoc.Run) {
	cfg := doc.Config
	rates := make([]string, len(doc.Rate))
	for i, c := range doc.Rate {
		rates[i] = fmt.Sprint(c.RateRPS)
	}
	at := strings.Join(rates, ", ") + " req/s"
	if len(rates) == 0 {
		at = "the rates --find-max-rate tries"
	}
	if wl := cfg.Workload; wl != nil && wl.PrefixPool == nil {
		fmt.Fprintf(w, "Plan: open loop at %s, the workload's requests\n", at)
	} else {
		fmt.Fprintf(w, "Plan: open loop at %s, %d prompt and %d output tokens per request\n", at, cfg.Rate.InputLen, cfg.Rate.OutputLen)
	}
	writeWorkloadPlan(w, cfg.Workload)
	cells := len(doc.Rate)
	if s := cfg.Rate.Search; s != nil {
		cells = max(cells, s.MaxSteps)
		fmt.Fprintf(w, "  --find-max-rate: up to %d rates, from %v req/s\n", s.MaxSteps, s.Start)
	}
	fmt.Fprintf(w, "  at most %s of schedules (%s per rate), plus the drains\n", progress.FormatDuration(time.Duration(cells)*cfg.Duration()), cfg.Duration())
}

// capacityNote is ", KV cache N tokens (server), max_model_len M, S slots of T tokens"
// as far as known.
func capacityNote(doc *rundoc.Run) string {
	c := doc.Capacity
	if c == nil {
		return ""
	}
	s := ""
	if c.KVCacheTokens != nil {
		s += fmt.Sprintf(", KV cache %s tokens (%s)", report.FormatInt("en", int(*c.KVCacheTokens)), c.Source)
	}
	if c.MaxModelLen != nil {
		s += ", max_model_len " + report.FormatInt("en", int(*c.MaxModelLen))
	}
	if c.Slots != nil && c.SlotTokens != nil {
		s += fmt.Sprintf(", %d slots of %s tokens (more requests than slots queue)", *c.Slots, report.FormatInt("en", int(*c.SlotTokens)))
	}
	return s
}

func intList(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}
