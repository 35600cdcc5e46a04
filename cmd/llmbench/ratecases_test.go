package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/replay"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// rateArgs is a short --rate run: 30 requests at 20/s of 24 tokens each.
var rateArgs = []string{"--rate", "20", "--requests", "30", "--duration", "2s", "--input-len", "64", "--output-len", "24"}

// rateCell is the run's one rate cell, or a fatal error.
func rateCell(t *testing.T, cr *conformanceRun) *rundoc.RateCell {
	t.Helper()
	if cr.doc == nil || len(cr.doc.Rate) != 1 || cr.doc.Rate[0].RateFigures == nil {
		t.Fatalf("no scored rate cell: %v\n%s", cr.err, cr.output)
	}
	c := &cr.doc.Rate[0]
	tpot := -1.0
	if p := c.TPOTMs.P50; p != nil {
		tpot = *p
	}
	t.Logf("rate %s: %s %q, flags %v, TPOT p50 %.2f ms", c.RateRPS, c.Status, c.Reason, c.Flags, tpot)
	return c
}

// TestCaseRateBufferingProxy: behind a proxy that releases each stream only when it is
// whole, a rate cell's every token of a request arrives in one read: its TTFT is the
// whole answer's, its TPOT and ITL nothing. It is not valid (before: valid, TPOT
// 0 ms); the same server without the proxy is valid, at its own step.
func TestCaseRateBufferingProxy(t *testing.T) {
	t.Parallel()
	c := rateCell(t, runReplay(t, with(vllm, func(c *replay.Config) { c.Buffered = true }), false, rateArgs...))
	if c.Status == rundoc.StatusValid || !slices.Contains(c.Flags, "timing_unresolved") || !strings.Contains(c.Reason, "arrived whole") {
		t.Errorf("buffering proxy: %s %q %v; want not valid, timing_unresolved", c.Status, c.Reason, c.Flags)
	}
	c = rateCell(t, runReplay(t, vllm, false, rateArgs...))
	step := 20.0 // ms: the replay's default step
	if c.Status != rundoc.StatusValid || c.TPOTMs.P50 == nil || abs(*c.TPOTMs.P50-step)/step > 0.05 {
		t.Errorf("the server streamed: %s %q, TPOT p50 %v; want valid, within 5%% of its %.0f ms step", c.Status, c.Reason, c.TPOTMs.P50, step)
	}
}

// TestCaseRateEarlyEnds: Ollama (ignore_eos not taken) ends every request at an EOS
// after 10 of the 24 tokens asked. The rate cell measured requests less than half as
// long as its schedule asked: not valid (before: valid, flagged only).
func TestCaseRateEarlyEnds(t *testing.T) {
	t.Parallel()
	ollama := replay.Config{Shape: "ollama", Discovery: discoveryDir("ollama"), ChatOverhead: 3, EOSAfter: 10}
	c := rateCell(t, runReplay(t, ollama, false, rateArgs...))
	if c.Status == rundoc.StatusValid || !slices.Contains(c.Flags, "ended_early") || c.EndedEarly != c.CompletedRequests ||
		c.EarlyEndLoss == nil || *c.EarlyEndLoss != 1 || !strings.Contains(c.Reason, "finished requests ended before their output length") {
		t.Errorf("every request ended at 10 of 24 tokens: %s %q %v, %d of %d early, loss %v; want not valid, ended_early, loss 1", c.Status, c.Reason, c.Flags, c.EndedEarly, c.CompletedRequests, c.EarlyEndLoss)
	}
}
