package measure

import (
	"time"

	"github.com/llmbench/llmbench/internal/openai"
)

// Request is one request as every load shape scores it and the events log holds it:
// the one record of the core. Times are nanoseconds on the run's clock (Clock), chunk
// times nanoseconds after Sent, so the live run and a re-score of its log score the
// same numbers. A load shape fills what it knows: the matrix's closed loop has no
// schedule, today's workloads no session.
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
	// (the matrix's chunkcalib.go); it counts for the count's ratio and bound, in no
	// figure.
	Calibration bool `json:"calibration,omitempty"`
	// Stream is the closed-loop cell's stream that sent the request, from 1 (0: not
	// recorded, in a log from before): a stream's requests follow one another. Index
	// is an open-loop request's place in its cell's schedule. The events log writes
	// both in the event's meta (EventMeta.Stream, Index).
	Stream int `json:"-"`
	Index  int `json:"-"`
	// Reconnects: the request was sent again at once on a new connection, the server
	// having closed the kept one before answering (not an error).
	Reconnects int `json:"reconnects,omitempty"`
	// PromptCache is [cached, prompt] tokens as the server's per-chunk timings said
	// (llama.cpp's cache_n, and cache_n + prompt_n): a request cut at the window's end
	// has no usage, but every chunk of it said what its prompt found cached.
	PromptCache *[2]int `json:"prompt_cache,omitempty"`
	// Scheduled is when a schedule (the open loop) meant the request to go, and Slot
	// when a free concurrency slot let it go: Scheduled, or later when it waited for
	// one (SlotWait). Zero where nothing scheduled it: the closed loop sends a stream's
	// next request as its last ends.
	Scheduled int64 `json:"scheduled_ns,omitempty"`
	Slot      int64 `json:"slot_ns,omitempty"`
	// InputTarget and OutputTarget are the prompt and output tokens this request
	// asked for, where they are its own (the open loop's drawn lengths).
	InputTarget  int `json:"input_target,omitempty"`
	OutputTarget int `json:"output_target,omitempty"`
	// Session and Turn place the request in a multi-turn conversation (empty for
	// single-turn workloads).
	Session string `json:"session,omitempty"`
	Turn    int    `json:"turn,omitempty"`
	// FirstAnswer is when the first answer token arrived (0: none came, or a log from
	// before): a reasoning model streams its thinking first, and FirstToken counts it.
	// ReasoningTokens are the tokens that came as reasoning (delta.reasoning_content
	// or delta.reasoning), out of Tokens.
	FirstAnswer     int64 `json:"first_answer_ns,omitempty"`
	ReasoningTokens int   `json:"reasoning_tokens,omitempty"`
	// IdealCached is the prompt tokens an exact prefix cache that never evicts would
	// hold for this request, in the server's cache blocks, where its workload says
	// (a session's turn: what repeats its earlier turns; a trace's request: its blocks
	// that earlier requests had; a pool's prompt after its first use). Nil where the
	// workload says nothing (random words).
	IdealCached *int `json:"ideal_cached,omitempty"`
}

// CachedPrompt is what the server said of the request's prompt: its tokens and how
// many of them it found cached, from its usage or else its per-chunk timings; ok is
// false when it said neither.
func (q *Request) CachedPrompt() (cached, prompt int, ok bool) {
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

// Ending is how the request ended: its outcome; records from before outcomes were
// logged say it by their other fields.
func (q *Request) Ending() openai.Outcome {
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

// Finished says the server finished the request.
func (q *Request) Finished() bool { return q.Ending() == openai.OutcomeFinished }

// OutputTokens is the request's output tokens: the server's count where it finished
// and said more than the client saw, as when it streams several tokens in a chunk and
// counts them only at the end (Ollama holding back byte-fallback tokens until they
// form a character, speculative decoding without per-chunk usage). TPOT is then
// exact, as vLLM defines it: (end − first token) / (tokens − 1). A server count below
// the client's, or one that contradicts per-chunk counts, is not taken: the open
// loop's token_counts_disagree rule judges it instead.
func (q *Request) OutputTokens() int {
	if q.Finished() && q.Usage != nil && !q.ChunkUsage && q.Usage.CompletionTokens > q.Tokens {
		return q.Usage.CompletionTokens
	}
	return q.Tokens
}

// SlotWait is how long the request waited for a free concurrency slot after its
// scheduled time; ok is false where nothing scheduled it.
func (q *Request) SlotWait() (ns int64, ok bool) {
	if q.Slot == 0 {
		return 0, false
	}
	return q.Slot - q.Scheduled, true
}

// Asked is the output tokens the request asked for: its own (OutputTarget), else the
// run's max.
func (q *Request) Asked(otherwise int) int {
	if q.OutputTarget > 0 {
		return q.OutputTarget
	}
	return otherwise
}

// EndedEarly says a finished request ended before the output it asked for (asked
// tokens): any finish but "length", or a "length" finish short of it (a slot's
// context full) by the server's own count — its usage, or its per-chunk counts. A
// "length" finish the server did not count is taken at its word: chunks of several
// tokens would make the client's count short.
func (q *Request) EndedEarly(asked int) bool {
	if !q.Finished() {
		return false
	}
	if q.FinishReason != "length" {
		return true
	}
	switch {
	case q.Usage != nil && q.Usage.CompletionTokens > 0:
		return q.Usage.CompletionTokens < asked
	case q.ChunkUsage:
		return q.Tokens < asked
	}
	return false
}

// ArrivedWhole says every token of a finished request arrived at once: its two or
// more token events span less than half the client's resolution (SameArrival) per
// event after the first. A proxy that buffers a stream and releases it whole hands
// the client every event in one read, stamped with that read's time; a server that
// streams, however fast, spreads them over its steps (the emulator at --speed 10
// writes one every ~0.25 ms, and reads that merge a few still keep that pace). A
// request cancelled at the window's end is not whole, whatever its last read brought.
func (q *Request) ArrivedWhole() bool {
	if !q.Finished() || q.Speculative || q.Events < 2 || len(q.Chunks) == 0 {
		return false
	}
	span := q.Chunks[len(q.Chunks)-1][0] - q.Chunks[0][0]
	return span < int64(q.Events-1)*int64(openai.SameArrival/2)
}

// RecordOf turns what the client saw of one request into the record, its times on c.
func RecordOf(res *openai.StreamResult, c Clock) Request {
	q := Request{
		Sent: c.NS(res.Sent), FirstToken: c.NS(res.FirstToken), End: c.NS(res.End),
		Tokens: res.Tokens, FinishReason: res.FinishReason, Outcome: res.Outcome.String(),
		Cancelled: res.Cancelled, Status: res.Status, Usage: res.Usage,
		ChunkUsage: res.ChunkUsage, Speculative: res.Speculative, NotStreamed: res.NotStreamed,
		Events: res.Events, Merged: res.Merged, Reads: res.Reads, Skipped: res.Skipped,
		Reconnects: res.Reconnects, FirstAnswer: c.NS(res.FirstAnswer), ReasoningTokens: res.ReasoningTokens,
	}
	if t := res.Timings; t != nil && t.PromptN >= 0 && t.CacheN >= 0 && t.CacheN+t.PromptN > 0 {
		q.PromptCache = &[2]int{t.CacheN, t.CacheN + t.PromptN}
	}
	if res.Err != nil {
		q.Error = res.Err.Error()
	}
	if res.RetryAfter > 0 {
		q.RetryAfterMs = Millis(res.RetryAfter)
	}
	q.Chunks = make([][3]int64, len(res.Chunks))
	for i, ch := range res.Chunks {
		q.Chunks[i] = [3]int64{c.NS(ch.At) - q.Sent, int64(ch.N), int64(max(ch.Events, 1))}
	}
	return q
}

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

// NS is t on the clock; the zero time is 0. A zero Clock reads t's Unix time.
func (c Clock) NS(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	if c.base.IsZero() {
		return t.UnixNano()
	}
	return c.baseNs + int64(t.Sub(c.base))
}

// Base is the clock's start, Unix ns (the events log's "attempt" event holds it).
func (c Clock) Base() int64 { return c.baseNs }

// Time is a time on the run's clock (ns) as a wall-clock time, for what reads the
// wall clock (a power meter); 0 is the zero time.
func Time(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}
