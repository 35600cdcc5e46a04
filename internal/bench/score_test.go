package bench

import (
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/rundoc"
)

const (
	tBase = int64(1e12) // the run's clock does not start at 0
	msNs  = int64(1e6)
)

// synthCell is a cell of n streams that each sent at tBase, had a first token 50 ms
// later and one token every 20 ms (the server counting each chunk) until the window
// closed 2 s after it opened at tBase + 1 s, and were cancelled then.
func synthCell(n int) *CellRun {
	run := &CellRun{Context: 0, Concurrency: n, DurationS: 2, MaxOutput: 4096,
		Open: tBase + 1000*msNs, Close: tBase + 3000*msNs, CPUs: 2, ClientCPUNs: 200 * msNs}
	for s := 0; s < n; s++ {
		q := measure.Request{Sent: tBase, FirstToken: tBase + 50*msNs, End: tBase + 3001*msNs, Outcome: "cancelled", ChunkUsage: true, Reads: 150}
		for m := int64(50); m <= 3000; m += 20 {
			q.Chunks = append(q.Chunks, [3]int64{m * msNs, 1, 1})
			q.Tokens++
			q.Events++
		}
		run.Requests = append(run.Requests, q)
	}
	return run
}

// endEarly makes request i finish by itself after its first chunks, and replaces it
// at once with a request that streams to the window's close (the closed loop).
func endEarly(r *CellRun, i, chunks int) {
	q := &r.Requests[i]
	q.Chunks, q.Outcome, q.FinishReason = q.Chunks[:chunks], "finished", "length"
	q.End = q.Sent + q.Chunks[chunks-1][0]
	next := measure.Request{Sent: q.End, FirstToken: q.End + 50*msNs, End: r.Close + msNs, Outcome: "cancelled", ChunkUsage: q.ChunkUsage, Reads: 100}
	for at := next.FirstToken; at <= r.Close; at += 20 * msNs {
		next.Chunks = append(next.Chunks, [3]int64{at - next.Sent, 1, 1})
		next.Events++
	}
	r.Requests = append(r.Requests, next)
}

// slowStart delays a request's first token (and every later one) by d.
func slowStart(q *measure.Request, d int64) {
	q.FirstToken += d
	kept := q.Chunks[:0]
	for _, ch := range q.Chunks {
		if ch[0] += d; q.Sent+ch[0] <= q.End {
			kept = append(kept, ch)
		}
	}
	q.Chunks = kept
}

// TestValidityRules: each rule fails the cell it should, with its flag and reason, and
// only that one; the baseline is valid.
func TestValidityRules(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*CellRun)
		status rundoc.Status
		flag   string
		reason string
	}{
		{"baseline", func(*CellRun) {}, rundoc.StatusValid, "", ""},
		{"window short", func(r *CellRun) { r.Close = r.Open + 1500*msNs }, rundoc.StatusInvalid, "window_short", "window lasted 1.5 s, 2.0 s asked"},
		{"streams not in flight", func(r *CellRun) {
			for i := 0; i < 2; i++ {
				q := &r.Requests[i]
				q.End, q.Outcome, q.Error = r.Open+200*msNs, "failed", "HTTP 500: boom"
				q.Chunks = q.Chunks[:50]
			}
		}, rundoc.StatusInvalid, "not_in_flight", "only 2.20 of 4 requests were in flight on average (HTTP 500: boom)"},
		// An early end costs the figure its successor's time before its first token
		// (earlyend.go): 40 ms of the window's 4 × 2 s here, 0.5%: flagged, valid.
		{"ended early within the bound", func(r *CellRun) {
			r.IgnoreEOSKnown = true
			endEarly(r, 0, 48)
			r.Requests[0].FinishReason = "stop"
		}, rundoc.StatusValid, "ended_early", ""},
		// A "length" finish short of max output (a slot's context full) is early too.
		{"a length finish short of max output", func(r *CellRun) { endEarly(r, 0, 48) }, rundoc.StatusValid, "ended_early", ""},
		// Successors that wait 450 ms for their first token, twice: 900 ms of the
		// window's 4 × 2 s, 11.2%.
		{"ended early beyond the bound", func(r *CellRun) {
			r.IgnoreEOSKnown = true
			for i := 0; i < 2; i++ {
				endEarly(r, i, 60)
				r.Requests[i].FinishReason = "stop"
				slowStart(&r.Requests[len(r.Requests)-1], 400*msNs)
			}
		}, rundoc.StatusInvalid, "ended_early", "2 requests ended before max output despite ignore_eos, and the requests that replaced them spent 11.2% of the window's stream-time before their first token"},
		{"prompt off target", func(r *CellRun) { r.PromptTarget, r.PromptTokens = 1000, 1100 }, rundoc.StatusInvalid, "prompt_off_target", "prompt has 1100 tokens, 1000 asked"},
		{"counts unverified", func(r *CellRun) {
			for i := range r.Requests {
				r.Requests[i].ChunkUsage = false
			}
		}, rundoc.StatusInvalid, "token_counts_unverified", "nothing the server said verifies the client's count of 400 tokens"},
		{"counts verified by the generation counter", func(r *CellRun) {
			for i := range r.Requests {
				r.Requests[i].ChunkUsage = false
			}
			r.Server = &rundoc.ServerMetrics{Samples: 4, GenerationTokens: openai.Ptr(404.0)}
		}, rundoc.StatusValid, "", ""},
		{"several tokens per chunk, counted only in total", func(r *CellRun) {
			for i := range r.Requests {
				r.Requests[i].ChunkUsage = false
			}
			// One request finished inside the window: 50 chunks that its usage says held
			// 150 tokens.
			endEarly(r, 0, 50)
			r.Requests[0].Usage = &openai.Usage{CompletionTokens: 150}
			r.MaxOutput = 150 // it asked for what it got
		}, rundoc.StatusInvalid, "token_count_bound", "only 1 request(s) the server counted in total: too few to bound it"},
		{"several tokens per chunk, counted by the tokenize route", func(r *CellRun) {
			for i := range r.Requests {
				r.Requests[i].ChunkUsage = false
				r.Requests[i].TextTokens = openai.Ptr(3 * len(r.Requests[i].Chunks))
			}
		}, rundoc.StatusValid, "", ""},
		{"several tokens per chunk, a ratio too uncertain", func(r *CellRun) {
			for i := range r.Requests {
				r.Requests[i].ChunkUsage = false
				// 1, 5, 1, 5 tokens a chunk: the ratio spreads over requests.
				r.Requests[i].TextTokens = openai.Ptr((1 + 4*(i%2)) * len(r.Requests[i].Chunks))
			}
			for i := 0; i < 2; i++ {
				endEarly(r, i, 5) // replacements the ratio of the four counts
			}
		}, rundoc.StatusInvalid, "token_count_bound", "more than 3%"},
		{"two of four streams stalled", func(r *CellRun) {
			for i := 0; i < 2; i++ {
				q := &r.Requests[i]
				q.Chunks = q.Chunks[:60] // nothing after 1.25 s, the connection kept open
			}
		}, rundoc.StatusInvalid, "stalled", "2 of 4 streams went more than 1s without a token"},
		// Bursts of two events: TPOT and TTFT are what the client saw, the figures stay
		// right (2 tokens a chunk, 200 tok/s); only a saturated machine makes them suspect.
		{"gaps not resolved", func(r *CellRun) { burst(r) }, rundoc.StatusValid, "timing_unresolved", ""},
		{"gaps not resolved on a saturated machine", func(r *CellRun) {
			burst(r)
			r.MachineCPU = openai.Ptr(0.97)
		}, rundoc.StatusInvalid, "timing_unresolved", "while the machine's CPUs were 97% busy: the client may have read them late"},
		{"a busy machine whose gaps were resolved", func(r *CellRun) { r.MachineCPU = openai.Ptr(0.97) }, rundoc.StatusValid, "", ""},
		{"bursts of a speculative server are its own", func(r *CellRun) {
			for i := range r.Requests {
				r.Requests[i].Speculative = true
				for j := range r.Requests[i].Chunks {
					r.Requests[i].Chunks[j][1], r.Requests[i].Chunks[j][2] = 2, 2
				}
			}
		}, rundoc.StatusValid, "", ""},
		{"client CPU saturated", func(r *CellRun) { r.ClientCPUNs = 2 * 1900 * msNs * 2 / 2 }, rundoc.StatusInvalid, "client_cpu_saturated", "the measuring client used nearly all CPUs"},
		{"cache not warm", func(r *CellRun) {
			r.Context = 1024
			q := &r.Requests[0]
			q.Usage = &openai.Usage{PromptTokens: 1030, PromptTokensDetails: &openai.PromptTokensDetails{CachedTokens: openai.Ptr(0)}}
		}, rundoc.StatusInvalid, "cache_not_warm", "the shared context was not cached (hit ratio 0.00)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := synthCell(4)
			tc.mutate(run)
			cell := ScoreCell(run)
			if cell.Status != tc.status {
				t.Fatalf("status %s (%s), want %s", cell.Status, cell.Reason, tc.status)
			}
			if !strings.Contains(cell.Reason, tc.reason) {
				t.Errorf("reason %q, want it to say %q", cell.Reason, tc.reason)
			}
			for _, r := range measure.ValidityRules {
				if has := contains(cell.Flags, r.Flag); has != (r.Flag == tc.flag) {
					t.Errorf("flag %s: %v, flags %v", r.Flag, has, cell.Flags)
				}
			}
		})
	}
}

// burst makes every chunk of the synthetic cell two events that arrived together.
func burst(r *CellRun) {
	for i := range r.Requests {
		for j := range r.Requests[i].Chunks {
			r.Requests[i].Chunks[j][1], r.Requests[i].Chunks[j][2] = 2, 2
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestClientNearCeiling: a cell faster than half the client's measured ceiling is
// flagged, and stays valid; without a ceiling, or under half of it, it is not; the
// client's CPU time over the window is recorded either way.
func TestClientNearCeiling(t *testing.T) {
	for _, tc := range []struct {
		ceiling float64
		flagged bool
	}{{0, false}, {1000, false}, {400, false}, {399, true}, {100, true}} {
		run := synthCell(4) // 200 tok/s
		run.ClientCPUNs = 123456789
		run.CeilingTokS = tc.ceiling
		cell := ScoreCell(run)
		if got := contains(cell.Flags, "client_near_ceiling"); got != tc.flagged || cell.Status != rundoc.StatusValid {
			t.Errorf("ceiling %.0f, %.1f tok/s: flagged %v, status %s; want flagged %v, valid", tc.ceiling, cell.TotalTokS, got, cell.Status, tc.flagged)
		}
		if cell.ClientCPUS == nil || *cell.ClientCPUS != 0.123 {
			t.Errorf("client_cpu_s %v, want 0.123", cell.ClientCPUS)
		}
	}
}

// TestScoreBaselineFigures: the synthetic cell's figures are what it was built with.
func TestScoreBaselineFigures(t *testing.T) {
	cell := ScoreCell(synthCell(4))
	if cell.TotalTokS != 200 || cell.TBTMs != 20 || cell.AvgActiveRequests != 4 || cell.TTFTMs != 50 {
		t.Errorf("figures %+v %+v", cell.DecodeFigures, cell.WindowStats)
	}
	if cell.TokenCountSource != rundoc.CountServerPerChunk || *cell.ClientOutputTokens != 400 || cell.OutputTokens != 400 {
		t.Errorf("counts: source %s, client %v, resolved %d", cell.TokenCountSource, cell.ClientOutputTokens, cell.OutputTokens)
	}
	if *cell.ZeroGapShare != 0 || *cell.ClientCPU != 0.05 {
		t.Errorf("zero gaps %v, client CPU %v", *cell.ZeroGapShare, *cell.ClientCPU)
	}
	if cell.Outcomes["cancelled"] != 4 {
		t.Errorf("outcomes %v", cell.Outcomes)
	}
}

// TestSettleCounts: each source of a request's count, and what it does to the chunks.
func TestSettleCounts(t *testing.T) {
	chunks := func(n int) [][3]int64 {
		var c [][3]int64
		for i := 0; i < n; i++ {
			c = append(c, [3]int64{int64(i+1) * msNs, 1, 1})
		}
		return c
	}
	finished := func(chunksN, usage int) measure.Request {
		return measure.Request{Chunks: chunks(chunksN), Outcome: "finished", FinishReason: "length", Usage: &openai.Usage{CompletionTokens: usage}}
	}
	open := func(chunksN int) measure.Request {
		return measure.Request{Chunks: chunks(chunksN), Outcome: "cancelled"}
	}
	cases := []struct {
		name    string
		reqs    []measure.Request
		sources []string
		totals  []int
	}{
		{"usage agrees", []measure.Request{finished(10, 10)}, []string{rundoc.CountServerTotals}, []int{10}},
		{"usage spread over chunks", []measure.Request{finished(10, 30)}, []string{rundoc.CountServerTotals}, []int{30}},
		{"tokenize route within a token", []measure.Request{func() measure.Request { q := open(100); q.TextTokens = openai.Ptr(101); return q }()}, []string{rundoc.CountTokenizeRoute}, []int{100}},
		{"tokenize route spread", []measure.Request{func() measure.Request { q := open(10); q.TextTokens = openai.Ptr(30); return q }()}, []string{rundoc.CountTokenizeRoute}, []int{30}},
		{"ratio of finished ones", []measure.Request{finished(10, 30), open(4)}, []string{rundoc.CountServerTotals, rundoc.CountFinishedRatio}, []int{30, 12}},
		{"ratio of one", []measure.Request{finished(10, 10), open(4)}, []string{rundoc.CountServerTotals, rundoc.CountFinishedRatio}, []int{10, 4}},
		{"nothing", []measure.Request{open(4)}, []string{rundoc.CountClientOnly}, []int{4}},
		{"per chunk", []measure.Request{func() measure.Request { q := open(4); q.ChunkUsage = true; q.Chunks[0][1] = 3; return q }()}, []string{rundoc.CountServerPerChunk}, []int{6}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := resolveCounts(tc.reqs)
			for i := range tc.reqs {
				total := 0
				for _, n := range c.counts[i] {
					total += n
				}
				if c.source[i] != tc.sources[i] || total != tc.totals[i] {
					t.Errorf("request %d: %s %d tokens, want %s %d", i, c.source[i], total, tc.sources[i], tc.totals[i])
				}
			}
			if tc.reqs[0].Chunks[0][1] != 1 && tc.name != "per chunk" {
				t.Error("resolveCounts changed its input")
			}
		})
	}
}

// TestScorePrefill: a prefill row from its cold request, and each way it cannot be one.
func TestScorePrefill(t *testing.T) {
	ok := measure.Request{Sent: tBase, FirstToken: tBase + 500*msNs, End: tBase + 501*msNs, Outcome: "finished", FinishReason: "length",
		Usage: &openai.Usage{PromptTokens: 2048, CompletionTokens: 1}}
	row := ScorePrefill(&PrefillRun{Context: 2048, Request: ok, Attempts: 2})
	if row.Status != rundoc.StatusValid || row.PromptTokS != 4096 || row.TTFTMs != 500 || row.Attempts != 2 {
		t.Errorf("row %+v %+v", row, row.PrefillFigures)
	}
	for _, tc := range []struct {
		run    PrefillRun
		status rundoc.Status
		reason string
	}{
		{PrefillRun{Context: 2048, Error: "cold request of 2K tokens: HTTP 503"}, rundoc.StatusFailed, "HTTP 503"},
		{PrefillRun{Context: 2048, Request: measure.Request{NotStreamed: true}}, rundoc.StatusFailed, "does not stream"},
		{PrefillRun{Context: 2048, Request: measure.Request{Sent: tBase, Outcome: "incomplete", Error: "the stream ended without a finish_reason"}}, rundoc.StatusFailed, "no token arrived"},
		{PrefillRun{Context: 4096, Request: ok}, rundoc.StatusInvalid, "prompt has 2048 tokens, 4096 asked"},
	} {
		row := ScorePrefill(&tc.run)
		if row.Status != tc.status || !strings.Contains(row.Reason, tc.reason) {
			t.Errorf("%+v: %s %q, want %s %q", tc.run, row.Status, row.Reason, tc.status, tc.reason)
		}
	}
}

// TestStalls: one of 16 streams silent for the last 1.5 s of the window is seen
// (max_stall_ms, stalled_streams, the flag, fewer producing than in flight) but, at
// under 10% of the window's stream-seconds, does not invalidate the cell.
func TestStalls(t *testing.T) {
	run := synthCell(16)
	q := &run.Requests[3]
	q.Chunks = q.Chunks[:73] // the last at 1.49 s: silent until the close at 3 s
	cell := ScoreCell(run)
	if cell.Status != rundoc.StatusValid || !contains(cell.Flags, "stalled") || cell.StalledStreams != 1 {
		t.Fatalf("%s %q, flags %v, %d stalled; want valid, flagged stalled, 1 stream", cell.Status, cell.Reason, cell.Flags, cell.StalledStreams)
	}
	if cell.MaxStallMs == nil || *cell.MaxStallMs != 1510 {
		t.Errorf("max stall %v ms, want 1510", *cell.MaxStallMs)
	}
	// 1.51 s of 32 stream-seconds.
	if cell.StallShare == nil || *cell.StallShare != 0.0472 {
		t.Errorf("stall share %v, want 0.0472", *cell.StallShare)
	}
	if *cell.AvgInFlight != 16 || cell.AvgActiveRequests != 15.245 {
		t.Errorf("in flight %v, producing %v; want 16 and 15.245", *cell.AvgInFlight, cell.AvgActiveRequests)
	}
}

// TestCountBound: the bound on a count spread from the tokenize route's totals is its
// rounding where every request has the same tokens per chunk, and grows with their
// spread.
func TestCountBound(t *testing.T) {
	run := synthCell(4)
	for i := range run.Requests {
		run.Requests[i].ChunkUsage = false
		run.Requests[i].TextTokens = openai.Ptr(3 * len(run.Requests[i].Chunks))
	}
	cell := ScoreCell(run)
	// 4 requests straddling the open, a token of rounding each: 2·√4 of 1,200 tokens.
	if cell.TokenCountBound == nil || *cell.TokenCountBound != 0.0033 || cell.OutputTokens != 1200 {
		t.Errorf("bound %v on %d tokens, want 0.0033 on 1200", cell.TokenCountBound, cell.OutputTokens)
	}
	// TPOT is 20 ms over 3 tokens a chunk.
	if cell.TBTMs != 6.67 || !contains(cell.Flags, "multi_token_chunks") {
		t.Errorf("TBT %v, flags %v; want 6.67, multi_token_chunks", cell.TBTMs, cell.Flags)
	}
	run = synthCell(4)
	for i := range run.Requests {
		run.Requests[i].ChunkUsage = false
		run.Requests[i].TextTokens = openai.Ptr(3*len(run.Requests[i].Chunks) + 3*i)
	}
	wider := ScoreCell(run)
	if wider.TokenCountBound == nil || *wider.TokenCountBound <= *cell.TokenCountBound {
		t.Errorf("bound %v with spread ratios, not above %v", wider.TokenCountBound, *cell.TokenCountBound)
	}
}

// proxyCell is n streams of 32-token requests whose tokens a buffering proxy
// released whole: each request's 32 events arrive in one read, 650 ms after it was
// sent (when the server had generated them), and the next is sent at once.
func proxyCell(n, whole int) *CellRun {
	run := &CellRun{Concurrency: n, DurationS: 2, MaxOutput: 32, Open: tBase + 1000*msNs, Close: tBase + 3000*msNs}
	for s := 0; s < n; s++ {
		for sent := tBase + int64(s)*7*msNs; sent < run.Close; sent += 650 * msNs {
			q := measure.Request{Sent: sent, FirstToken: sent + 30*msNs, End: sent + 650*msNs, Outcome: "finished", FinishReason: "length",
				ChunkUsage: true, Stream: s + 1, Tokens: 32, Events: 32, Reads: 1}
			if s < whole {
				q.FirstToken = q.End
				q.Chunks = [][3]int64{{650 * msNs, 32, 32}}
			} else {
				for k := int64(0); k < 32; k++ {
					q.Chunks = append(q.Chunks, [3]int64{(30 + 20*k) * msNs, 1, 1})
				}
				q.Reads = 32
			}
			if q.End > run.Close {
				q.End, q.Outcome, q.FinishReason = run.Close+msNs, "cancelled", ""
			}
			run.Requests = append(run.Requests, q)
		}
	}
	return run
}

// TestArrivedWhole (issue 34 item 8): a stream whose every token arrives in one read
// was not measured, and a cell made of them is not valid; bursts that a slow reader
// merges from a server that really streams, and a speculative server's drafts, stay
// valid.
func TestArrivedWhole(t *testing.T) {
	// What it must catch: a proxy that buffers every stream (the 0 × 4 cell:
	// TBT 0, nothing producing, 100 events a read).
	cell := ScoreCell(proxyCell(4, 4))
	if cell.Status != rundoc.StatusInvalid || !contains(cell.Flags, "timing_unresolved") || !strings.Contains(cell.Reason, "arrived whole") || cell.StreamsArrivedWhole == 0 {
		t.Errorf("buffering proxy: %s %q %v (%d whole); want invalid, timing_unresolved, arrived whole", cell.Status, cell.Reason, cell.Flags, cell.StreamsArrivedWhole)
	}
	// One stream in twenty held back (a client descheduled for a request's length):
	// under a tenth of the window's tokens, flagged, the cell stands.
	cell = ScoreCell(proxyCell(20, 1))
	if cell.Status != rundoc.StatusValid || !contains(cell.Flags, "timing_unresolved") || cell.StreamsArrivedWhole == 0 {
		t.Errorf("one stream of 20 whole: %s %q %v; want valid, flagged", cell.Status, cell.Reason, cell.Flags)
	}
	// What it must not catch: the emulator at --speed 10 writes a token every 250 µs and
	// a slow reader takes three at a time (one chunk of 3 events every 750 µs).
	run := synthCell(4)
	for i := range run.Requests {
		q := &run.Requests[i]
		q.Chunks, q.Events = nil, 0
		for at := int64(50 * msNs); at <= 3000*msNs; at += 750_000 {
			q.Chunks = append(q.Chunks, [3]int64{at, 3, 3})
			q.Events += 3
		}
	}
	if cell := ScoreCell(run); cell.Status != rundoc.StatusValid || cell.StreamsArrivedWhole != 0 {
		t.Errorf("reads of 3 events every 750 µs: %s %q, %d whole; want valid", cell.Status, cell.Reason, cell.StreamsArrivedWhole)
	}
	// A speculative server's drafts come back to back: its own, not a proxy's.
	run = proxyCell(4, 4)
	for i := range run.Requests {
		run.Requests[i].Speculative = true
	}
	if cell := ScoreCell(run); cell.StreamsArrivedWhole != 0 {
		t.Errorf("speculative drafts counted as arrived whole: %d", cell.StreamsArrivedWhole)
	}
}

// TestPromptCacheFromTimings (issue 34 item 3): requests cut at the window's end carry
// no usage, but llama.cpp's timings in every chunk said what their prompt found
// cached: the cell's hit ratio counts them.
func TestPromptCacheFromTimings(t *testing.T) {
	run := synthCell(4)
	run.Context = 1024
	for i := range run.Requests {
		run.Requests[i].PromptCache = &[2]int{1024, 1033}
	}
	cell := ScoreCell(run)
	if cell.CacheHitRatio == nil || *cell.CacheHitRatio < 0.99 || cell.Status != rundoc.StatusValid {
		t.Errorf("hit ratio %v, %s %q; want 0.99, valid", cell.CacheHitRatio, cell.Status, cell.Reason)
	}
	run.Requests[0].PromptCache = &[2]int{0, 1033}
	run.Requests[1].PromptCache = &[2]int{0, 1033}
	run.Requests[2].PromptCache = &[2]int{0, 1033}
	if cell := ScoreCell(run); cell.Status != rundoc.StatusInvalid || !contains(cell.Flags, "cache_not_warm") {
		t.Errorf("three of four cold: %s %v; want cache_not_warm", cell.Status, cell.Flags)
	}
}

// TestPrefillReadsUncachedTokens (issue 34 item 5): prompt tok/s is the tokens the
// prefill read — those it did not find cached — over the time to first token.
func TestPrefillReadsUncachedTokens(t *testing.T) {
	cached := 21
	run := &PrefillRun{Context: 1024, Attempts: 1, Request: measure.Request{Sent: tBase, FirstToken: tBase + 500*msNs, End: tBase + 501*msNs,
		Outcome: "finished", FinishReason: "length", Usage: &openai.Usage{PromptTokens: 1024, CompletionTokens: 1,
			PromptTokensDetails: &openai.PromptTokensDetails{CachedTokens: &cached}}}}
	row := ScorePrefill(run)
	if row.Status != rundoc.StatusValid || row.PromptTokS != 2006 || row.CachedTokens == nil || *row.CachedTokens != 21 {
		t.Errorf("%s %q: %v tok/s, cached %v; want valid, (1024 − 21) / 0.5 s = 2006", row.Status, row.Reason, row.PromptTokS, row.CachedTokens)
	}
}

// TestReconnectsCounted: a request sent again on a new connection is counted as
// such, never as an error.
func TestReconnectsCounted(t *testing.T) {
	run := synthCell(4)
	run.Requests[1].Reconnects = 1
	cell := ScoreCell(run)
	if cell.Reconnects != 1 || cell.Errors != 0 || contains(cell.Flags, "errors") || cell.Status != rundoc.StatusValid {
		t.Errorf("reconnects %d, errors %d, flags %v, %s", cell.Reconnects, cell.Errors, cell.Flags, cell.Status)
	}
}
