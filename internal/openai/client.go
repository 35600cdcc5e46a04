package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// Client talks to an OpenAI-compatible server.
type Client struct {
	// BaseURL is the server's /v1 base, e.g. "http://127.0.0.1:8000/v1".
	BaseURL string
	APIKey  string
	HTTP    *http.Client
}

// NewTransport returns a transport tuned for benchmark load: enough idle connections
// for every stream (so none waits for a dial mid-window), no compression (a gzip
// reader would hold bytes back and blur arrival times), HTTP/1.1 (one stream per
// connection, as engines expect), and no proxy from the environment.
func NewTransport(maxStreams int) *http.Transport {
	if maxStreams < 16 {
		maxStreams = 16
	}
	return &http.Transport{
		Proxy: nil,
		DialContext: (&net.Dialer{
			Timeout:   30 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		MaxIdleConns:          maxStreams * 2,
		MaxIdleConnsPerHost:   maxStreams * 2,
		IdleConnTimeout:       90 * time.Second,
		DisableCompression:    true,
		ForceAttemptHTTP2:     false,
		ExpectContinueTimeout: 0,
		WriteBufferSize:       64 << 10,
		ReadBufferSize:        32 << 10,
	}
}

// NewClient returns a client for base (the /v1 base URL) with a tuned transport.
func NewClient(base, apiKey string, maxStreams int) *Client {
	return &Client{
		BaseURL: strings.TrimRight(base, "/"),
		APIKey:  apiKey,
		// No client timeout: a 56K-token prefill on a small GPU takes minutes, and every
		// call carries a context that the caller cancels.
		HTTP: &http.Client{Transport: NewTransport(maxStreams)},
	}
}

// HTTPError is a non-2xx answer from the server.
type HTTPError struct {
	Status  int
	Message string
}

func (e *HTTPError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("HTTP %d %s", e.Status, http.StatusText(e.Status))
	}
	return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message)
}

// Models lists the served models (GET /v1/models).
func (c *Client) Models(ctx context.Context) ([]ModelCard, error) {
	var list ModelList
	if err := c.getJSON(ctx, "/models", &list); err != nil {
		return nil, fmt.Errorf("listing models: %w", err)
	}
	return list.Data, nil
}

func (c *Client) getJSON(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.BaseURL+path, nil)
	if err != nil {
		return err
	}
	c.authorize(req)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return readHTTPError(resp)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

func (c *Client) authorize(req *http.Request) {
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
}

// PostJSON posts v to path (relative to the base) and decodes the answer into out.
func (c *Client) PostJSON(ctx context.Context, url string, v, out any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	c.authorize(req)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return readHTTPError(resp)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func readHTTPError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	msg := strings.TrimSpace(string(b))
	var env ErrorResponse
	if json.Unmarshal(b, &env) == nil && env.Error.Message != "" {
		msg = env.Error.Message
	} else {
		// Some servers (TGI, llama.cpp) answer {"error": "text"} or {"detail": ...}.
		var loose map[string]any
		if json.Unmarshal(b, &loose) == nil {
			for _, k := range []string{"error", "detail", "message"} {
				if s, ok := loose[k].(string); ok && s != "" {
					msg = s
					break
				}
			}
		}
	}
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return &HTTPError{Status: resp.StatusCode, Message: msg}
}

// Observer is told about a stream's progress as it happens (from the stream's own
// goroutine): the cell runner uses it to open its window and show live tok/s.
type Observer interface {
	// FirstToken is called once, when the first content token arrives.
	FirstToken(at time.Time)
	// Tokens is called for every chunk that carries tokens.
	Tokens(at time.Time, n int)
}

// TokenChunk is the arrival of a chunk carrying N tokens.
type TokenChunk struct {
	At time.Time
	N  int
}

// StreamResult is everything the client saw of one streamed request. A failed request
// is a result too: Err says why, and what arrived before the failure is kept.
type StreamResult struct {
	Sent         time.Time // when the request was written
	Headers      time.Time // when the response headers arrived
	FirstToken   time.Time // zero when no token arrived
	End          time.Time // when the stream ended, failed or was cancelled
	Chunks       []TokenChunk
	Tokens       int    // tokens counted by the client (sum of Chunks)
	FinishReason string // "stop", "length", ... ; empty if the stream did not finish
	Usage        *Usage // the server's usage, when it sent one
	Cancelled    bool   // the caller cancelled it (e.g. the window closed)
	Err          error  // nil for a stream that finished or was cancelled
	Status       int    // HTTP status
	Reasoning    int    // tokens that came as reasoning_content
	// Estimated says the per-chunk token counts were spread from the server's final
	// usage rather than seen chunk by chunk.
	Estimated bool
	Timings   json.RawMessage

	// ChunkUsage says the server sent usage with its token chunks, so every chunk's
	// token count is the server's.
	ChunkUsage bool
}

// reconcile trusts the server's final count over the client's chunk count: when a
// server without per-chunk usage packs several tokens into one chunk, the client can
// only count chunks, and usage.completion_tokens says how many tokens they carried. The
// tokens are spread evenly over the chunks (each chunk's gap is then split by its
// share, as methodology.md says).
func (r *StreamResult) reconcile() {
	if r.ChunkUsage || r.Usage == nil || len(r.Chunks) == 0 || r.Usage.CompletionTokens <= r.Tokens {
		return
	}
	total, c := r.Usage.CompletionTokens, len(r.Chunks)
	for i := range r.Chunks {
		// Chunk i gets its share of the total, rounded so the shares add up exactly.
		r.Chunks[i].N = total*(i+1)/c - total*i/c
	}
	r.Tokens = total
	r.Estimated = true
}

// Finished reports whether the server ended the request itself (EOS or length).
func (r *StreamResult) Finished() bool { return r.FinishReason != "" && r.Err == nil && !r.Cancelled }

// StreamChat streams a chat completion.
func (c *Client) StreamChat(ctx context.Context, req *ChatRequest, obs Observer) *StreamResult {
	req.Stream = true
	return c.stream(ctx, "/chat/completions", req, obs)
}

// StreamCompletion streams a text completion.
func (c *Client) StreamCompletion(ctx context.Context, req *CompletionRequest, obs Observer) *StreamResult {
	req.Stream = true
	return c.stream(ctx, "/completions", req, obs)
}

// errDone marks the [DONE] sentinel.
var errDone = errors.New("done")

func (c *Client) stream(ctx context.Context, path string, payload any, obs Observer) *StreamResult {
	res := &StreamResult{}
	body, err := json.Marshal(payload)
	if err != nil {
		res.Err = fmt.Errorf("encoding request: %w", err)
		return res
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+path, bytes.NewReader(body))
	if err != nil {
		res.Err = err
		return res
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	c.authorize(req)
	res.Sent = time.Now()
	resp, err := c.HTTP.Do(req)
	if err != nil {
		res.End = time.Now()
		if ctx.Err() != nil {
			res.Cancelled = true
			return res
		}
		res.Err = describeTransportError(err)
		return res
	}
	defer resp.Body.Close()
	res.Headers = time.Now()
	res.Status = resp.StatusCode
	if resp.StatusCode/100 != 2 {
		res.Err = readHTTPError(resp)
		res.End = time.Now()
		return res
	}
	ct := resp.Header.Get("Content-Type")
	sse := NewSSEReader(resp.Body)
	if strings.HasPrefix(ct, "application/json") {
		// The server ignored stream=true and answered in one piece.
		res.Err = c.readWhole(resp.Body, res, obs)
		res.End = time.Now()
		return res
	}
	for {
		ev, err := sse.Next()
		if err != nil {
			res.End = time.Now()
			if ctx.Err() != nil {
				res.Cancelled = true
				return res
			}
			if errors.Is(err, io.EOF) {
				if res.FinishReason == "" {
					res.Err = errors.New("stream ended before the server finished the response")
				} else {
					res.reconcile()
				}
				return res
			}
			res.Err = fmt.Errorf("reading stream: %w", describeTransportError(err))
			return res
		}
		if err := res.apply(ev, obs); err != nil {
			res.End = ev.At
			if errors.Is(err, errDone) {
				res.reconcile()
				return res
			}
			res.Err = err
			return res
		}
	}
}

func (c *Client) readWhole(body io.Reader, res *StreamResult, obs Observer) error {
	var ch Chunk
	if err := json.NewDecoder(body).Decode(&ch); err != nil {
		return fmt.Errorf("decoding response: %w", err)
	}
	now := time.Now()
	n := 0
	if ch.Usage != nil {
		n = ch.Usage.CompletionTokens
		res.Usage = ch.Usage
	}
	if n > 0 {
		res.FirstToken = now
		res.Chunks = append(res.Chunks, TokenChunk{At: now, N: n})
		res.Tokens = n
		if obs != nil {
			obs.FirstToken(now)
			obs.Tokens(now, n)
		}
	}
	if len(ch.Choices) > 0 && ch.Choices[0].FinishReason != nil {
		res.FinishReason = *ch.Choices[0].FinishReason
	}
	return nil
}

// apply folds one event into the result.
func (r *StreamResult) apply(ev Event, obs Observer) error {
	data := ev.Data
	if bytes.Equal(bytes.TrimSpace(data), []byte("[DONE]")) {
		return errDone
	}
	if ev.Type == "error" {
		return fmt.Errorf("server sent an error event: %s", truncate(string(data), 300))
	}
	var ch Chunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return fmt.Errorf("decoding stream chunk: %w (chunk: %s)", err, truncate(string(data), 120))
	}
	if len(ch.Choices) == 0 && ch.Usage == nil {
		// Some servers stream {"error": {...}} as a data event.
		var env ErrorResponse
		if json.Unmarshal(data, &env) == nil && env.Error.Message != "" {
			return fmt.Errorf("server error in stream: %s", env.Error.Message)
		}
	}
	n := 0
	for _, c := range ch.Choices {
		if c.Index != 0 {
			continue // one choice is asked for; ignore any other
		}
		switch {
		case c.Delta != nil:
			if c.Delta.Content != "" {
				n++
			}
			if c.Delta.ReasoningContent != "" || c.Delta.Reasoning != "" {
				if c.Delta.Content == "" {
					n++
				}
				r.Reasoning++
			}
		case c.Text != "":
			n++
		}
		if c.FinishReason != nil && *c.FinishReason != "" {
			r.FinishReason = *c.FinishReason
		}
	}
	if ch.Usage != nil && n > 0 {
		r.ChunkUsage = true
	}
	if ch.Usage != nil {
		// With continuous usage stats, every chunk carries the running completion count:
		// it says exactly how many tokens this chunk brought.
		if n > 0 && ch.Usage.CompletionTokens > r.Tokens {
			n = ch.Usage.CompletionTokens - r.Tokens
		}
		r.Usage = ch.Usage
	}
	if len(ch.Timings) > 0 {
		r.Timings = ch.Timings
	}
	if n > 0 {
		if r.FirstToken.IsZero() {
			r.FirstToken = ev.At
			if obs != nil {
				obs.FirstToken(ev.At)
			}
		}
		r.Chunks = append(r.Chunks, TokenChunk{At: ev.At, N: n})
		r.Tokens += n
		if obs != nil {
			obs.Tokens(ev.At, n)
		}
	}
	return nil
}

func describeTransportError(err error) error {
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return fmt.Errorf("cannot connect: %w", err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("the server closed the stream mid-event: %w", err)
	}
	return err
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
