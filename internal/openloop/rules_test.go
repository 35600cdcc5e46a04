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

// exactRequest is request i of a cell at 10/s, as a server with exact timing serves
// it: its first token 50 ms after its scheduled send, then one token every 10 ms,
// counted per chunk; it ends after got of the asked tokens, finishing with finish.
func exactRequest(i, asked, got int, finish string) measure.Request {
	sched := int64(1_800_000_000e9) + int64(i)*100*int64(time.Millisecond)
	ms := int64(time.Millisecond)
	q := measure.Request{Scheduled: sched, Slot: sched, Sent: sched, FirstToken: sched + 50*ms,
		InputTarget: 64, OutputTarget: asked, Tokens: got, FinishReason: finish, Outcome: "finished", ChunkUsage: true,
		Usage: &openai.Usage{PromptTokens: 64, CompletionTokens: got, PromptTokensDetails: &openai.PromptTokensDetails{CachedTokens: openai.Ptr(0)}}}
	for k := range got {
		q.Chunks = append(q.Chunks, [3]int64{(50 + 10*int64(k)) * ms, 1, 1})
	}
	q.Events = got
	q.End = q.Sent + q.Chunks[got-1][0]
	return q
}

// exactCell is n requests of 10 tokens, of which the ones in early ended after 5 with
// "stop".
func exactCell(n int, early ...int) []measure.Request {
	reqs := make([]measure.Request, n)
	for i := range reqs {
		reqs[i] = exactRequest(i, 10, 10, "length")
		if slices.Contains(early, i) {
			reqs[i] = exactRequest(i, 10, 5, "stop")
		}
	}
	return reqs
}

// TestRateEarlyEndsJudgedByTheirShare: an open-loop cell is judged by the share of its
// finished requests that ended early, as the matrix's cells are by their bound. One
// early end in 40 against a server known to honour ignore_eos used to make the cell
// invalid though every figure stood: now it is valid, flagged, and its TTFT and TPOT
// are the server's own. Early ends beyond 3% make it invalid where ignore_eos is not
// known too (before: valid, its E2E latencies those of requests half as long).
func TestRateEarlyEndsJudgedByTheirShare(t *testing.T) {
	ttft, tpot := 50.0, 10.0
	in := RateInput{Rate: 10, Arrival: "constant", IgnoreEOSKnown: true, SLO: &rundoc.SLO{TTFTMs: &ttft, TPOTMs: &tpot, Target: 0.9}}
	c := ScoreRate(exactCell(40, 7), in)
	f := c.RateFigures
	if c.Status != rundoc.StatusValid || !slices.Contains(f.Flags, "ended_early") || f.EndedEarly != 1 || f.EarlyEndLoss == nil || *f.EarlyEndLoss != 0.025 {
		t.Fatalf("1 of 40 ended early: %s %q flags %v, %d early, loss %v; want valid, ended_early, 0.025", c.Status, c.Reason, f.Flags, f.EndedEarly, f.EarlyEndLoss)
	}
	if *f.TTFTMs.P50 != 50 || *f.TPOTMs.P50 != 10 || *f.SLOMetRatio != 1 || *f.E2EMs.P50 != 140 {
		t.Errorf("TTFT p50 %v, TPOT p50 %v, SLO met %v, E2E p50 %v; want the server's 50, 10, 1, 140", *f.TTFTMs.P50, *f.TPOTMs.P50, *f.SLOMetRatio, *f.E2EMs.P50)
	}
	for _, tc := range []struct {
		name   string
		n      int
		early  []int
		known  bool
		status rundoc.Status
		reason string
	}{
		{"3 of 100: 3%, within the bound", 100, []int{1, 50, 99}, true, rundoc.StatusValid, ""},
		{"4 of 100: beyond 3%", 100, []int{1, 2, 50, 99}, true, rundoc.StatusInvalid, "4 of 100 finished requests ended before their output length despite ignore_eos (4.0%, more than 3%)"},
		{"10 of 40, ignore_eos not known", 40, []int{0, 4, 8, 12, 16, 20, 24, 28, 32, 36}, false, rundoc.StatusInvalid, "10 of 40 finished requests ended before their output length (25.0%, more than 3%): the cell measured shorter requests"},
		{"1 of 40, ignore_eos not known", 40, []int{7}, false, rundoc.StatusValid, ""},
	} {
		in.IgnoreEOSKnown = tc.known
		c := ScoreRate(exactCell(tc.n, tc.early...), in)
		if c.Status != tc.status || !strings.Contains(c.Reason, tc.reason) || !slices.Contains(c.Flags, "ended_early") {
			t.Errorf("%s: %s %q %v; want %s %q, flagged ended_early", tc.name, c.Status, c.Reason, c.Flags, tc.status, tc.reason)
		}
	}
}

// TestRateEarlyEndPerRequest: a request ends early as the matrix's does — any finish
// but "length", or a "length" finish short of its asked tokens by the server's count.
// A "length" finish the server did not count is taken at its word: chunks of three
// tokens each (a server that holds back a character's bytes) made the client's count
// a third of the truth, and every request counted as ended early.
func TestRateEarlyEndPerRequest(t *testing.T) {
	in := RateInput{Rate: 10, Arrival: "constant"}
	chunked := exactCell(20)
	for i := range chunked {
		q := &chunked[i]
		q.Usage, q.ChunkUsage = nil, false
		q.Chunks, q.Tokens = q.Chunks[:4], 4 // 12 asked, 4 chunks of 3 tokens
		q.OutputTarget = 12
	}
	if c := ScoreRate(chunked, in); c.EndedEarly != 0 || slices.Contains(c.Flags, "ended_early") {
		t.Errorf("length finishes without a server count: %d ended early, flags %v; want none", c.EndedEarly, c.Flags)
	}
	short := exactCell(20)
	for i := range short {
		short[i].Usage.CompletionTokens = 8 // "length" at 8 of the 10 asked: a slot's context full
		short[i].ChunkUsage = false
	}
	if c := ScoreRate(short, in); c.EndedEarly != 20 || c.Status != rundoc.StatusInvalid {
		t.Errorf("length finishes at 8 of 10 tokens by the server's count: %d ended early, %s %q; want 20, invalid", c.EndedEarly, c.Status, c.Reason)
	}
}

// TestRateWholeStreamsNotTimed: behind a proxy that releases each stream whole, every
// token of a request arrives in one read: TTFT is the whole answer's, TPOT and ITL are
// nothing. The cell is not valid (before: valid, TPOT 0). A server that streams fast —
// tokens 0.25 ms apart, the emulator at --speed 10 — is timed and stays valid, and so
// are a speculative server's drafted bursts.
func TestRateWholeStreamsNotTimed(t *testing.T) {
	in := RateInput{Rate: 10, Arrival: "constant"}
	at := func(reqs []measure.Request, gap int64, speculative bool) []measure.Request {
		for i := range reqs {
			q := &reqs[i]
			for k := range q.Chunks {
				q.Chunks[k][0] = q.Chunks[0][0] + int64(k)*gap
			}
			q.End = q.Sent + q.Chunks[len(q.Chunks)-1][0]
			q.Speculative = speculative
		}
		return reqs
	}
	whole := ScoreRate(at(exactCell(20), 1000, false), in) // 1 µs apart: one read
	if whole.Status != rundoc.StatusInvalid || !slices.Contains(whole.Flags, "timing_unresolved") || !strings.Contains(whole.Reason, "20 requests arrived whole") {
		t.Errorf("whole streams: %s %q %v; want invalid, timing_unresolved", whole.Status, whole.Reason, whole.Flags)
	}
	fast := ScoreRate(at(exactCell(20), 250_000, false), in)
	if fast.Status != rundoc.StatusValid || *fast.TPOTMs.P50 != 0.25 {
		t.Errorf("tokens 0.25 ms apart: %s %q, TPOT %v; want valid, 0.25", fast.Status, fast.Reason, *fast.TPOTMs.P50)
	}
	if c := ScoreRate(at(exactCell(20), 1000, true), in); c.Status != rundoc.StatusValid {
		t.Errorf("a speculative server's bursts: %s %q; want valid", c.Status, c.Reason)
	}
	// Two whole requests of twenty hold 10% of the tokens: not more than 10%, valid.
	some := exactCell(20)
	at(some[:2], 1000, false)
	if c := ScoreRate(some, in); c.Status != rundoc.StatusValid {
		t.Errorf("2 of 20 requests whole (10%% of the tokens): %s %q; want valid", c.Status, c.Reason)
	}
}

// TestRateRulesFlagWhatFails: each of the open loop's rules, failed alone, makes the
// cell invalid with its flag and its reason, and sets no other rule's flag; a cell
// that fails none is valid.
func TestRateRulesFlagWhatFails(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func([]measure.Request, *RateInput)
		flag   string
		reason string
	}{
		{"none", func([]measure.Request, *RateInput) {}, "", ""},
		{"server counts fewer", func(r []measure.Request, _ *RateInput) {
			for i := range r {
				r[i].Usage.CompletionTokens, r[i].OutputTarget = 9, 9 // what it asked, by the server's count
			}
		}, "token_counts_disagree", "client counted 200 output tokens, the server 180"},
		{"prompts off target", func(r []measure.Request, _ *RateInput) {
			for i := range r {
				r[i].Usage.PromptTokens = 70
			}
		}, "prompt_off_target", "prompts averaged 70.0 tokens, 64.0 asked"},
		{"no usage", func(r []measure.Request, _ *RateInput) {
			for i := range r {
				r[i].Usage, r[i].ChunkUsage = nil, false
			}
		}, "token_counts_unverified", "the server reported no usage"},
		{"prompts cached", func(r []measure.Request, _ *RateInput) {
			for i := range r {
				r[i].InputTarget, r[i].Usage.PromptTokens = 200, 200
				r[i].Usage.PromptTokensDetails.CachedTokens = openai.Ptr(150)
			}
		}, "prompts_shared", "the prompts were not unique to it"},
		{"client late", func(r []measure.Request, _ *RateInput) {
			r[3].Sent += int64(80 * time.Millisecond)
		}, "client_lagged", "the client sent 1 of 20 requests over 50ms late"},
		{"client CPU", func(_ []measure.Request, in *RateInput) { in.ClientCPU = 0.95 }, "client_cpu_saturated", "the figures may be the client's limit"},
	} {
		reqs := exactCell(20)
		in := RateInput{Rate: 10, Arrival: "constant"}
		tc.mutate(reqs, &in)
		c := ScoreRate(reqs, in)
		want := rundoc.StatusInvalid
		if tc.flag == "" {
			want = rundoc.StatusValid
		}
		if c.Status != want || !strings.Contains(c.Reason, tc.reason) {
			t.Errorf("%s: %s %q, want %s %q", tc.name, c.Status, c.Reason, want, tc.reason)
		}
		for _, r := range measure.ValidityRules {
			if has := slices.Contains(c.Flags, r.Flag); has != (r.Flag == tc.flag) {
				t.Errorf("%s: flag %s %v (flags %v)", tc.name, r.Flag, has, c.Flags)
			}
		}
	}
}
