package prompt

import (
	"context"
	"fmt"

	"github.com/llmbench/llmbench/internal/openai"
)

// TokenizeCounter counts with a vLLM/SGLang-style tokenize route: the messages form
// applies the chat template, so it gives the exact chat prompt count.
type TokenizeCounter struct {
	Client *openai.Client
	URL    string // the full URL of the route, e.g. http://host:8000/tokenize
	Model  string
}

// Name implements Counter.
func (t *TokenizeCounter) Name() string { return "tokenize route" }

// Count implements Counter.
func (t *TokenizeCounter) Count(ctx context.Context, p Payload) (int, error) {
	req := openai.TokenizeRequest{Model: t.Model}
	if p.Messages != nil {
		req.Messages = p.Messages
		req.AddGenerationPrompt = openai.Ptr(true)
	} else {
		req.Prompt = p.Text
	}
	var resp openai.TokenizeResponse
	if err := t.Client.PostJSON(ctx, t.URL, req, &resp); err != nil {
		return 0, err
	}
	if resp.Count == 0 && len(resp.Tokens) > 0 {
		resp.Count = len(resp.Tokens)
	}
	return resp.Count, nil
}

// UsageCounter counts by sending the prompt for one output token and reading
// usage.prompt_tokens: it works on any server that reports usage, at the price of a
// real request (and its prefill).
type UsageCounter struct {
	Client *openai.Client
	Model  string
}

// Name implements Counter.
func (u *UsageCounter) Name() string { return "usage.prompt_tokens" }

// Count implements Counter.
func (u *UsageCounter) Count(ctx context.Context, p Payload) (int, error) {
	var out openai.Chunk
	var err error
	if p.Messages != nil {
		err = u.Client.PostJSON(ctx, u.Client.BaseURL+"/chat/completions", openai.ChatRequest{
			Model: u.Model, Messages: p.Messages, MaxTokens: openai.Ptr(1),
		}, &out)
	} else {
		err = u.Client.PostJSON(ctx, u.Client.BaseURL+"/completions", openai.CompletionRequest{
			Model: u.Model, Prompt: p.Text, MaxTokens: openai.Ptr(1),
		}, &out)
	}
	if err != nil {
		return 0, err
	}
	if out.Usage == nil || out.Usage.PromptTokens == 0 {
		return 0, fmt.Errorf("the server reported no usage.prompt_tokens")
	}
	return out.Usage.PromptTokens, nil
}

// Calibrate measures the bare prompt's size and tokens per filler word with two small
// counted prompts, for Estimate.
func (b *Builder) Calibrate(ctx context.Context) (base int, perWord float64, err error) {
	const sample = 512
	base, err = b.Counter.Count(ctx, makePayload(b.API, "x "+Tail(0)))
	if err != nil {
		return 0, 0, fmt.Errorf("calibrating prompt length: %w", err)
	}
	n, err := b.Counter.Count(ctx, makePayload(b.API, "x "+b.filler(sample)+Tail(0)))
	if err != nil {
		return 0, 0, fmt.Errorf("calibrating prompt length: %w", err)
	}
	perWord = float64(n-base) / sample
	if perWord <= 0 {
		return 0, 0, fmt.Errorf("calibrating prompt length: %d filler words counted as %d tokens", sample, n-base)
	}
	return base, perWord, nil
}

// Tokenize implements Tokenizer with the route's prompt form (no special tokens: the
// ids are sent as they are).
func (t *TokenizeCounter) Tokenize(ctx context.Context, text string) ([]int, error) {
	var resp openai.TokenizeResponse
	req := openai.TokenizeRequest{Model: t.Model, Prompt: text, AddSpecialTokens: openai.Ptr(false)}
	if err := t.Client.PostJSON(ctx, t.URL, req, &resp); err != nil {
		return nil, err
	}
	return resp.Tokens, nil
}
