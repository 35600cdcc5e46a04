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
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Client talks to an OpenAI-compatible server.
type Client struct {
	// BaseURL is the server's /v1 base, e.g. "http://127.0.0.1:8000/v1".
	BaseURL string
	APIKey  string
	HTTP    *http.Client
	// SSEBuffer is the size of each stream's event reader buffer (0: 32 KB). Lines
	// longer than it are still read whole.
	SSEBuffer int
	// Arrivals is how many token arrivals a request makes room for up front, at most
	// (0: 1,024).
	Arrivals int
}

// Buffers is how much memory each connection's buffers take: the transport's read
// and write buffers and the stream's event reader; and how many token arrivals a
// request makes room for before its first (a request that asks for fewer gets room
// for those).
type Buffers struct {
	Read, Write, SSE int
	Arrivals         int
}

// arrivalBudget is the room for arrivals all streams make up front together: 2M
// arrivals, 80 MB (each 40 bytes).
const arrivalBudget = 2 << 20

// BuffersFor sizes the buffers to a plan's largest number of concurrent streams. Up
// to 256 streams every connection gets 128 KB (a 64 KB write buffer sends a 56K-token
// prompt in a few writes; 32 KB reads take a burst of events in one read); above, the
// buffers shrink so that thousands of streams fit in memory — 4,096 streams at 24 KB
// a connection take 96 MB where they would take 512 MB — and a read still takes
// dozens of events.
func BuffersFor(maxStreams int) Buffers {
	var b Buffers
	switch {
	case maxStreams <= 256:
		b = Buffers{Read: 32 << 10, Write: 64 << 10, SSE: 32 << 10}
	case maxStreams <= 1024:
		b = Buffers{Read: 16 << 10, Write: 16 << 10, SSE: 16 << 10}
	default:
		b = Buffers{Read: 8 << 10, Write: 8 << 10, SSE: 8 << 10}
	}
	// A request that asks for 8,192 tokens gets room for them up to 256 streams; at
	// 4,096 streams, for 512 (more grow as they come).
	b.Arrivals = min(max(arrivalBudget/max(maxStreams, 1), 256), 8192)
	return b
}

// NewTransport returns a transport tuned for benchmark load: enough idle connections
// for every stream (so none waits for a dial mid-window), no compression (a gzip
// reader would hold bytes back and blur arrival times), HTTP/1.1 (one stream per
// connection, as engines expect), no proxy from the environment, and buffers sized to
// the number of streams (BuffersFor).
func NewTransport(maxStreams int) *http.Transport {
	if maxStreams < 16 {
		maxStreams = 16
	}
	b := BuffersFor(maxStreams)
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
		WriteBufferSize:       b.Write,
		ReadBufferSize:        b.Read,
	}
}

// NewClient returns a client for base (the /v1 base URL) with a transport and event
// reader sized for maxStreams concurrent streams.
func NewClient(base, apiKey string, maxStreams int) *Client {
	return &Client{
		BaseURL: strings.TrimRight(base, "/"),
		APIKey:  apiKey,
		// No client timeout: a 56K-token prefill on a small GPU takes minutes, and every
		// call carries a context that the caller cancels.
		HTTP:      &http.Client{Transport: NewTransport(maxStreams)},
		SSEBuffer: BuffersFor(maxStreams).SSE,
		Arrivals:  BuffersFor(maxStreams).Arrivals,
	}
}

// HTTPError is a non-2xx answer from the server.
type HTTPError struct {
	Status  int
	Message string
	// RetryAfter is what the server's Retry-After header asked for (0 when none).
	RetryAfter time.Duration
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

// PostJSON posts v to url and decodes the answer into out. An answer of HTTP 200
// that is an error body (some gateways send errors so) is an error.
func (c *Client) PostJSON(ctx context.Context, url string, v, out any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	resp, _, _, err := c.post(ctx, url, body, func(req *http.Request) { req.Header.Set("Content-Type", "application/json") })
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return readHTTPError(resp)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	var probe Chunk
	if json.Unmarshal(b, &probe) == nil {
		if msg, ok := probe.ErrorMessage(); ok {
			return &ServerError{Message: truncate(msg, 300)}
		}
	}
	return json.Unmarshal(b, out)
}

// ServerError is an error the server reported in a body or a stream.
type ServerError struct {
	Message string
}

func (e *ServerError) Error() string { return "server error: " + e.Message }

func readHTTPError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	msg := strings.TrimSpace(string(b))
	var ch Chunk
	if json.Unmarshal(b, &ch) == nil {
		if m, ok := ch.ErrorMessage(); ok {
			msg = m
		} else {
			var loose map[string]any
			if json.Unmarshal(b, &loose) == nil {
				if s, ok := loose["detail"].(string); ok && s != "" {
					msg = s // FastAPI's {"detail": ...}
				}
			}
		}
	}
	return &HTTPError{Status: resp.StatusCode, Message: truncate(msg, 300), RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())}
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Observer is told about a stream's progress as it happens (from the stream's own
// goroutine): the cell runner uses it to open its window and show live tok/s.
type Observer interface {
	// FirstToken is called once, when the first generated token arrives.
	FirstToken(at time.Time)
	// Tokens is called for every chunk that carries tokens.
	Tokens(at time.Time, n int)
}

// TokenChunk is the arrival of N tokens: one event, or several events that arrived
// within SameArrival of each other (Events says how many).
type TokenChunk struct {
	At     time.Time
	N      int
	Events int
}

// SameArrival is the client's time resolution: events that arrive closer together
// than this are one arrival, their tokens a chunk of several. No engine streams one
// request's tokens 200 µs apart (5,000 tokens/s per stream), but a read that brings
// several events at once, or a server that writes a speculative step's tokens back
// to back, does.
const SameArrival = 200 * time.Microsecond

// Outcome is what happened to a request.
type Outcome int

const (
	// OutcomeUnknown is a result not finished yet.
	OutcomeUnknown Outcome = iota
	// OutcomeFinished: the server ended the request itself (a finish_reason, then
	// [DONE] or the end of the body).
	OutcomeFinished
	// OutcomeCancelled: the caller cancelled it (the window closed).
	OutcomeCancelled
	// OutcomeRetryable: the server said to try again later (HTTP 429, 502, 503, 504)
	// or could not be reached (connection refused or reset); RetryAfter is what it
	// asked for.
	OutcomeRetryable
	// OutcomeFailed: any other error — an error status or body, an error event, a
	// body that is not a stream, a broken connection.
	OutcomeFailed
	// OutcomeIncomplete: the stream ended ([DONE] or the end of the body) without a
	// finish_reason.
	OutcomeIncomplete
)

var outcomeNames = []string{"unknown", "finished", "cancelled", "retryable", "failed", "incomplete"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "outcome(" + strconv.Itoa(int(o)) + ")"
}

// ParseOutcome reads an outcome's name (the events log writes them so).
func ParseOutcome(s string) Outcome {
	for i, n := range outcomeNames {
		if n == s {
			return Outcome(i)
		}
	}
	return OutcomeUnknown
}

// Success reports whether the request ended as a request should: finished by the
// server, or cancelled by the caller.
func (o Outcome) Success() bool { return o == OutcomeFinished || o == OutcomeCancelled }

// StreamResult is everything the client saw of one streamed request. A failed request
// is a result too: Outcome and Err say why, and what arrived before is kept.
type StreamResult struct {
	Sent       time.Time // when the request was written
	Headers    time.Time // when the response headers arrived
	FirstToken time.Time // zero when no token arrived
	End        time.Time // when the stream ended, failed or was cancelled
	Chunks     []TokenChunk
	// Tokens is the client's count (the sum of Chunks): one per chunk that shows a
	// generated token, unless the server counts them per chunk (ChunkUsage).
	Tokens       int
	FinishReason string // "stop", "length", ... ; empty if the stream did not finish
	Usage        *Usage // the server's usage, when it sent one
	Outcome      Outcome
	// Cancelled says the caller cancelled it (the window closed): Outcome is then
	// OutcomeCancelled.
	Cancelled  bool
	Err        error         // why, when the outcome is not a success
	RetryAfter time.Duration // what the server asked for (Retry-After), on a retryable outcome
	Status     int           // HTTP status
	Timings    *Timings      // llama.cpp's last timings block
	// FirstAnswer is when the first answer token arrived: the first chunk with content
	// (chat) or text (completions), after any reasoning; zero when none did. FirstToken
	// counts reasoning too, so FirstAnswer − FirstToken is how long the model thought.
	FirstAnswer time.Time
	// ReasoningTokens are the tokens that came as reasoning (delta.reasoning_content or
	// delta.reasoning, the two names servers use), out of Tokens; AnswerTokens() the
	// rest. A chunk's tokens are counted by its kind; one that shows no text of either
	// kind (log probabilities, a count) is counted with the chunk before it.
	ReasoningTokens int
	// ChunkUsage says the server counted the tokens of every chunk (continuous usage
	// stats, llama.cpp's timings_per_token): the per-chunk counts are the server's.
	ChunkUsage bool
	// Speculative says the server drafts tokens (llama.cpp's timings report drafts),
	// so several tokens arriving together are its own, not the client's coalescing.
	Speculative bool
	// NotStreamed says the server answered stream:true with one JSON body.
	NotStreamed bool
	// Events is how many events carried tokens; Merged how many of those arrived
	// within SameArrival of the one before and joined its chunk; Reads how many reads
	// of the body brought bytes.
	Events, Merged, Reads int
	// Skipped counts events that were not chunks: keep-alives without data, event
	// types other than the default, data that is not JSON. SkipSample shows one.
	Skipped    int
	SkipSample string
	// Text is the generated text, kept when asked (to count it with the server's
	// tokenize route).
	Text []byte
	// Reconnects is how many times the request was sent again at once on a new
	// connection because the server had closed the kept one before answering
	// (reconnect.go): not an error, and Sent is the new connection's.
	Reconnects int

	// view is the chunk being read, reused from event to event; usage (and details,
	// cached) is where Usage points once a chunk carried one.
	view chunkView
	head headMemo
	// lastAt is the last chunk's At, kept here where the next event's comparison
	// finds it in cache (the chunk list's tail is cold by then, with hundreds of
	// streams between two of this one's events).
	lastAt time.Time
	// thinking says the last chunk that showed text showed reasoning only; answered
	// that an answer token came (FirstAnswer is set), kept here with the other fields
	// every event reads.
	thinking, answered bool
	usage              Usage
	details            PromptTokensDetails
	cached             int
	// jsonOnly reads every chunk with encoding/json (tests compare the two decoders).
	jsonOnly bool
	// keepAnswer keeps Answer.
	keepAnswer bool
	// Answer is the answer's text alone (no reasoning), kept when asked: the reply a
	// conversation's next turn carries in its history. (Last: the fields above are the
	// hot ones of every event.)
	Answer []byte
}

// Finished reports whether the server ended the request itself (EOS or length).
func (r *StreamResult) Finished() bool { return r.Outcome == OutcomeFinished }

// AnswerTokens are the tokens that were not reasoning.
func (r *StreamResult) AnswerTokens() int { return r.Tokens - r.ReasoningTokens }

// StreamChat streams a chat completion.
func (c *Client) StreamChat(ctx context.Context, req *ChatRequest, obs Observer) *StreamResult {
	req.Stream = true
	return c.Stream(ctx, "/chat/completions", req, obs, false)
}

// StreamCompletion streams a text completion.
func (c *Client) StreamCompletion(ctx context.Context, req *CompletionRequest, obs Observer) *StreamResult {
	req.Stream = true
	return c.Stream(ctx, "/completions", req, obs, false)
}

// errDone marks the [DONE] sentinel.
var errDone = errors.New("done")

// ErrNotStreamed is the failure of a request that the server answered with one JSON
// body although it asked to stream.
var ErrNotStreamed = errors.New("the server answered stream:true with one JSON body: it does not stream, so no token's arrival can be timed")

// Stream posts payload (which must ask to stream) to path under the base and reads
// the event stream. keepText keeps the generated text in the result.
func (c *Client) Stream(ctx context.Context, path string, payload any, obs Observer, keepText bool) *StreamResult {
	return c.StreamWith(ctx, path, payload, obs, StreamConfig{KeepText: keepText})
}

// StreamConfig is how a stream is read.
type StreamConfig struct {
	// KeepText keeps the generated text in the result.
	KeepText bool
	// ExpectTokens, when above 0, is how many tokens the request asked for: the
	// result's arrivals are sized for them (up to the client's Arrivals) rather than
	// grown.
	ExpectTokens int
	// KeepAnswer keeps the answer's text, without the reasoning, in Answer.
	KeepAnswer bool
}

// presize is how many arrivals a request makes room for up front (at most): the
// client's Buffers.Arrivals, or 1,024.
func (c *Client) presize() int {
	if c.Arrivals > 0 {
		return c.Arrivals
	}
	return 1024
}

// StreamWith is Stream, configured.
func (c *Client) StreamWith(ctx context.Context, path string, payload any, obs Observer, cfg StreamConfig) *StreamResult {
	res := &StreamResult{keepAnswer: cfg.KeepAnswer}
	if cfg.ExpectTokens > 0 {
		res.Chunks = make([]TokenChunk, 0, min(cfg.ExpectTokens, c.presize()))
	}
	// The request's own context: the drain after [DONE] may cut it short.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	keepText := cfg.KeepText
	body, err := json.Marshal(payload)
	if err != nil {
		res.fail(OutcomeFailed, fmt.Errorf("encoding request: %w", err))
		return res
	}
	resp, sent, again, err := c.post(ctx, c.BaseURL+path, body, func(req *http.Request) {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "text/event-stream")
	})
	res.Sent, res.Reconnects = sent, again
	if err != nil && sent.IsZero() {
		res.fail(OutcomeFailed, err) // the request could not be made
		return res
	}
	if err != nil {
		res.End = time.Now()
		if ctx.Err() != nil {
			res.cancel()
			return res
		}
		res.fail(transportOutcome(err), describeTransportError(err))
		return res
	}
	defer resp.Body.Close()
	res.Headers = time.Now()
	res.Status = resp.StatusCode
	if resp.StatusCode/100 != 2 {
		herr := readHTTPError(resp).(*HTTPError)
		res.End = time.Now()
		res.RetryAfter = herr.RetryAfter
		res.fail(statusOutcome(resp.StatusCode), herr)
		return res
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		res.readWhole(resp.Body)
		res.End = time.Now()
		return res
	}
	size := c.SSEBuffer
	if size <= 0 {
		size = defaultSSEBuffer
	}
	sse := getSSEReader(resp.Body, size)
	atDone := res.readStream(ctx, sse, obs, keepText)
	putSSEReader(sse, size)
	if atDone {
		drain(resp.Body, cancel)
	}
	return res
}

// drainLimit bounds the wait, after [DONE], for the end of the body. Engines end the
// response right after it; one that holds the connection open costs the connection,
// never the request's times (its end is [DONE]'s arrival).
const drainLimit = 100 * time.Millisecond

// drain reads what follows [DONE] to the end of the body (the chunked encoding's last
// chunk, normally already here), so that the transport keeps the connection for the
// stream's next request: a body closed unread closes its connection, and a closed loop
// of thousands of streams would then dial a new one per request and leave a socket in
// TIME_WAIT for each.
func drain(body io.Reader, cancel context.CancelFunc) {
	t := time.AfterFunc(drainLimit, cancel)
	defer t.Stop()
	io.Copy(io.Discard, io.LimitReader(body, 64<<10))
}

func (r *StreamResult) fail(o Outcome, err error) {
	r.Outcome, r.Err = o, err
}

func (r *StreamResult) cancel() {
	r.Outcome, r.Cancelled = OutcomeCancelled, true
}

// statusOutcome says whether an HTTP status asks to try again later.
func statusOutcome(status int) Outcome {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return OutcomeRetryable
	}
	return OutcomeFailed
}

// transportOutcome says whether a failure to talk to the server is worth a retry: a
// server restarting refuses or resets connections for a moment.
func transportOutcome(err error) Outcome {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) {
		return OutcomeRetryable
	}
	return OutcomeFailed
}

// readStream reads the events of a stream into the result; atDone says the stream
// ended with [DONE] (the body may have bytes left).
func (r *StreamResult) readStream(ctx context.Context, sse *SSEReader, obs Observer, keepText bool) (atDone bool) {
	defer func() {
		r.Reads = sse.Reads()
		r.Skipped += sse.Empty
		r.view, r.head = chunkView{}, headMemo{} // the view points into the reader's buffer
	}()
	for {
		ev, err := sse.Next()
		if err != nil {
			r.End = time.Now()
			switch {
			case ctx.Err() != nil:
				r.cancel()
			case errors.Is(err, io.EOF):
				r.ended(sse)
			default:
				r.fail(OutcomeFailed, fmt.Errorf("reading stream: %w", describeTransportError(err)))
			}
			return false
		}
		if err := r.apply(ev, obs, keepText); err != nil {
			r.End = ev.At
			if errors.Is(err, errDone) {
				r.ended(sse)
				return true
			}
			r.fail(OutcomeFailed, err)
			return false
		}
	}
}

// ended settles a stream that ended by itself ([DONE] or the end of the body): it
// finished if a finish_reason came, else it is incomplete, with whatever the server
// wrote that was not an event.
func (r *StreamResult) ended(sse *SSEReader) {
	switch {
	case len(sse.ErrorField) > 0:
		r.fail(OutcomeFailed, &ServerError{Message: errorText(sse.ErrorField)})
	case r.FinishReason != "":
		r.Outcome = OutcomeFinished
	case len(sse.Stray) > 0:
		r.fail(OutcomeIncomplete, fmt.Errorf("the stream ended without a finish_reason; the server wrote: %s", errorText(sse.Stray)))
	default:
		r.fail(OutcomeIncomplete, errors.New("the stream ended without a finish_reason"))
	}
}

// errorText is a server's error line as a message: the message of a JSON error body,
// or the line itself.
func errorText(b []byte) string {
	var ch Chunk
	if json.Unmarshal(b, &ch) == nil {
		if msg, ok := ch.ErrorMessage(); ok {
			return truncate(msg, 300)
		}
	}
	return truncate(string(b), 300)
}

// readWhole reads a JSON body given where a stream was asked for: an error in one of
// the forms servers use, or a whole completion from a server that ignored stream:true.
// Neither times a token.
func (r *StreamResult) readWhole(body io.Reader) {
	b, err := io.ReadAll(io.LimitReader(body, 64<<20))
	if err != nil {
		r.fail(OutcomeFailed, fmt.Errorf("reading response: %w", err))
		return
	}
	var ch Chunk
	if err := json.Unmarshal(b, &ch); err != nil {
		r.fail(OutcomeFailed, fmt.Errorf("decoding response: %w (body: %s)", err, truncate(string(b), 120)))
		return
	}
	if msg, ok := ch.ErrorMessage(); ok {
		r.fail(OutcomeFailed, &ServerError{Message: truncate(msg, 300)})
		return
	}
	r.NotStreamed = true
	r.Usage = ch.Usage
	if len(ch.Choices) > 0 && ch.Choices[0].FinishReason != nil {
		r.FinishReason = *ch.Choices[0].FinishReason
	}
	r.fail(OutcomeFailed, ErrNotStreamed)
}

// apply folds one event into the result.
func (r *StreamResult) apply(ev Event, obs Observer, keepText bool) error {
	if ev.Type != "" && ev.Type != "message" {
		if ev.Type == "error" {
			return &ServerError{Message: errorText(ev.Data)}
		}
		r.skip("event: " + ev.Type)
		return nil
	}
	data := bytes.TrimSpace(ev.Data)
	if len(data) == 6 && string(data) == "[DONE]" {
		return errDone
	}
	if len(data) == 0 || data[0] != '{' {
		r.skip(string(data))
		return nil
	}
	v := &r.view
	if r.jsonOnly || !decodeChunkAfter(data, v, &r.head) {
		// What the fast decoder does not read exactly as encoding/json does, encoding/json
		// reads: an error form, an odd key, a type the field does not take.
		var ch Chunk
		if err := json.Unmarshal(data, &ch); err != nil {
			r.skip(string(data))
			return nil
		}
		if msg, ok := ch.ErrorMessage(); ok {
			return &ServerError{Message: truncate(msg, 300)}
		}
		viewOf(&ch, v)
	}
	n, finished, answer := r.tokensIn(v, keepText)
	if n == 0 && finished && r.FirstToken.IsZero() {
		// A request that finishes before any chunk showed a token generated one whose
		// text is nothing (a byte-fallback piece, a special token, a token a reasoning
		// parser holds back): the chunk with the finish_reason is its arrival.
		n = max(1, r.usageRise(v))
	}
	if n > 0 {
		r.arrive(ev.At, n, obs)
		if r.thinking {
			r.ReasoningTokens += n
		} else if answer && !r.answered {
			r.FirstAnswer, r.answered = ev.At, true
		}
	}
	return nil
}

// tokensIn counts the tokens a chunk shows and records what else it says. A chunk
// shows a generated token by its text, its reasoning text, its log probabilities, or
// a rise in the server's per-chunk count; a role alone is no token.
func (r *StreamResult) tokensIn(v *chunkView, keepText bool) (n int, finished, answer bool) {
	for i := range v.choices {
		c := &v.choices[i]
		if c.index != 0 {
			continue // one choice is asked for; ignore any other
		}
		text, reasoning := c.text, false
		if c.hasDelta {
			text = c.content
			reasoning = text.empty() && (!c.reasoningContent.empty() || !c.reasoning.empty())
		}
		switch {
		case reasoning:
			n, r.thinking = 1, true
			if keepText {
				r.Text = c.reasoning.appendTo(c.reasoningContent.appendTo(r.Text))
			}
		case !text.empty():
			n, r.thinking, answer = 1, false, true
			if keepText {
				r.Text = text.appendTo(r.Text)
			}
			if r.keepAnswer {
				r.Answer = text.appendTo(r.Answer)
			}
		}
		if c.logprobs > 0 {
			n = c.logprobs
		}
		if c.hasFinish && c.finish != "" {
			r.FinishReason = c.finish
			finished = true
		}
	}
	if t := parseTimings(v.timings); t != nil {
		r.Timings = t
		if t.DraftN > 0 {
			r.Speculative = true
		}
		if len(v.choices) > 0 && t.PredictedN > 0 {
			// llama.cpp's timings_per_token: predicted_n is the count so far.
			r.ChunkUsage = true
			if rise := t.PredictedN - r.Tokens; rise > 0 || n > 0 {
				n = max(rise, 0)
			}
		}
	}
	if v.hasUsage {
		if len(v.choices) > 0 && v.usage.CompletionTokens > 0 {
			// Continuous usage stats: every chunk carries the running completion count,
			// which says exactly how many tokens this chunk brought.
			r.ChunkUsage = true
			n = max(v.usage.CompletionTokens-r.Tokens, 0)
		}
		// One Usage per request, overwritten by every chunk that carries one.
		r.usage = v.usage
		if det := v.details; det.present {
			r.details = PromptTokensDetails{}
			if det.hasCached {
				r.cached = det.cached
				r.details.CachedTokens = &r.cached
			}
			r.usage.PromptTokensDetails = &r.details
		}
		r.Usage = &r.usage
	}
	return n, finished, answer
}

// usageRise is how many tokens the chunk's running count adds, 0 without one.
func (r *StreamResult) usageRise(v *chunkView) int {
	if v.hasUsage && len(v.choices) > 0 {
		return max(v.usage.CompletionTokens-r.Tokens, 0)
	}
	return 0
}

// arrive records n tokens arriving at at. An arrival within SameArrival of the last
// joins its chunk: the client cannot tell their times apart.
func (r *StreamResult) arrive(at time.Time, n int, obs Observer) {
	r.Events++
	if r.FirstToken.IsZero() {
		r.FirstToken = at
		if obs != nil {
			obs.FirstToken(at)
		}
	}
	if last := len(r.Chunks) - 1; last >= 0 && at.Sub(r.lastAt) < SameArrival {
		r.Chunks[last].N += n
		r.Chunks[last].Events++
		r.Merged++
	} else {
		r.Chunks = append(r.Chunks, TokenChunk{At: at, N: n, Events: 1})
		r.lastAt = at
	}
	r.Tokens += n
	if obs != nil {
		obs.Tokens(at, n)
	}
}

func (r *StreamResult) skip(sample string) {
	r.Skipped++
	if r.SkipSample == "" {
		r.SkipSample = truncate(sample, 80)
	}
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
