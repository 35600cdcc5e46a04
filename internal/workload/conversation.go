package workload

import (
	"errors"
	"time"

	"github.com/llmbench/llmbench/internal/openai"
)

// Conversation is one session as it runs: the messages so far, with the server's real
// replies appended. It is not safe for concurrent use; a session's turns are
// sequential anyway.
type Conversation struct {
	session *Session
	history []openai.Message
	next    int
	waiting bool // a turn was sent and its reply is not in yet
	ended   bool
	usage   []TurnUsage
}

// NewConversation starts session s. lead, when given, comes before the first user
// message in every turn (a system prompt of a prefix pool).
func NewConversation(s *Session, lead ...openai.Message) *Conversation {
	return &Conversation{session: s, history: append([]openai.Message(nil), lead...)}
}

// TurnRequest is what to send for one turn.
type TurnRequest struct {
	Session, Turn int
	// Messages are every message so far and the new user message. The slice is the
	// request's own: later turns never write into it.
	Messages     []openai.Message
	OutputTokens int
	// Think is how long to wait after the previous reply before sending.
	Think time.Duration
}

// Done says the conversation has nothing more to send: every turn answered, or
// ended by End.
func (c *Conversation) Done() bool { return c.ended || c.next == len(c.session.Turns) }

// Next returns the next turn's request; false when Done or while a reply is awaited.
func (c *Conversation) Next() (TurnRequest, bool) {
	if c.Done() || c.waiting {
		return TurnRequest{}, false
	}
	t := c.session.Turns[c.next]
	c.history = append(c.history, openai.Message{Role: "user", Content: t.User})
	c.waiting = true
	n := len(c.history)
	return TurnRequest{
		Session: c.session.ID, Turn: c.next, Messages: c.history[:n:n],
		OutputTokens: t.OutputTokens, Think: t.Think,
	}, true
}

// Reply records the server's answer to the turn sent last (its content, without the
// reasoning, which chat templates leave out of the history) and what its usage said.
func (c *Conversation) Reply(answer string, u TurnUsage) error {
	if !c.waiting {
		return errors.New("a reply with no turn awaiting one")
	}
	c.history = append(c.history, openai.Message{Role: "assistant", Content: answer})
	c.usage = append(c.usage, u)
	c.waiting = false
	c.next++
	return nil
}

// End stops the conversation (its turn failed: the history has no reply to go on).
func (c *Conversation) End() { c.ended, c.waiting = true, false }

// Usage is what the server said of each answered turn, in order.
func (c *Conversation) Usage() []TurnUsage { return c.usage }

// TurnUsage is what a server said of one turn.
type TurnUsage struct {
	PromptTokens, CompletionTokens int
	// ReasoningTokens are the completion's reasoning tokens (not in the next turn's
	// history).
	ReasoningTokens int
	// CachedTokens is usage.prompt_tokens_details.cached_tokens (nil: not reported).
	CachedTokens *int
}

// IdealCached is, for each turn, the most of its prompt a prefix cache can hold from
// the turns before, in tokens, counted in whole blocks of block tokens (0 or 1: in
// tokens). A turn's prompt starts with the previous turn's prompt and reply (chat
// templates render earlier turns as they generated them); a server has computed the
// KV of all of that but the reply's last token (it is sampled, never fed back), and
// always computes a prompt's last token itself. So turn k can hit at most
// min(prompt[k-1] + completion[k-1] − 1, prompt[k] − 1), whole blocks of it. A reply
// with reasoning is not in the history as generated: the previous prompt is then the
// bound. Turn 0 hits nothing of its own session.
func IdealCached(turns []TurnUsage, block int) []int {
	block = max(block, 1)
	out := make([]int, len(turns))
	for k := 1; k < len(turns); k++ {
		prev := turns[k-1]
		shared := prev.PromptTokens + prev.CompletionTokens - 1
		if prev.ReasoningTokens > 0 {
			shared = prev.PromptTokens
		}
		shared = max(0, min(shared, turns[k].PromptTokens-1))
		out[k] = shared / block * block
	}
	return out
}

// HitRatio is cached over prompt tokens, summed over the turns; 0 without prompts.
func HitRatio(turns []TurnUsage, cached []int) float64 {
	var c, p int
	for k, t := range turns {
		p += t.PromptTokens
		c += cached[k]
	}
	if p == 0 {
		return 0
	}
	return float64(c) / float64(p)
}

// Achieved is the cached tokens each turn's usage reported (0 where it reported
// none), and whether every turn reported one.
func Achieved(turns []TurnUsage) ([]int, bool) {
	out := make([]int, len(turns))
	all := true
	for k, t := range turns {
		if t.CachedTokens == nil {
			all = false
			continue
		}
		out[k] = *t.CachedTokens
	}
	return out, all
}
