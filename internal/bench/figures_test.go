package bench

import (
	"testing"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/rundoc"
	seedcopy "github.com/llmbench/llmbench/internal/seed"
)

// msReq builds a request record on a clock in milliseconds: sent, first token, end,
// its outcome, and a chunk of n tokens every step ms from first to last.
func msReq(sent, first, end int, outcome string, n, step, last int) measure.Request {
	const ms, base = int64(1e6), int64(1e12) // a clock does not start at 0
	q := measure.Request{Sent: base + int64(sent)*ms, FirstToken: base + int64(first)*ms, End: base + int64(end)*ms, Outcome: outcome}
	for m := first; m <= last; m += step {
		q.Chunks = append(q.Chunks, [3]int64{int64(m-sent) * ms, int64(n), 1})
		q.Tokens += n
	}
	if outcome == "finished" {
		q.FinishReason = "length"
	}
	return q
}

// TestCellFigures checks each figure's definition on a hand-made cell: two streams, a
// token every 20 ms on one and a 3-token chunk every 60 ms on the other (the server
// counting each chunk), a window of exactly 1 s.
func TestCellFigures(t *testing.T) {
	a := msReq(0, 100, 1200, "cancelled", 1, 20, 1200)
	b := msReq(0, 200, 700, "finished", 3, 60, 680)
	// b's replacement, sent at 700 ms: first token 100 ms later.
	c := msReq(700, 800, 1200, "cancelled", 3, 60, 1160)
	b.ChunkUsage, c.ChunkUsage = true, true
	reqs := []measure.Request{a, b, c}
	w := span{1e12 + 200e6, 1e12 + 1200e6}
	f := cellFigures(reqs, resolveCounts(reqs), w)
	fig, stats, detail := f.fig, f.stats, f.detail

	// Tokens after 200 ms up to 1200 ms: a has 50 (220..1200), b 8 chunks × 3 (260..680),
	// c 7 chunks × 3 (800..1160).
	if stats.OutputTokens != 50+24+21 {
		t.Errorf("output tokens = %d, want 95", stats.OutputTokens)
	}
	if fig.TotalTokS != 95 {
		t.Errorf("total tok/s = %v, want 95", fig.TotalTokS)
	}
	// a in flight the whole second, b 200–700, c 700–1200: 2 on average. Producing:
	// a the whole second, b 200–700, c from its first token at 800: 1.9.
	if stats.AvgInFlight == nil || *stats.AvgInFlight != 2 {
		t.Errorf("avg in flight = %v, want 2", stats.AvgInFlight)
	}
	if stats.AvgActiveRequests != 1.9 {
		t.Errorf("avg active = %v, want 1.9", stats.AvgActiveRequests)
	}
	if fig.PerRequestTokS != 50 {
		t.Errorf("per request = %v, want 50", fig.PerRequestTokS)
	}
	// TPOT per stream: a (1200−220)/49, b (680−260)/21, c (1160−800)/18: 20 ms each.
	if fig.TBTMs != 20 || detail.TPOTStreams != 3 {
		t.Errorf("TBT = %v over %d streams, want 20 over 3 (60 ms chunks of 3 are 20 ms a token)", fig.TBTMs, detail.TPOTStreams)
	}
	// Chunk gaps: a's 49 of 20 ms, b's 7 and c's 6 of 60 ms.
	if g := detail.ITLMs; g == nil || g.Samples != 62 || g.P50 != 20 {
		t.Errorf("itl %+v, want 62 gaps, median 20", g)
	}
	if detail.StalledStreams != 0 || detail.MaxStallMs == nil || *detail.MaxStallMs != 60 {
		t.Errorf("stalls: %d streams, longest %v ms; want none, longest 60", detail.StalledStreams, detail.MaxStallMs)
	}
	// TTFTs 100, 200, 100: median 100.
	if fig.TTFTMs != 100 {
		t.Errorf("TTFT = %v, want 100", fig.TTFTMs)
	}
	if stats.CompletedRequests != 1 || stats.MeasuredS != 1 {
		t.Errorf("completed = %d, measured = %v", stats.CompletedRequests, stats.MeasuredS)
	}
	if detail.TTFTP90Ms != nil || detail.TBTP99Ms != nil {
		t.Error("tail percentiles reported from too few samples")
	}
}

// TestPerRequestShortRequests (issue 34 item 11): 32-token requests on a server
// whose gaps are exactly 20 ms, each replaced at once (30 ms to its first token).
// One request's tokens come at 50 tok/s; total tok/s over the active requests gave
// about 51.6, each request's first token (its prefill's) counted over its 31 gaps.
func TestPerRequestShortRequests(t *testing.T) {
	var reqs []measure.Request
	for s := 0; s < 2; s++ {
		for sent := s * 7; sent < 3200; {
			first := sent + 30
			last := first + 31*20
			q := msReq(sent, first, last, "finished", 1, 20, last)
			q.Stream, q.ChunkUsage = s+1, true
			reqs = append(reqs, q)
			sent = last
		}
	}
	w := span{1e12 + 1000e6, 1e12 + 3000e6}
	f := cellFigures(reqs, resolveCounts(reqs), w)
	if f.fig.TBTMs != 20 || f.fig.PerRequestTokS != 50 {
		t.Errorf("TBT %v ms, per request %v tok/s; want 20 and 50", f.fig.TBTMs, f.fig.PerRequestTokS)
	}
	old := f.fig.TotalTokS / f.stats.AvgActiveRequests
	t.Logf("per request %.2f tok/s; total %.2f over %.3f active requests would give %.2f", f.fig.PerRequestTokS, f.fig.TotalTokS, f.stats.AvgActiveRequests, old)
	if old < 51 {
		t.Errorf("the old definition gives %.2f here: the case no longer shows the issue", old)
	}
}

// TestPlanSeed: the seed page's over-capacity pattern follows from its KV cache (any
// size in [65,536, 81,919] tokens: 8 × 8K fits, 2 × 40K does not), max_model_len 65,536 and 8,192 output tokens.
func TestPlanSeed(t *testing.T) {
	seed, err := rundoc.ReadFile(seedcopy.RunPath())
	if err != nil {
		t.Fatalf("reading the seed run: %v", err)
	}
	for _, kv := range []int64{65536, 72000, 81919} {
		doc := &rundoc.Run{Config: seed.Config}
		mml := int64(65536)
		Plan(doc, rundoc.Limits{KVCacheTokens: &kv, MaxModelLen: &mml})
		for _, c := range doc.Decode {
			want := seed.Cell(c.Context, c.Concurrency).Status
			got := c.Status
			if got == rundoc.StatusPending {
				got = rundoc.StatusValid
			}
			if got != want {
				t.Errorf("kv %d: %s × %d is %s, the seed says %s", kv, rundoc.FormatTokens(c.Context), c.Concurrency, got, want)
			}
		}
	}
}
