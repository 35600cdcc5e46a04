package openloop

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// jitteredRate draws an open-loop cell whose latencies have known quantiles: TTFT
// exponential with mean ttftMean past a 20 ms floor, outTokens tokens per request
// with gaps of gapMean × (1 ± 30%), and requests scheduled every 100 ms.
func jitteredRate(seed uint64, n, outTokens int, ttftMean, gapMean time.Duration) []RateRequest {
	rng := rand.New(rand.NewPCG(seed, 7))
	base := time.Unix(1_000_000, 0)
	reqs := make([]RateRequest, n)
	for i := range reqs {
		at := base.Add(time.Duration(i) * 100 * time.Millisecond)
		first := at.Add(20*time.Millisecond + time.Duration(rng.ExpFloat64()*float64(ttftMean)))
		res := &openai.StreamResult{Sent: at, FirstToken: first, Tokens: outTokens, FinishReason: "length", Outcome: openai.OutcomeFinished,
			Usage: &openai.Usage{PromptTokens: 100, CompletionTokens: outTokens}, ChunkUsage: true}
		t := first
		for k := range outTokens {
			if k > 0 {
				t = t.Add(time.Duration(float64(gapMean) * (1 + 0.3*(2*rng.Float64()-1))))
			}
			res.Chunks = append(res.Chunks, openai.TokenChunk{At: t, N: 1, Events: 1})
		}
		res.End = t
		reqs[i] = RateRequest{Index: i, Scheduled: at, Slot: at, InputTarget: 100, OutputTarget: outTokens, Result: res}
	}
	return reqs
}

// TestRateIntervalsCoverage: the TTFT median's and p90's intervals hold the true
// quantiles in at least 17 of 20 cells, ITL's median interval the true median gap, and
// goodput's Wilson interval the true share of requests under an SLO.
func TestRateIntervalsCoverage(t *testing.T) {
	const cells, n = 20, 300
	ttftMean, gap := 50*time.Millisecond, 10*time.Millisecond
	truthP50 := 20 + 50*math.Ln2
	truthP90 := 20 + 50*math.Log(10)
	slo := 100.0 // ms of TTFT: met with probability 1 − e^(−80/50)
	truthShare := 1 - math.Exp(-80.0/50)
	in := map[string]int{}
	for i := range cells {
		cell := ScoreRate(Records(jitteredRate(uint64(i+1), n, 20, ttftMean, gap), measure.Clock{}), RateInput{Rate: 10, Arrival: "constant", SLO: &rundoc.SLO{TTFTMs: &slo, Target: 0.5}})
		ri := cell.RateIntervals
		if ri == nil || ri.TTFTMs == nil || ri.TTFTMs.P50 == nil || ri.TTFTMs.P90 == nil || ri.ITLMs == nil || ri.ITLMs.P50 == nil || ri.SLOMetRatioCI == nil || ri.GoodputRPSCI == nil {
			t.Fatalf("cell %d: intervals %+v", i, ri)
		}
		if ri.TTFTMs.P99 != nil {
			t.Errorf("cell %d: a p99 interval from %d samples", i, n)
		}
		for name, hit := range map[string]bool{
			"ttft p50": ri.TTFTMs.P50.Contains(truthP50), "ttft p90": ri.TTFTMs.P90.Contains(truthP90),
			"itl p50": ri.ITLMs.P50.Contains(10), "slo share": ri.SLOMetRatioCI.Contains(truthShare),
		} {
			if hit {
				in[name]++
			}
		}
		if g := *cell.GoodputRPS; !ri.GoodputRPSCI.Contains(g) {
			t.Errorf("cell %d: goodput %.3f outside its interval %+v", i, g, *ri.GoodputRPSCI)
		}
	}
	t.Logf("truth inside, of %d cells: %v", cells, in)
	for _, name := range []string{"ttft p50", "ttft p90", "itl p50", "slo share"} {
		if in[name] < 17 {
			t.Errorf("%s: truth inside %d of %d intervals, want ≥ 17", name, in[name], cells)
		}
	}
}
