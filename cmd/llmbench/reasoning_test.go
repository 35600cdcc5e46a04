package main

import (
	"slices"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/replay"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/session"
	"github.com/llmbench/llmbench/internal/stats"
)

// reasoningTokens is how many tokens the reasoning server thinks before it answers.
const reasoningTokens = 20

// TestReasoningTimeToFirstAnswer: against a server that streams 20 reasoning tokens,
// then the answer, one token every 20 ms on exact, logged timing (the replay's
// vllm-reasoning shape), under either of the field names servers use, a matrix cell
// and a rate cell give the time to the first answer token (ttfo_ms) within one gap
// between tokens of what the server's log says, TTFT stays the first token's, the
// tokens are counted apart, and the events log re-scores to every figure.
func TestReasoningTimeToFirstAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a matrix and a rate cell against the replay")
	}
	for _, field := range []string{"reasoning", "reasoning_content"} {
		cfg := replay.Config{Shape: "vllm-reasoning", Discovery: discoveryDir("vllm-0.26"), Tokenize: "vllm", Metrics: true, ChatOverhead: 3,
			Reasoning: reasoningTokens, ReasoningField: field}
		t.Run(field+"/matrix", func(t *testing.T) {
			t.Parallel()
			// A loaded machine can spoil a cell's timing (timing_unresolved: the client
			// read late), which the cell then says: the run is tried again, three times
			// at most, and a spoilt cell's times are not judged.
			var cr *conformanceRun
			for attempt := 0; attempt < 3 && (cr == nil || !allValid(cr.doc)); attempt++ {
				cr = runReplay(t, cfg, false, "--contexts", "0", "--concurrency", "1,4", "--prefill", "", "--duration", "2s", "--max-output", "48")
				if cr.err != nil || cr.doc == nil || len(cr.doc.Decode) != 2 {
					t.Fatalf("run: %v\n%s", cr.err, cr.output)
				}
			}
			var prevClose time.Time // the cells ran one after the other, in the document's order
			for i := range cr.doc.Decode {
				c := &cr.doc.Decode[i]
				// The server's truth is the cell's own requests' (a loaded machine runs
				// the replay slower in one cell than in the next).
				win := cr.windows[[2]int{c.Context, c.Concurrency}]
				gap, truth, think := answerTruth(cr.log, 48, prevClose, win[1])
				prevClose = win[1]
				if c.CellDetail == nil || c.TTFOMs == nil || c.ReasoningTokens == nil || c.AnswerTokens == nil {
					t.Fatalf("%d × %d: no reasoning figures: %+v", c.Context, c.Concurrency, c.CellDetail)
				}
				t.Logf("%d × %d (%s %v): TTFT %.1f ms, TTFO %.1f ms (server %.1f, gap %.1f); %d reasoning, %d answer tokens",
					c.Context, c.Concurrency, c.Status, c.Flags, c.TTFTMs, *c.TTFOMs, truth, gap, *c.ReasoningTokens, *c.AnswerTokens)
				if c.Status == rundoc.StatusValid {
					checkFirstAnswer(t, *c.TTFOMs, c.TTFTMs, truth, think, gap)
				}
				// The window cuts requests anywhere: at most 20 of each request's tokens in it
				// are reasoning.
				if *c.ReasoningTokens == 0 || *c.AnswerTokens == 0 || *c.ReasoningTokens > reasoningTokens*c.Requests {
					t.Errorf("tokens by kind: %d reasoning, %d answer of %d requests; want at most 20 a request thinking", *c.ReasoningTokens, *c.AnswerTokens, c.Requests)
				}
			}
			cr.checkRescore(t)
			if !allValid(cr.doc) {
				t.Skip("the loaded machine spoilt a cell's timing in three runs: its times are not judged")
			}
		})
		t.Run(field+"/rate", func(t *testing.T) {
			t.Parallel()
			// A loaded machine can send late (client_lagged): the cell then says its
			// latencies from the schedule are partly the client's, so the run is tried
			// again, three times at most; the counts and the re-score are judged anyway.
			var cr *conformanceRun
			var c *rundoc.RateCell
			lagged := true
			for attempt := 0; attempt < 3 && lagged; attempt++ {
				cr = runReplay(t, cfg, false, "--rate", "10", "--requests", "12", "--duration", "2s", "--input-len", "64", "--output-len", "48")
				c = rateCell(t, cr)
				lagged = slices.Contains(c.Flags, "client_lagged")
			}
			if c.TTFOMs == nil || c.TTFOMs.P50 == nil || c.TTFTMs.P50 == nil || c.ReasoningTokens == nil || c.AnswerTokens == nil {
				t.Fatalf("no reasoning figures: %+v", c.RateFigures)
			}
			gap, truth, think := answerTruth(cr.log, 48, time.Time{}, time.Time{})
			t.Logf("TTFT p50 %.1f ms, TTFO p50 %.1f ms (server %.1f after its receipt, gap %.1f)", *c.TTFTMs.P50, *c.TTFOMs.P50, truth, gap)
			if want := 12 * reasoningTokens; *c.ReasoningTokens != want || *c.AnswerTokens != 12*(48-reasoningTokens) {
				t.Errorf("tokens by kind: %d reasoning, %d answer; want %d and %d", *c.ReasoningTokens, *c.AnswerTokens, want, 12*(48-reasoningTokens))
			}
			checkRecheck(t, cr)
			if lagged {
				t.Skipf("the loaded machine sent late in three runs (%s): no latency to judge", c.Reason)
			}
			checkFirstAnswer(t, *c.TTFOMs.P50, *c.TTFTMs.P50, truth, think, gap)
		})
	}
}

// allValid says every decode cell of doc is valid.
func allValid(doc *rundoc.Run) bool {
	return doc != nil && !slices.ContainsFunc(doc.Decode, func(c rundoc.DecodeCell) bool { return c.Status != rundoc.StatusValid })
}

// answerTruth is, by the server's own log of its streamed requests of maxTokens
// received after from and by to (either zero: unbounded), the median gap between its
// writes, the median time from receiving a request to writing its first answer
// token, and from writing its first token to writing its first answer token.
func answerTruth(log []*replay.Record, maxTokens int, from, to time.Time) (gapMs, ttfoMs, thinkMs float64) {
	var gaps, ttfo, think []float64
	for _, r := range log {
		if !r.Stream || r.MaxTokens != maxTokens || len(r.Emits) <= reasoningTokens ||
			!from.IsZero() && !r.Start.After(from) || !to.IsZero() && r.Start.After(to) {
			continue
		}
		gaps = append(gaps, float64(r.Emits[len(r.Emits)-1].At.Sub(r.Emits[0].At))/1e6/float64(len(r.Emits)-1))
		ttfo = append(ttfo, float64(r.Emits[reasoningTokens].At.Sub(r.Start))/float64(time.Millisecond))
		think = append(think, float64(r.Emits[reasoningTokens].At.Sub(r.Emits[0].At))/float64(time.Millisecond))
	}
	return stats.Median(gaps), stats.Median(ttfo), stats.Median(think)
}

// checkFirstAnswer: the time to the first answer token is the server's within one
// gap between tokens; and the time from the first token to it, a difference of two
// medians each within one gap, is the server's 20 reasoning tokens (by its own log:
// a loaded machine stretches some gaps) within two.
func checkFirstAnswer(t *testing.T, ttfo, ttft, truth, think, gap float64) {
	t.Helper()
	if abs(ttfo-truth) > gap {
		t.Errorf("time to first answer token %.1f ms, the server's %.1f ms: more than one gap (%.1f ms) off", ttfo, truth, gap)
	}
	if thought := ttfo - ttft; abs(thought-think) > 2*gap {
		t.Errorf("TTFO − TTFT = %.1f ms, the server's %d reasoning tokens took %.1f ms: more than two gaps (%.1f ms) off", thought, reasoningTokens, think, gap)
	}
}

// checkRecheck: the run's events log re-scores to every figure of its document,
// rate cells included (session.RecheckRun, what report --rescore runs).
func checkRecheck(t *testing.T, cr *conformanceRun) {
	t.Helper()
	rc, err := session.RecheckRun(cr.doc, cr.events)
	if err != nil {
		t.Fatal(err)
	}
	if rc.Decode+rc.Rate+rc.Prefill == 0 {
		t.Fatal("the events log re-scores to nothing")
	}
	for _, d := range rc.Differences {
		t.Errorf("re-score: %s", d)
	}
}
