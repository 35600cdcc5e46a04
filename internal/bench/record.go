package bench

import (
	"errors"
	"time"

	"github.com/llmbench/llmbench/internal/openai"
)

// Request is one request as the scorer reads it and the events log holds it. Times
// are nanoseconds on the run's clock (Clock), chunk times nanoseconds after Sent: the
// live run and Rescore score the same numbers.
type Request struct {
	Sent       int64 `json:"sent_ns,omitempty"`
	FirstToken int64 `json:"first_token_ns,omitempty"`
	End        int64 `json:"end_ns,omitempty"`
	// Chunks are the token arrivals: [ns after sent, tokens, events].
	Chunks       [][3]int64    `json:"chunks,omitempty"`
	Tokens       int           `json:"tokens,omitempty"`
	FinishReason string        `json:"finish_reason,omitempty"`
	Outcome      string        `json:"outcome,omitempty"`
	Cancelled    bool          `json:"cancelled,omitempty"` // also in Outcome; kept for older readers
	Error        string        `json:"error,omitempty"`
	Status       int           `json:"http_status,omitempty"`
	RetryAfterMs float64       `json:"retry_after_ms,omitempty"`
	Usage        *openai.Usage `json:"usage,omitempty"`
	// ChunkUsage: the server counted every chunk's tokens.
	ChunkUsage  bool `json:"chunk_usage,omitempty"`
	Speculative bool `json:"speculative,omitempty"`
	NotStreamed bool `json:"not_streamed,omitempty"`
	// Events carried tokens, Merged of them arrived with the one before, Reads of the
	// body brought bytes, Skipped events were not chunks.
	Events  int `json:"events,omitempty"`
	Merged  int `json:"merged,omitempty"`
	Reads   int `json:"reads,omitempty"`
	Skipped int `json:"skipped,omitempty"`
	// TextTokens is the server's tokenize count of the text that arrived (asked
	// after the cell for requests whose chunks the server did not count).
	TextTokens *int `json:"text_tokens,omitempty"`
	// Calibration: sent after the window to learn the server's tokens per chunk
	// (chunkcalib.go); it counts for the count's ratio and bound, in no figure.
	Calibration bool `json:"calibration,omitempty"`
	// Stream is the cell's stream that sent the request, from 1 (0: not recorded, in
	// a log from before): a stream's requests follow one another. The events log
	// writes it as the event's "stream" (EventMeta.Stream).
	Stream int `json:"-"`
	// Reconnects: the request was sent again at once on a new connection, the server
	// having closed the kept one before answering (not an error).
	Reconnects int `json:"reconnects,omitempty"`
	// PromptCache is [cached, prompt] tokens as the server's per-chunk timings said
	// (llama.cpp's cache_n, and cache_n + prompt_n): a request cut at the window's end
	// has no usage, but every chunk of it said what its prompt found cached.
	PromptCache *[2]int `json:"prompt_cache,omitempty"`
}

// cachedPrompt is what the server said of the request's prompt: its tokens and how
// many of them it found cached, from its usage or else its per-chunk timings; ok is
// false when it said neither.
func (q *Request) cachedPrompt() (cached, prompt int, ok bool) {
	if u := q.Usage; u != nil && u.PromptTokens > 0 {
		if d := u.PromptTokensDetails; d != nil && d.CachedTokens != nil {
			return *d.CachedTokens, u.PromptTokens, true
		}
	}
	if pc := q.PromptCache; pc != nil && pc[1] > 0 {
		return pc[0], pc[1], true
	}
	return 0, 0, false
}

// outcome is the request's outcome; records from before outcomes were logged say it
// by their other fields.
func (q *Request) outcome() openai.Outcome {
	if q.Outcome != "" {
		return openai.ParseOutcome(q.Outcome)
	}
	switch {
	case q.Cancelled:
		return openai.OutcomeCancelled
	case q.Error != "":
		return openai.OutcomeFailed
	case q.FinishReason != "":
		return openai.OutcomeFinished
	}
	return openai.OutcomeIncomplete
}

func (q *Request) finished() bool { return q.outcome() == openai.OutcomeFinished }

// Clock stamps a run's times: Unix nanoseconds at its start, advanced by the
// monotonic clock, so that a clock step mid-run moves no figure and the events log
// holds exactly what was scored.
type Clock struct {
	base   time.Time
	baseNs int64
}

// NewClock starts a clock now.
func NewClock() Clock {
	now := time.Now()
	return Clock{base: now, baseNs: now.UnixNano()}
}

// NS is t on the clock; the zero time is 0.
func (c Clock) NS(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	if c.base.IsZero() {
		return t.UnixNano()
	}
	return c.baseNs + int64(t.Sub(c.base))
}

// RecordOf turns what the client saw of one request into the scorer's record, its
// times on c.
func RecordOf(res *openai.StreamResult, c Clock) Request {
	q := Request{
		Sent: c.NS(res.Sent), FirstToken: c.NS(res.FirstToken), End: c.NS(res.End),
		Tokens: res.Tokens, FinishReason: res.FinishReason, Outcome: res.Outcome.String(),
		Cancelled: res.Cancelled, Status: res.Status, Usage: res.Usage,
		ChunkUsage: res.ChunkUsage, Speculative: res.Speculative, NotStreamed: res.NotStreamed,
		Events: res.Events, Merged: res.Merged, Reads: res.Reads, Skipped: res.Skipped,
		Reconnects: res.Reconnects,
	}
	if t := res.Timings; t != nil && t.PromptN >= 0 && t.CacheN >= 0 && t.CacheN+t.PromptN > 0 {
		q.PromptCache = &[2]int{t.CacheN, t.CacheN + t.PromptN}
	}
	if res.Err != nil {
		q.Error = res.Err.Error()
	}
	if res.RetryAfter > 0 {
		q.RetryAfterMs = ms(res.RetryAfter)
	}
	q.Chunks = make([][3]int64, len(res.Chunks))
	for i, ch := range res.Chunks {
		q.Chunks[i] = [3]int64{c.NS(ch.At) - q.Sent, int64(ch.N), int64(max(ch.Events, 1))}
	}
	return q
}

// Result turns a record back into what the client saw, on the wall clock (for the
// open-loop scorer, internal/openloop, which reads results).
func (q *Request) Result() *openai.StreamResult {
	at := func(ns int64) time.Time {
		if ns == 0 {
			return time.Time{}
		}
		return time.Unix(0, ns)
	}
	res := &openai.StreamResult{
		Sent: at(q.Sent), FirstToken: at(q.FirstToken), End: at(q.End),
		Tokens: q.Tokens, FinishReason: q.FinishReason, Outcome: q.outcome(),
		Usage: q.Usage, Status: q.Status, ChunkUsage: q.ChunkUsage,
		Speculative: q.Speculative, NotStreamed: q.NotStreamed,
		Events: q.Events, Merged: q.Merged, Reads: q.Reads, Skipped: q.Skipped,
		Reconnects: q.Reconnects,
	}
	if pc := q.PromptCache; pc != nil {
		res.Timings = &openai.Timings{CacheN: pc[0], PromptN: pc[1] - pc[0]}
	}
	res.Cancelled = res.Outcome == openai.OutcomeCancelled
	if q.Error != "" {
		res.Err = errors.New(q.Error)
	}
	for _, c := range q.Chunks {
		res.Chunks = append(res.Chunks, openai.TokenChunk{At: res.Sent.Add(time.Duration(c[0])), N: int(c[1]), Events: max(int(c[2]), 1)})
	}
	return res
}
