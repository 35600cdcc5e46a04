package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/replay"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
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
// 0 ms); the same server without the proxy is valid, its TPOT the server's own.
func TestCaseRateBufferingProxy(t *testing.T) {
	t.Parallel()
	c := rateCell(t, runReplay(t, with(vllm, func(c *replay.Config) { c.Buffered = true }), false, rateArgs...))
	if c.Status == rundoc.StatusValid || !slices.Contains(c.Flags, "timing_unresolved") || !strings.Contains(c.Reason, "arrived whole") {
		t.Errorf("buffering proxy: %s %q %v; want not valid, timing_unresolved", c.Status, c.Reason, c.Flags)
	}
	cr := runReplay(t, vllm, false, rateArgs...)
	c = rateCell(t, cr)
	// Valid, unless a loaded machine made the client send late (client_lagged), and
	// never for streams arriving whole; TPOT the server's own.
	truth := serverTPOT(cr.log, 24)
	if c.Status != rundoc.StatusValid && !slices.Contains(c.Flags, "client_lagged") || slices.Contains(c.Flags, "timing_unresolved") {
		t.Errorf("the server streamed: %s %q %v; want valid", c.Status, c.Reason, c.Flags)
	}
	if p := c.TPOTMs.P50; p == nil || abs(*p-truth)/truth > 0.05 {
		t.Errorf("the server streamed: TPOT p50 %v, want within 5%% of the server's own %.2f ms", p, truth)
	}
}

// serverTPOT is the median over the server's streamed requests of maxTokens of their
// time per output token by its own log: (last write − first) / (tokens − 1).
func serverTPOT(log []*replay.Record, maxTokens int) float64 {
	var v []float64
	for _, r := range log {
		if !r.Stream || r.MaxTokens != maxTokens || len(r.Emits) < 2 {
			continue
		}
		n := 0
		for _, e := range r.Emits {
			n += e.K
		}
		span := r.Emits[len(r.Emits)-1].At.Sub(r.Emits[0].At)
		v = append(v, float64(span)/1e6/float64(n-1))
	}
	return stats.Median(v)
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
