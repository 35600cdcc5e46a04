package openai

import (
	"context"
	"errors"
)

// ChatResponse is a whole (not streamed) chat completion: what an evaluation reads.
type ChatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
			// ReasoningContent (vLLM, SGLang, DeepSeek) or Reasoning (Ollama, newer
			// vLLM) holds a reasoning model's thinking when the server parses it out.
			ReasoningContent string `json:"reasoning_content"`
			Reasoning        string `json:"reasoning"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *Usage `json:"usage,omitempty"`
}

// Chat posts a chat completion without streaming and returns the whole answer. An
// error is the transport's, an *HTTPError or a *ServerError.
func (c *Client) Chat(ctx context.Context, req *ChatRequest) (*ChatResponse, error) {
	req.Stream, req.StreamOptions = false, nil
	var out ChatResponse
	if err := c.PostJSON(ctx, c.BaseURL+"/chat/completions", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Retryable says whether a Chat error is worth another try, by the streaming
// client's own rules: the server asked to try later (HTTP 429, 502, 503, 504) or
// refused or reset the connection (restarting); a request it refused is not.
func Retryable(err error) bool {
	var he *HTTPError
	if errors.As(err, &he) {
		return statusOutcome(he.Status) == OutcomeRetryable
	}
	return transportOutcome(err) == OutcomeRetryable
}
