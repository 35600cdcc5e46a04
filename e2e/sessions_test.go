package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// The multi-turn run against Ollama: 2 users, each holding 3-turn conversations of
// 48-token messages and 64-token answers, for the window.
const (
	sessionUsers      = 2
	sessionTurns      = 3
	sessionUserTokens = 48
	sessionAnswer     = 64
	sessionDuration   = "8s"
	// sessionRounds is how many conversations per user Ollama's own figures are
	// taken over, before and after llmbench's run (a turn's two requests alone vary 2×).
	sessionRounds = 4
	// Per-turn TPOT against Ollama's own eval_duration / eval_count of the same
	// conversations: two streams at once on a shared 2-core machine move more than a
	// single stream does, and TTFT is a short prefill plus a first step, where HTTP and
	// the scheduler weigh more (ms added to the tolerance).
	sessionTPOTTolerance = 0.25
	sessionTTFTTolerance = 0.5
	sessionTTFTSlackMs   = 15
)

// chatResult is the final object of a non-streamed /api/chat: the reply and Ollama's
// own timings (ns).
type chatResult struct {
	Message struct {
		Content string `json:"content"`
	} `json:"message"`
	PromptEvalCount    int64 `json:"prompt_eval_count"`
	PromptEvalDuration int64 `json:"prompt_eval_duration"`
	EvalCount          int64 `json:"eval_count"`
	EvalDuration       int64 `json:"eval_duration"`
}

// turnTimings are Ollama's own figures of one turn over the sessions: decode tokens
// and time, prompt evaluations and their time.
type turnTimings struct {
	decode, prefill tally
	prompts         int
}

func (t turnTimings) tpotMs() float64 { return 1000 / t.decode.perSecond() }

// prefillMs is the mean prompt evaluation of the turn, in ms.
func (t turnTimings) prefillMs() float64 {
	return float64(t.prefill.nanos) / 1e6 / float64(max(t.prompts, 1))
}

// ownSessions runs sessionUsers conversations through Ollama's native chat route,
// their turns in step (both users' turn k sent together, so that the two decode side
// by side as llmbench's two streams do), each turn a new message of
// sessionUserTokens one-token words with the real reply carried on, and returns
// Ollama's own timings per turn.
func (s *ollamaServer) ownSessions(ctx context.Context) ([]turnTimings, error) {
	out := make([]turnTimings, sessionTurns)
	for range sessionRounds {
		if err := s.ownSessionRound(ctx, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ownSessionRound runs one conversation per user, adding its timings to out.
func (s *ollamaServer) ownSessionRound(ctx context.Context, out []turnTimings) error {
	msgs := make([][]map[string]string, sessionUsers)
	for k := range sessionTurns {
		var mu sync.Mutex
		var wg sync.WaitGroup
		errs := make([]error, sessionUsers)
		for u := range sessionUsers {
			words := make([]string, sessionUserTokens)
			for i := range words {
				words[i] = oneTokenWords[(i*7+k*3+u)%len(oneTokenWords)]
			}
			words[0] = strconv.FormatInt(nonce(), 10) // no other conversation's prefix
			msgs[u] = append(msgs[u], map[string]string{"role": "user", "content": strings.Join(words, " ")})
			wg.Go(func() {
				var r chatResult
				err := s.postJSON(ctx, "/api/chat", map[string]any{"model": modelName, "messages": msgs[u], "stream": false,
					"options": map[string]any{"num_predict": sessionAnswer, "temperature": 1.0, "top_p": 1.0}}, &r)
				if err != nil {
					errs[u] = fmt.Errorf("chat turn %d: %w", k+1, err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				msgs[u] = append(msgs[u], map[string]string{"role": "assistant", "content": r.Message.Content})
				out[k].decode.add(r.EvalCount, r.EvalDuration)
				out[k].prefill.add(r.PromptEvalCount, r.PromptEvalDuration)
				out[k].prompts++
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// checkSessions runs 2 users × 3 turns with llmbench against Ollama, between two runs
// of the same conversations through Ollama's native route, and checks each turn's
// figures against Ollama's own timings: TPOT against eval_duration / eval_count, TTFT
// against prompt_eval_duration plus one token, the history growing by the real replies,
// and the events log re-scoring to every figure.
func checkSessions(t *testing.T, ctx context.Context, llmbench string, s *ollamaServer, model string) {
	before, err := s.ownSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	doc, events := filepath.Join(dir, "sessions.json"), filepath.Join(dir, "sessions.events")
	llmbenchCmd(t, ctx, llmbench, "run", "--endpoint", s.base, "--model", model,
		"--turns", strconv.Itoa(sessionTurns), "--user-tokens", strconv.Itoa(sessionUserTokens),
		"--concurrency", strconv.Itoa(sessionUsers), "--duration", sessionDuration, "--max-output", strconv.Itoa(sessionAnswer),
		"--kv-capacity", strconv.Itoa(kvTokens), "--out", doc, "--events", events, "--no-progress", "--format", "none")
	after, err := s.ownSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	llmbenchCmd(t, ctx, llmbench, "report", "--rescore", events, doc)
	run, err := rundoc.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Decode) != 1 || run.Decode[0].Workload == nil {
		t.Fatalf("cells %+v: want one cell with the workload's figures", run.Decode)
	}
	cell := run.Decode[0]
	if cell.Status != rundoc.StatusValid {
		t.Errorf("cell 0 × %d: %s (%s), want valid", sessionUsers, cell.Status, cell.Reason)
	}
	w := cell.Workload
	if len(w.Turns) != sessionTurns || w.CompletedSessions < sessionUsers {
		t.Fatalf("workload figures: %d turns, %d of %d sessions completed; want %d turns and at least %d completed", len(w.Turns), w.CompletedSessions, w.Sessions, sessionTurns, sessionUsers)
	}
	for k, tf := range w.Turns {
		if tf.TTFTMs.P50 == nil || tf.TPOTMs.P50 == nil || tf.PromptTokensMean == nil {
			t.Errorf("turn %d: TTFT %v, TPOT %v, prompt %v: want all measured", tf.Turn, tf.TTFTMs.P50, tf.TPOTMs.P50, tf.PromptTokensMean)
			continue
		}
		// The history carries the replies: turn k's prompt is the one before, its
		// answer and a new message.
		if k > 0 && *tf.PromptTokensMean < *w.Turns[k-1].PromptTokensMean+sessionUserTokens {
			t.Errorf("turn %d: prompt %.1f tokens, not the history of turn %d (%.1f) plus a message and a reply", tf.Turn, *tf.PromptTokensMean, k, *w.Turns[k-1].PromptTokensMean)
		}
		b, a := before[k], after[k]
		tpot := compare(1000 / *tf.TPOTMs.P50, b.decode.perSecond(), a.decode.perSecond(), sessionTPOTTolerance)
		t.Logf("turn %d: %d requests, prompt %.1f tokens; TPOT p50 %.2f ms vs ollama's eval %.2f / %.2f ms (%s); TTFT p50 %.1f ms vs ollama's prompt eval %.1f / %.1f ms + a token",
			tf.Turn, tf.Requests, *tf.PromptTokensMean, *tf.TPOTMs.P50, b.tpotMs(), a.tpotMs(), tpot, *tf.TTFTMs.P50, b.prefillMs(), a.prefillMs())
		if tpot.steady() && !tpot.agrees() {
			t.Errorf("turn %d: TPOT p50 %.2f ms disagrees with Ollama's own %.2f–%.2f ms (tolerance %.0f%%)", tf.Turn, *tf.TPOTMs.P50, b.tpotMs(), a.tpotMs(), 100*sessionTPOTTolerance)
		}
		own := (b.prefillMs()+a.prefillMs())/2 + (b.tpotMs()+a.tpotMs())/2
		if got := *tf.TTFTMs.P50; got < own*(1-sessionTTFTTolerance)-sessionTTFTSlackMs || got > own*(1+sessionTTFTTolerance)+sessionTTFTSlackMs {
			t.Errorf("turn %d: TTFT p50 %.1f ms, Ollama's own prompt eval and first token %.1f ms (tolerance %.0f%% + %d ms)", tf.Turn, got, own, 100*sessionTTFTTolerance, sessionTTFTSlackMs)
		}
	}
}
