package prompt

import (
	"context"
	"fmt"

	"github.com/llmbench/llmbench/internal/openai"
)

// Route says how a server counts tokens, as engine discovery found it.
type Route struct {
	// Style is the request shape: "vllm" (vLLM, llmbench-sim: prompt and messages
	// forms), "sglang" (prompt form only), "llamacpp" (/tokenize {content} and
	// /apply-template for chat), "tgi" (/tokenize {inputs}), or "" for none.
	Style string
	// URL is the tokenize route's full URL.
	URL string
	// TokenIDPrompts says /v1/completions takes a list of token ids.
	TokenIDPrompts bool
}

// Counting is how prompts for one server are sized.
type Counting struct {
	Counter Counter
	// Exact: Counter is the server's own tokenizer, cheap to call; otherwise it costs a
	// real request and prompts are sized from a calibrated ratio.
	Exact bool
	// Tokenizer is set when prompts can be token ids (completions API only).
	Tokenizer Tokenizer
	// TextTokenizer is the server's tokenize route for plain text, whatever the API:
	// it counts generated text the server did not count per chunk (nil: no route).
	TextTokenizer Tokenizer
}

// NewCounting picks the most exact way the server offers: token-id prompts, then its
// tokenize route (with the chat template applied where the route can), then
// usage.prompt_tokens of real requests.
func NewCounting(client *openai.Client, model string, api API, r Route) Counting {
	usage := Counting{Counter: &UsageCounter{Client: client, Model: model}}
	var tok Tokenizer
	var counter Counter
	switch r.Style {
	case "vllm":
		tc := &TokenizeCounter{Client: client, URL: r.URL, Model: model}
		counter, tok = tc, tc
	case "sglang":
		tc := &TokenizeCounter{Client: client, URL: r.URL, Model: model}
		tok = tc
		if api == Completions {
			counter = tc // its route has no messages form: chat is counted by usage
		}
	case "llamacpp":
		lc := &llamaCppCounter{client: client, url: r.URL}
		counter, tok = lc, lc
	case "tgi":
		tc := &tgiCounter{client: client, url: r.URL}
		tok = tc
		if api == Completions {
			counter = tc
		}
	}
	c := usage
	if counter != nil {
		c = Counting{Counter: counter, Exact: true}
	}
	if api == Completions && r.TokenIDPrompts && tok != nil && r.Style != "tgi" {
		c.Tokenizer = tok
		if counter == nil {
			c.Counter, c.Exact = usage.Counter, false
		}
	}
	c.TextTokenizer = tok
	return c
}

// llamaCppCounter counts with llama-server's /tokenize, applying the chat template
// with /apply-template first for chat.
type llamaCppCounter struct {
	client *openai.Client
	url    string // .../tokenize
}

func (l *llamaCppCounter) Name() string { return "llama.cpp /tokenize" }

func (l *llamaCppCounter) Count(ctx context.Context, p Payload) (int, error) {
	text := p.Text
	if p.Messages != nil {
		var out struct {
			Prompt string `json:"prompt"`
		}
		applyURL := l.url[:len(l.url)-len("/tokenize")] + "/apply-template"
		if err := l.client.PostJSON(ctx, applyURL, map[string]any{"messages": p.Messages}, &out); err != nil {
			return 0, fmt.Errorf("applying the chat template: %w", err)
		}
		text = out.Prompt
	}
	ids, err := l.tokenize(ctx, text, true)
	return len(ids), err
}

func (l *llamaCppCounter) Tokenize(ctx context.Context, text string) ([]int, error) {
	return l.tokenize(ctx, text, false)
}

func (l *llamaCppCounter) tokenize(ctx context.Context, text string, special bool) ([]int, error) {
	var out struct {
		Tokens []int `json:"tokens"`
	}
	err := l.client.PostJSON(ctx, l.url, map[string]any{"content": text, "add_special": special, "parse_special": true}, &out)
	return out.Tokens, err
}

// tgiCounter counts with TGI's /tokenize, which answers a list of tokens.
type tgiCounter struct {
	client *openai.Client
	url    string
}

func (t *tgiCounter) Name() string { return "TGI /tokenize" }

// Tokenize implements Tokenizer: TGI's /tokenize lists the tokens of inputs.
func (t *tgiCounter) Tokenize(ctx context.Context, text string) ([]int, error) {
	var out []struct {
		ID int `json:"id"`
	}
	if err := t.client.PostJSON(ctx, t.url, map[string]any{"inputs": text}, &out); err != nil {
		return nil, err
	}
	ids := make([]int, len(out))
	for i, o := range out {
		ids[i] = o.ID
	}
	return ids, nil
}

func (t *tgiCounter) Count(ctx context.Context, p Payload) (int, error) {
	var out []struct {
		ID int `json:"id"`
	}
	if err := t.client.PostJSON(ctx, t.url, map[string]any{"inputs": p.Text}, &out); err != nil {
		return 0, err
	}
	return len(out), nil
}
