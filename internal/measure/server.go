package measure

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/llmbench/llmbench/internal/clock"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Server is the server under test as every load shape sends to it: a client, a
// model, and what the server takes in a request.
type Server struct {
	Client *openai.Client
	Model  string
	API    prompt.API
	// IgnoreEOS sends ignore_eos and min_tokens so that every request runs to
	// max_output; false for servers that do not take them (Ollama, TGI), whose early
	// ends are replaced and counted.
	IgnoreEOS bool
	// IgnoreEOSKnown says the server is known to honour ignore_eos, so a request that
	// ends early makes the cell invalid; where it is only hoped for, early ends are
	// counted and flagged.
	IgnoreEOSKnown bool
	// ContinuousUsage asks for usage in every chunk (vLLM, SGLang, TensorRT-LLM, the
	// emulator), which gives exact per-chunk token counts.
	ContinuousUsage bool
	// TimingsPerToken asks llama.cpp's server for its timings in every chunk, whose
	// predicted_n gives exact per-chunk counts there.
	TimingsPerToken bool
	// Counter counts prompt tokens; Exact says it is cheap and exact (a tokenize route)
	// rather than a real request per count.
	Counter prompt.Counter
	Exact   bool
	// Tokenizer, with the completions API, makes token-id prompts (servers that take
	// them: vLLM, SGLang, llama.cpp).
	Tokenizer prompt.Tokenizer
	// TextTokenizer is the server's tokenize route for generated text: it counts the
	// text of requests whose chunks the server did not count (nil: none).
	TextTokenizer prompt.Tokenizer
	// Local says the server runs on this machine, so the machine's CPU is checked too.
	Local bool
	// SlotCaches is how many prompt caches of its own slots the server keeps
	// (llama-server, Ollama's runner: a slot reuses what its last prompt shares with
	// the next), where a cell's streams each take a slot that the row's one warm-up did
	// not fill: 0 for one cache for every request (vLLM, SGLang), -1 for slots whose
	// number is not known. PinSlots says a request can name its slot (llama-server's
	// id_slot).
	SlotCaches int
	PinSlots   bool
}

// Send runs one request of maxTokens output tokens for prompt p and returns what
// happened to it: its outcome and every token arrival. keepText keeps the generated
// text (for TextTokenizer). It never retries: RetryPolicy says when to try again.
func (s *Server) Send(ctx context.Context, p prompt.Payload, maxTokens int, obs openai.Observer, keepText bool) *openai.StreamResult {
	return s.SendIn(ctx, p, maxTokens, obs, keepText, nil)
}

// SendIn is Send, in a given slot where slot is not nil (PinSlots).
func (s *Server) SendIn(ctx context.Context, p prompt.Payload, maxTokens int, obs openai.Observer, keepText bool, slot *int) *openai.StreamResult {
	return s.send(ctx, p, maxTokens, obs, openai.StreamConfig{KeepText: keepText, ExpectTokens: maxTokens}, slot)
}

// SendAnswer is Send keeping the answer's text (without its reasoning): a session's
// next turn carries it in its history.
func (s *Server) SendAnswer(ctx context.Context, p prompt.Payload, maxTokens int, obs openai.Observer) *openai.StreamResult {
	return s.send(ctx, p, maxTokens, obs, openai.StreamConfig{KeepAnswer: true, ExpectTokens: maxTokens}, nil)
}

func (s *Server) send(ctx context.Context, p prompt.Payload, maxTokens int, obs openai.Observer, cfg openai.StreamConfig, slot *int) *openai.StreamResult {
	opts := openai.RequestOptions{Stream: true, StreamOptions: &openai.StreamOptions{IncludeUsage: true, ContinuousUsageStats: s.ContinuousUsage},
		TimingsPerToken: s.TimingsPerToken, IDSlot: slot}
	if s.IgnoreEOS && maxTokens > 1 {
		opts.IgnoreEOS, opts.MinTokens = openai.Ptr(true), openai.Ptr(maxTokens)
	}
	if s.API == prompt.Completions {
		var pr any = p.Text
		if p.IDs != nil {
			pr = p.IDs
		}
		return s.Client.StreamWith(ctx, "/completions", &openai.CompletionRequest{
			Model: s.Model, Prompt: pr, MaxTokens: openai.Ptr(maxTokens), RequestOptions: opts,
		}, obs, cfg)
	}
	return s.Client.StreamWith(ctx, "/chat/completions", &openai.ChatRequest{
		Model: s.Model, Messages: p.Messages, MaxTokens: openai.Ptr(maxTokens), RequestOptions: opts,
	}, obs, cfg)
}

// KeepsText says whether requests keep their text to be counted afterwards: where
// the server has a tokenize route and the run's stream check did not see it count
// every chunk.
func (s *Server) KeepsText(check *rundoc.StreamCheck) bool {
	return s.TextTokenizer != nil && (check == nil || !check.ChunkUsage)
}

// RetryPolicy is how every request that did not succeed is followed: a wait before
// the next one, that grows with each failure in a row, honours the server's
// Retry-After (up to MaxRetryAfter), and is jittered so that N streams do not retry
// in step. A stream, a warm-up or a cell that has had no success for Budget gives up.
type RetryPolicy struct {
	Base, Max     time.Duration
	MaxRetryAfter time.Duration
	Budget        time.Duration
}

// DefaultRetryPolicy is the run's policy (docs/run.md).
var DefaultRetryPolicy = RetryPolicy{Base: 100 * time.Millisecond, Max: 5 * time.Second, MaxRetryAfter: 30 * time.Second, Budget: 60 * time.Second}

// Delay is the wait after the failures-th failure in a row (1 for the first), given
// what the server asked for (0 when it did not) and a random u in [0, 1).
func (p RetryPolicy) Delay(failures int, retryAfter time.Duration, u float64) time.Duration {
	d := p.Base << min(max(failures-1, 0), 16)
	if d > p.Max || d <= 0 {
		d = p.Max
	}
	// Jitter: a quarter either way.
	d = time.Duration(float64(d) * (0.75 + 0.5*u))
	if retryAfter > 0 {
		d = max(d, min(retryAfter, p.MaxRetryAfter))
	}
	return d
}

// Wait sleeps for the failures-th failure's delay, or until ctx ends; it reports
// whether the wait ran its course.
func (p RetryPolicy) Wait(ctx context.Context, failures int, retryAfter time.Duration) bool {
	return clock.Sleep(ctx, p.Delay(failures, retryAfter, rand.Float64()))
}
