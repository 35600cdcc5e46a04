// Package openai owns the OpenAI-compatible wire format (requests, responses, stream
// chunks, usage) and the streaming client that timestamps bytes as they arrive. The
// emulator (internal/sim) serves the same types.
package openai

import "encoding/json"

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// StreamOptions asks the server for a final usage chunk.
type StreamOptions struct {
	IncludeUsage         bool `json:"include_usage"`
	ContinuousUsageStats bool `json:"continuous_usage_stats,omitempty"`
}

// ChatRequest is POST /v1/chat/completions.
type ChatRequest struct {
	Model               string    `json:"model"`
	Messages            []Message `json:"messages"`
	MaxTokens           *int      `json:"max_tokens,omitempty"`
	MaxCompletionTokens *int      `json:"max_completion_tokens,omitempty"`
	RequestOptions
}

// CompletionRequest is POST /v1/completions. Prompt is a string or a []int of token ids.
type CompletionRequest struct {
	Model     string `json:"model"`
	Prompt    any    `json:"prompt"`
	MaxTokens *int   `json:"max_tokens,omitempty"`
	RequestOptions
}

// RequestOptions are what both routes take after the prompt and its output limit.
// Embedded, its fields are the request's own in JSON, in this order after those.
type RequestOptions struct {
	Stream        bool           `json:"stream,omitempty"`
	StreamOptions *StreamOptions `json:"stream_options,omitempty"`
	Temperature   *float64       `json:"temperature,omitempty"`
	Seed          *int64         `json:"seed,omitempty"`
	// Engine extensions (vLLM, SGLang, llama.cpp): ignored by servers that do not know them.
	IgnoreEOS *bool `json:"ignore_eos,omitempty"`
	MinTokens *int  `json:"min_tokens,omitempty"`
	// TimingsPerToken asks llama.cpp's server for its timings in every chunk: their
	// predicted_n counts the tokens generated so far.
	TimingsPerToken bool `json:"timings_per_token,omitempty"`
	// IDSlot asks llama.cpp's server to run the request in that slot (its id_slot).
	IDSlot *int `json:"id_slot,omitempty"`
}

// PromptTokensDetails is usage.prompt_tokens_details.
type PromptTokensDetails struct {
	CachedTokens *int `json:"cached_tokens,omitempty"`
}

// Usage is the token accounting a server reports.
type Usage struct {
	PromptTokens        int                  `json:"prompt_tokens"`
	CompletionTokens    int                  `json:"completion_tokens"`
	TotalTokens         int                  `json:"total_tokens"`
	PromptTokensDetails *PromptTokensDetails `json:"prompt_tokens_details,omitempty"`
}

// Delta is the incremental part of a streamed chat choice.
type Delta struct {
	Role             string `json:"role,omitempty"`
	Content          string `json:"content,omitempty"`
	ReasoningContent string `json:"reasoning_content,omitempty"`
	Reasoning        string `json:"reasoning,omitempty"` // some servers (Ollama, newer vLLM) use this name
}

// Choice is one choice of a response or stream chunk (chat or completions).
type Choice struct {
	Index        int       `json:"index"`
	Delta        *Delta    `json:"delta,omitempty"`   // chat stream
	Message      *Message  `json:"message,omitempty"` // chat, not streamed
	Text         string    `json:"text,omitempty"`    // completions
	FinishReason *string   `json:"finish_reason"`
	Logprobs     *Logprobs `json:"logprobs,omitempty"`
}

// Logprobs is a choice's log probabilities: chat has one entry per generated token
// in content, completions one per token in tokens.
type Logprobs struct {
	Content []json.RawMessage `json:"content,omitempty"`
	Tokens  []json.RawMessage `json:"tokens,omitempty"`
}

// Tokens is how many generated tokens the log probabilities describe.
func (l *Logprobs) Count() int {
	if l == nil {
		return 0
	}
	return max(len(l.Content), len(l.Tokens))
}

// Timings is llama.cpp's per-request timing block (server-task.cpp
// result_timings::to_json): in the final chunk, and in every chunk with
// timings_per_token.
type Timings struct {
	CacheN         int     `json:"cache_n"`
	PromptN        int     `json:"prompt_n"`
	PromptMs       float64 `json:"prompt_ms"`
	PredictedN     int     `json:"predicted_n"`
	PredictedMs    float64 `json:"predicted_ms"`
	DraftN         int     `json:"draft_n,omitempty"`
	DraftNAccepted int     `json:"draft_n_accepted,omitempty"`
}

// Chunk is one streamed event (chat.completion.chunk or text_completion), and also a
// whole non-streamed response: the fields are the same.
type Chunk struct {
	ID      string   `json:"id,omitempty"`
	Object  string   `json:"object,omitempty"`
	Created int64    `json:"created,omitempty"`
	Model   string   `json:"model,omitempty"`
	Choices []Choice `json:"choices"`
	Usage   *Usage   `json:"usage,omitempty"`
	// SystemFingerprint carries llama.cpp's build info.
	SystemFingerprint string `json:"system_fingerprint,omitempty"`
	// Timings is llama.cpp's timing block, raw: read it with ParsedTimings, so that a
	// block of unexpected shape costs its figures, never the chunk's tokens.
	Timings json.RawMessage `json:"timings,omitempty"`

	// Error forms servers put in a body or a stream event: {"error": {...}} (OpenAI,
	// vLLM, SGLang, TGI mid-stream), {"error": "text"} (TGI's error body), and
	// {"object": "error", "message": ...} (vLLM and SGLang's older ErrorResponse).
	Error   json.RawMessage `json:"error,omitempty"`
	Message string          `json:"message,omitempty"`
}

// ParsedTimings decodes the chunk's llama.cpp timings, nil when it has none or they do
// not decode.
func (c *Chunk) ParsedTimings() *Timings { return parseTimings(c.Timings) }

func parseTimings(raw []byte) *Timings {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var t Timings
	if json.Unmarshal(raw, &t) != nil {
		return nil
	}
	return &t
}

// ErrorMessage returns the server's message when the chunk is an error in one of the
// forms servers use, and whether it is one.
func (c *Chunk) ErrorMessage() (string, bool) {
	if len(c.Error) > 0 && string(c.Error) != "null" {
		var text string
		if json.Unmarshal(c.Error, &text) == nil {
			return text, true
		}
		var obj struct {
			Message string `json:"message"`
			Code    any    `json:"code"`
		}
		if json.Unmarshal(c.Error, &obj) == nil && obj.Message != "" {
			return obj.Message, true
		}
		return string(c.Error), true
	}
	if c.Object == "error" {
		if c.Message == "" {
			return "the server sent an error object with no message", true
		}
		return c.Message, true
	}
	return "", false
}

// ModelCard is one entry of GET /v1/models.
type ModelCard struct {
	ID          string  `json:"id"`
	Object      string  `json:"object,omitempty"`
	Created     int64   `json:"created,omitempty"`
	OwnedBy     string  `json:"owned_by,omitempty"`
	Root        string  `json:"root,omitempty"`
	Parent      *string `json:"parent,omitempty"`
	MaxModelLen *int64  `json:"max_model_len,omitempty"`
	// Meta is llama.cpp's model metadata.
	Meta json.RawMessage `json:"meta,omitempty"`
}

// ModelList is GET /v1/models.
type ModelList struct {
	Object string      `json:"object"`
	Data   []ModelCard `json:"data"`
}

// ErrorResponse is the OpenAI error envelope.
type ErrorResponse struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type,omitempty"`
		Code    any    `json:"code,omitempty"`
	} `json:"error"`
}

// TokenizeRequest is vLLM/SGLang's POST /tokenize (prompt form or messages form).
type TokenizeRequest struct {
	Model               string    `json:"model,omitempty"`
	Prompt              string    `json:"prompt,omitempty"`
	Messages            []Message `json:"messages,omitempty"`
	AddSpecialTokens    *bool     `json:"add_special_tokens,omitempty"`
	AddGenerationPrompt *bool     `json:"add_generation_prompt,omitempty"`
}

// TokenizeResponse is vLLM/SGLang's /tokenize answer.
type TokenizeResponse struct {
	Count       int   `json:"count"`
	MaxModelLen int64 `json:"max_model_len,omitempty"`
	Tokens      []int `json:"tokens"`
}

// DetokenizeRequest is vLLM's POST /detokenize.
type DetokenizeRequest struct {
	Model  string `json:"model,omitempty"`
	Tokens []int  `json:"tokens"`
}

// DetokenizeResponse is vLLM's /detokenize answer.
type DetokenizeResponse struct {
	Prompt string `json:"prompt"`
}

// Ptr returns a pointer to v: request fields are optional pointers.
func Ptr[T any](v T) *T { return &v }
