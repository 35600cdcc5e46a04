package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/workload"
)

// runConversation runs one planned session against the emulator, sending the server's
// real replies back in the history, and returns what its usage said of each turn.
func runConversation(t *testing.T, c *openai.Client, s *workload.Session, ignoreEOS bool) []workload.TurnUsage {
	t.Helper()
	conv := workload.NewConversation(s, openai.Message{Role: "system", Content: "you answer in words"})
	for !conv.Done() {
		req, _ := conv.Next()
		res := c.StreamWith(context.Background(), "/chat/completions", &openai.ChatRequest{
			Model: "tiny", Messages: req.Messages, MaxTokens: openai.Ptr(req.OutputTokens),
			RequestOptions: openai.RequestOptions{Stream: true, IgnoreEOS: openai.Ptr(ignoreEOS), StreamOptions: &openai.StreamOptions{IncludeUsage: true}},
		}, nil, openai.StreamConfig{KeepAnswer: true})
		if res.Err != nil || res.Usage == nil || res.Usage.PromptTokensDetails == nil {
			t.Fatalf("session %d turn %d: %v (usage %+v)", req.Session, req.Turn, res.Err, res.Usage)
		}
		u := workload.TurnUsage{
			PromptTokens: res.Usage.PromptTokens, CompletionTokens: res.Usage.CompletionTokens,
			ReasoningTokens: res.ReasoningTokens, CachedTokens: res.Usage.PromptTokensDetails.CachedTokens,
		}
		if err := conv.Reply(string(res.Answer), u); err != nil {
			t.Fatal(err)
		}
	}
	return conv.Usage()
}

// TestSessionCacheHitsFollowTheIdeal: the emulator models multi-turn reuse. A
// conversation's turn k finds in the prefix cache exactly the ideal of
// workload.IdealCached in blocks of 16 — the previous turn's prompt and reply but the
// reply's last token — so its cached tokens rise turn after turn. Replies that stop on
// EOS (their last token is EOS, not in the history) and replies cut at max_tokens both;
// two sessions that share only the system prompt do not share their turns.
func TestSessionCacheHitsFollowTheIdeal(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.NumBlocks, cfg.MaxModelLen, cfg.Speed = 1024, 4096, 50 // room for every turn: nothing evicted
	cfg.EOSProbability = 0.05
	_, base := testServer(t, cfg)
	c := openai.NewClient(base+"/v1", "", 4)
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa")
	spec := workload.SessionSpec{Turns: 5, UserTokens: 37, Texts: workload.WordTexts(words, 11), OutputTokens: 23}
	sessions, err := workload.PlanSessions(spec, 3, 5)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range sessions {
		ignoreEOS := i != 1 // session 1's replies may stop early on EOS
		usage := runConversation(t, c, &s, ignoreEOS)
		ideal := workload.IdealCached(usage, cfg.BlockSize)
		got, all := workload.Achieved(usage)
		if !all {
			t.Fatalf("session %d: a turn reported no cached tokens", i)
		}
		for k := range usage {
			if got[k] != ideal[k] && !(k == 0 && i > 0) {
				t.Errorf("session %d turn %d: %d cached, ideal %d (prompt %d; previous %+v)", i, k, got[k], ideal[k], usage[k].PromptTokens, usage[max(k-1, 0)])
			}
			if k > 0 && got[k] <= got[k-1] {
				t.Errorf("session %d turn %d: cached %d did not rise from %d", i, k, got[k], got[k-1])
			}
		}
		// Turn 0 of a later session finds only the shared system prompt's whole blocks.
		if i > 0 && got[0] >= 16 {
			t.Errorf("session %d turn 0: %d cached; sessions share only a system prompt shorter than a block", i, got[0])
		}
		if r := workload.HitRatio(usage, got); r < 0.5 {
			t.Errorf("session %d: hit ratio %.2f over 5 turns, want most of each prompt", i, r)
		}
		stopped := 0
		for _, u := range usage {
			if u.CompletionTokens < spec.OutputTokens {
				stopped++
			}
		}
		if (stopped > 0) == ignoreEOS {
			t.Errorf("session %d (ignore_eos %v): %d replies stopped before max_tokens", i, ignoreEOS, stopped)
		}
		t.Logf("session %d: prompts %v, cached %v", i, prompts(usage), got)
	}
}

// TestReasoningTokens: with ReasoningTokens set, the first tokens of a streamed chat
// answer come as reasoning_content, and the client times the first answer token after
// them.
func TestReasoningTokens(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.ReasoningTokens = 6 // at speed 1 a step takes milliseconds: tokens arrive apart
	_, base := testServer(t, cfg)
	c := openai.NewClient(base+"/v1", "", 1)
	res := c.StreamWith(context.Background(), "/chat/completions", &openai.ChatRequest{
		Model: "tiny", Messages: []openai.Message{{Role: "user", Content: words("q", 20)}}, MaxTokens: openai.Ptr(10),
		RequestOptions: openai.RequestOptions{IgnoreEOS: openai.Ptr(true), Stream: true},
	}, nil, openai.StreamConfig{KeepAnswer: true})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if res.ReasoningTokens != 6 || res.AnswerTokens() != 4 || len(strings.Fields(string(res.Answer))) != 4 {
		t.Errorf("reasoning %d, answer %d (%q): want 6 and 4", res.ReasoningTokens, res.AnswerTokens(), res.Answer)
	}
	if !res.FirstAnswer.After(res.FirstToken) {
		t.Errorf("first answer %v not after first token %v", res.FirstAnswer, res.FirstToken)
	}
}

func prompts(u []workload.TurnUsage) []int {
	out := make([]int, len(u))
	for i, t := range u {
		out[i] = t.PromptTokens
	}
	return out
}
