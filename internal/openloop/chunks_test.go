package openloop

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// multiTokenRequest is one open-loop request as a server that holds tokens back
// streams it (Ollama with byte-fallback output: a character's two or three byte
// tokens arrive in one chunk) and counts them only at the end. Tokens are generated
// every tpot after the first; the chunk sizes cycle through sizes.
func multiTokenRequest(i int, t0 time.Time, ttft, tpot time.Duration, tokens int, sizes []int, finish bool) RateRequest {
	sched := t0.Add(time.Duration(i) * 500 * time.Millisecond)
	res := &openai.StreamResult{Sent: sched, FirstToken: sched.Add(ttft)}
	gen := 0 // tokens generated so far
	for k := 0; gen < tokens; k++ {
		n := min(sizes[k%len(sizes)], tokens-gen)
		gen += n
		// A chunk goes out when its last token is generated.
		at := res.FirstToken.Add(time.Duration(gen-1) * tpot)
		if !finish && gen > tokens/2 {
			break
		}
		res.Chunks = append(res.Chunks, openai.TokenChunk{At: at, N: 1, Events: 1})
		res.Tokens++
		res.End = at
	}
	if finish {
		res.Outcome, res.FinishReason = openai.OutcomeFinished, "length"
		res.Usage = &openai.Usage{PromptTokens: 100, CompletionTokens: tokens}
	} else {
		res.Outcome, res.Cancelled = openai.OutcomeCancelled, true
	}
	return RateRequest{Index: i, Scheduled: sched, Slot: sched, InputTarget: 100, OutputTarget: tokens, Result: res}
}

// TestRateCellMultiTokenChunks: chunks of several tokens counted only at the end
// leave an open-loop cell valid, with the server's count and an exact TPOT, unless
// unfinished requests (counted one per chunk) make the count too loose, or the
// server's count is below what the client saw.
func TestRateCellMultiTokenChunks(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	const tokens, ttft, tpot = 128, 40 * time.Millisecond, 5 * time.Millisecond
	sizes := []int{1, 3, 1, 1, 2, 1, 3} // 12 tokens in 7 chunks, as a byte-fallback text
	in := RateInput{Rate: rundoc.Rate(2), Arrival: "constant"}

	var reqs []RateRequest
	for i := range 20 {
		reqs = append(reqs, multiTokenRequest(i, t0, ttft, tpot, tokens, sizes, true))
	}
	cell := ScoreRate(Records(reqs, measure.Clock{}), in)
	f := cell.RateFigures
	if cell.Status != rundoc.StatusValid {
		t.Fatalf("all requests finished and counted by the server: status %s (%s), want valid", cell.Status, cell.Reason)
	}
	if f.OutputTokens != 20*tokens || !slices.Contains(f.Flags, "multi_token_chunks") {
		t.Errorf("output tokens %d flags %v, want the server's %d and multi_token_chunks", f.OutputTokens, f.Flags, 20*tokens)
	}
	// The last token comes (tokens − 1) × tpot after the first: TPOT is exact.
	if p50 := *f.TPOTMs.P50; math.Abs(p50-measure.Millis(tpot)) > 1e-9 {
		t.Errorf("TPOT p50 %.4f ms, want %.4f", p50, measure.Millis(tpot))
	}

	// Half the requests cut off half-way: a third of the tokens counted one per chunk.
	loose := slices.Clone(reqs)
	for i := 0; i < len(loose); i += 2 {
		loose[i] = multiTokenRequest(i, t0, ttft, tpot, tokens, sizes, false)
	}
	cell = ScoreRate(Records(loose, measure.Clock{}), in)
	if cell.Status != rundoc.StatusInvalid || !strings.Contains(cell.Reason, "bounded only to") || cell.TokenCountBound == nil {
		t.Errorf("half the requests unfinished with 1.7 tokens a chunk: status %s (%s), want invalid on the count's bound", cell.Status, cell.Reason)
	} else {
		t.Logf("bound %.3f: %s", *cell.TokenCountBound, cell.Reason)
	}

	// One unfinished request in twenty: bounded well within 3%.
	few := slices.Clone(reqs)
	few[19] = multiTokenRequest(19, t0, ttft, tpot, tokens, sizes, false)
	if cell = ScoreRate(Records(few, measure.Clock{}), in); cell.Status != rundoc.StatusValid || cell.TokenCountBound == nil || *cell.TokenCountBound > measure.MaxCountBound {
		t.Errorf("one request of twenty unfinished: status %s (%s), bound %v, want valid with a bound ≤ 3%%", cell.Status, cell.Reason, cell.TokenCountBound)
	}

	// A server that counts fewer tokens than the client saw chunks is wrong somewhere.
	short := slices.Clone(reqs)
	for i := range short {
		r := *short[i].Result
		r.Usage = &openai.Usage{PromptTokens: 100, CompletionTokens: r.Tokens / 2}
		short[i].Result = &r
	}
	if cell = ScoreRate(Records(short, measure.Clock{}), in); cell.Status != rundoc.StatusInvalid || !strings.Contains(cell.Reason, "client counted") {
		t.Errorf("server counts half the chunks: status %s (%s), want invalid", cell.Status, cell.Reason)
	}
}

// TestGoodputIsAchievedWhenAllMeetTheSLO: with every request finished inside targets
// none can miss, goodput is the achieved rate to the last digit, whatever the span's
// rounding (CI saw 1.094 against 1.095 when goodput divided by duration_s rounded).
func TestGoodputIsAchievedWhenAllMeetTheSLO(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	ttftMs, tpotMs := 10_000.0, 2_000.0
	in := RateInput{Rate: rundoc.Rate(1), Arrival: "constant", SLO: &rundoc.SLO{TTFTMs: &ttftMs, TPOTMs: &tpotMs, Target: 0.9}}
	mismatches := 0
	// Spans 7 µs apart cross many of duration_s's millisecond rounding boundaries.
	for k := range 300 {
		var reqs []RateRequest
		ttft := 300*time.Millisecond + time.Duration(k)*7*time.Microsecond
		for i := range 6 {
			reqs = append(reqs, multiTokenRequest(i, t0, ttft, 9*time.Millisecond, 24, []int{1, 2}, true))
		}
		f := ScoreRate(Records(reqs, measure.Clock{}), in).RateFigures
		if f.SLOMetRatio == nil || *f.SLOMetRatio != 1 || f.GoodputRPS == nil || f.AchievedRPS == nil {
			t.Fatalf("ttft %v: slo_met_ratio %v goodput %v achieved %v, want 1 and both rates", ttft, f.SLOMetRatio, f.GoodputRPS, f.AchievedRPS)
		}
		if *f.GoodputRPS != *f.AchievedRPS {
			mismatches++
			t.Errorf("span %.6f s: goodput %.3f, achieved %.3f", f.DurationS, *f.GoodputRPS, *f.AchievedRPS)
		}
	}
	if mismatches > 0 {
		t.Errorf("%d of 300 spans gave goodput ≠ achieved with every request meeting the SLO", mismatches)
	}
}
