package e2e

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// Open-loop rates against Ollama: low enough that 4 slots never queue on a 2-core
// machine (a request of 128 prompt and 24 output tokens takes well under a second).
const (
	openLoopRates  = "1,2"
	openLoopInput  = 128
	openLoopOutput = 24
)

// checkOpenLoop runs two request rates on a constant schedule against the real
// engine, with SLO targets no request of this tiny model can miss, and checks what the
// rate cells say against what the schedule and the targets make certain: every
// request sent on time finished with its tokens counted, the offered rate is the
// schedule's, every request met the SLO, so goodput is the achieved rate.
func checkOpenLoop(t *testing.T, ctx context.Context, llmbench string, s *ollamaServer, model string) {
	doc := filepath.Join(t.TempDir(), "rate.json")
	llmbenchCmd(t, ctx, llmbench, "run", "--endpoint", s.base, "--model", model,
		"--rate", openLoopRates, "--arrival", "constant", "--duration", "6s",
		"--input-len", fmt.Sprint(openLoopInput), "--output-len", fmt.Sprint(openLoopOutput),
		"--slo", "ttft=10s,tpot=2s", "--out", doc, "--no-progress", "--format", "none")
	run, err := rundoc.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Rate) != 2 {
		t.Fatalf("%d rate cells, want 2 (%s)", len(run.Rate), openLoopRates)
	}
	for _, c := range run.Rate {
		rate := float64(c.RateRPS)
		if c.Status != rundoc.StatusValid || c.RateFigures == nil {
			t.Errorf("%v/s: status %q (%s), want valid", c.RateRPS, c.Status, c.Reason)
			continue
		}
		t.Logf("%v/s: offered %.3f, achieved %.3f, goodput %.3f, TTFT p50 %.1f ms, TPOT p50 %.2f ms, %d requests, prompts %.1f tokens (%.1f asked), saturation %v, flags %v",
			c.RateRPS, orNaN(c.OfferedRPS), orNaN(c.AchievedRPS), orNaN(c.GoodputRPS), orNaN(c.TTFTMs.P50), orNaN(c.TPOTMs.P50), c.Requests, c.PromptTokensMean, c.PromptTokensTarget, c.Saturation, c.Flags)
		if c.FailedRequests != 0 || c.UnfinishedRequests != 0 || c.CompletedRequests != c.Requests || c.Requests < 2 {
			t.Errorf("%v/s: %d requests, %d completed, %d failed %v, %d unfinished; want all completed", c.RateRPS, c.Requests, c.CompletedRequests, c.FailedRequests, c.ErrorSamples, c.UnfinishedRequests)
		}
		// A constant schedule's offered rate is the rate itself.
		if c.OfferedRPS == nil || math.Abs(*c.OfferedRPS-rate) > 1e-6*rate {
			t.Errorf("%v/s: offered %v, want the constant schedule's %v", c.RateRPS, c.OfferedRPS, rate)
		}
		// Achieved is n completed over the span from the first send to the last end:
		// n / ((n−1)/rate + the last request's length), so at most n/(n−1) × the rate
		// and, with requests far shorter than a second, not much below it.
		n := float64(c.Requests)
		if a := orNaN(c.AchievedRPS); !(a > 0.6*rate && a <= 1.001*rate*n/(n-1)) {
			t.Errorf("%v/s: achieved %.3f requests/s", c.RateRPS, a)
		}
		if c.OutputTokens != c.Requests*openLoopOutput {
			t.Errorf("%v/s: %d output tokens for %d requests of %d", c.RateRPS, c.OutputTokens, c.Requests, openLoopOutput)
		}
		// The model's multi-byte text comes in chunks of several tokens, counted by
		// Ollama only at the end: the counts are the server's, and the cell says so.
		if !slices.Contains(c.Flags, "multi_token_chunks") {
			t.Errorf("%v/s: flags %v, want multi_token_chunks (the model writes multi-byte text)", c.RateRPS, c.Flags)
		}
		if c.TTFTMs.P50 == nil || *c.TTFTMs.P50 <= 0 || c.TPOTMs.P50 == nil || *c.TPOTMs.P50 <= 0 {
			t.Errorf("%v/s: TTFT p50 %v, TPOT p50 %v: want both measured", c.RateRPS, c.TTFTMs.P50, c.TPOTMs.P50)
		}
		if c.SLOMetRatio == nil || *c.SLOMetRatio != 1 || c.GoodputRPS == nil || c.AchievedRPS == nil || *c.GoodputRPS != *c.AchievedRPS {
			t.Errorf("%v/s: SLO met by %.4f, goodput %.3f against achieved %.3f; with targets no request can miss, want 1 and goodput = achieved",
				c.RateRPS, orNaN(c.SLOMetRatio), orNaN(c.GoodputRPS), orNaN(c.AchievedRPS))
		}
	}
}

// orNaN is a figure that may be null, as a number that fails every comparison.
func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
