package measure

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/workload"
)

// Sessions are a cell's multi-turn conversations as every load shape sends them: a
// closed loop's users each hold one and start the next when it ends, an open loop
// starts them on its schedule; either way each turn is sent and answered here, so
// the two shapes send the same conversations and record the same things of them.
type Sessions struct {
	// Spec is what every session is like (workload.SessionSpec): its turns, its
	// users' messages, the answer length of each turn and the think time.
	Spec workload.SessionSpec
	// Seed plans the cell's sessions: a cell's own seed, so that no two cells send
	// the same messages (a server would find one cell's turns cached in the next).
	Seed uint64
	// Block is the server's prefix-cache block, in which the ideal hits are counted.
	Block int
	// MaxTokens is a turn's answer length where its plan says none.
	MaxTokens int
	next      atomic.Int64
}

// Start plans the cell's next session (workload.PlanSession, numbered in the order
// they start) and opens its conversation.
func (s *Sessions) Start() (*workload.Conversation, error) {
	plan, err := workload.PlanSession(s.Spec, int(s.next.Add(1)-1), s.Seed)
	if err != nil {
		return nil, err
	}
	return workload.NewConversation(&plan), nil
}

// Turn is one turn of a conversation as sent: what the client saw, and what its
// record carries of the session (Stamp).
type Turn struct {
	Result *openai.StreamResult
	// Session and Turn (from 1) place it; OutputTarget is the answer length asked.
	Session, Turn, OutputTarget int
	// IdealCached is what of its prompt repeats the turns before it, in the server's
	// cache blocks (workload.IdealCached); nil where the server's usage did not count
	// this turn's prompt or the last turn's reply.
	IdealCached *int
	// Think is the pause its plan puts before it.
	Think time.Duration
}

// Stamp writes the turn's place in its session and its ideal cache hits on its record.
func (t *Turn) Stamp(q *Request) {
	q.Session, q.Turn, q.OutputTarget, q.IdealCached = strconv.Itoa(t.Session), t.Turn, t.OutputTarget, t.IdealCached
}

// Send sends the conversation's next turn req and records the reply in it: the
// answer's text (without its reasoning, which chat templates leave out of the
// history) and what the server's usage said. A turn that did not finish ends the
// conversation: its history has no reply to go on. The shape has waited the think
// time before calling it.
func (s *Sessions) Send(ctx context.Context, srv *Server, conv *workload.Conversation, req workload.TurnRequest, obs openai.Observer) Turn {
	maxTokens := req.OutputTokens
	if maxTokens <= 0 {
		maxTokens = s.MaxTokens
	}
	t := Turn{Session: req.Session, Turn: req.Turn + 1, OutputTarget: maxTokens, Think: req.Think}
	t.Result = srv.SendAnswer(ctx, prompt.Payload{Messages: req.Messages}, maxTokens, obs)
	res := t.Result
	u := workload.TurnUsage{ReasoningTokens: res.ReasoningTokens, CompletionTokens: res.Tokens}
	if res.Usage != nil {
		u.PromptTokens = res.Usage.PromptTokens
		if res.Usage.CompletionTokens > 0 {
			u.CompletionTokens = res.Usage.CompletionTokens
		}
		if d := res.Usage.PromptTokensDetails; d != nil {
			u.CachedTokens = d.CachedTokens
		}
	}
	// The turn's ideal needs only its prompt and the turns before: a turn cut at the
	// window's end has it too, where the server counted its prompt.
	t.IdealCached = idealOfLast(append(slices.Clone(conv.Usage()), u), s.Block)
	if !res.Finished() || conv.Reply(string(res.Answer), u) != nil {
		conv.End()
	}
	return t
}

// idealOfLast is the last turn's ideal cache hits, where the server counted its
// prompt and the turn before's (a first turn repeats nothing of its session).
func idealOfLast(turns []workload.TurnUsage, block int) *int {
	k := len(turns) - 1
	if k < 0 || turns[k].PromptTokens == 0 || (k > 0 && turns[k-1].PromptTokens == 0) {
		return nil
	}
	ideal := workload.IdealCached(turns, block)[k]
	return &ideal
}

// NewSessions are a cell's sessions of the workload, planned from the cell's seed:
// their users' messages from the dataset, or synthetic, of Spec.UserTokens words the
// server's tokenizer takes as one token each (prompt.Builder.OneTokenWords).
func (w *Workload) NewSessions(ctx context.Context, b *prompt.Builder, seed uint64, maxTokens int) (*Sessions, error) {
	spec := *w.Sessions
	if w.Dataset != nil {
		spec.From = w.Dataset.Entries
	} else {
		words, err := b.OneTokenWords(ctx)
		if err != nil {
			return nil, fmt.Errorf("finding one-token words for the sessions' messages: %w", err)
		}
		spec.Texts = workload.WordTexts(words, seed)
	}
	return &Sessions{Spec: spec.Shuffled(seed), Seed: seed, Block: w.Block, MaxTokens: maxTokens}, nil
}
