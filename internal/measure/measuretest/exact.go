package measuretest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/openai"
)

// What the load shapes' exact-timing test servers share: the closed loop's
// (internal/bench: continuous batching, a prefix cache) and the open loop's
// (internal/openloop: a first-come-first-served queue whose every latency a test
// computes by hand) differ in when a request starts and how long its first token
// takes, which is what each tests; they read a request, count its prompt and write
// its stream on an absolute clock the same way, here.

// ChatOverhead is the tokens the test servers' tokenizer adds to a chat prompt (its
// template).
const ChatOverhead = 3

// Request is what an exact-timing test server reads of a completion request.
type Request struct {
	Messages      []openai.Message      `json:"messages"`
	Prompt        string                `json:"prompt"`
	MaxTokens     int                   `json:"max_tokens"`
	Stream        bool                  `json:"stream"`
	StreamOptions *openai.StreamOptions `json:"stream_options"`
}

// ReadRequest decodes the request's body; a body that does not decode is answered
// 400 and ok is false.
func ReadRequest(w http.ResponseWriter, r *http.Request) (req Request, ok bool) {
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return req, false
	}
	return req, true
}

// Chat says whether it came to the chat route.
func (q Request) Chat() bool { return q.Messages != nil }

// Text is the prompt: the completion's, or the chat's first message.
func (q Request) Text() string {
	if q.Chat() {
		return q.Messages[0].Content
	}
	return q.Prompt
}

// PromptTokens counts the prompt as the servers' tokenizer does: whitespace-separated
// words, plus ChatOverhead for a chat.
func (q Request) PromptTokens() int {
	n := len(strings.Fields(q.Text()))
	if q.Chat() {
		n += ChatOverhead
	}
	return n
}

// Usage says which usage the client asked to stream: a last chunk of totals, and
// usage in every chunk (vLLM's continuous_usage_stats).
func (q Request) Usage() (final, continuous bool) {
	final = q.StreamOptions != nil && q.StreamOptions.IncludeUsage
	return final, final && q.StreamOptions.ContinuousUsageStats
}

// Mux routes a test server: POST /tokenize counts a prompt with its tokenizer, and
// both completion routes go to complete.
func Mux(complete http.HandlerFunc) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /tokenize", func(w http.ResponseWriter, r *http.Request) {
		var req openai.TokenizeRequest
		json.NewDecoder(r.Body).Decode(&req)
		q := Request{Messages: req.Messages, Prompt: req.Prompt}
		json.NewEncoder(w).Encode(openai.TokenizeResponse{Count: q.PromptTokens()})
	})
	mux.HandleFunc("POST /v1/chat/completions", complete)
	mux.HandleFunc("POST /v1/completions", complete)
	return mux
}

// Stream is one streamed answer of an exact-timing test server: MaxTokens tokens,
// ChunkTokens to a chunk, the first due when Serve is told and one every Interval
// after it on an absolute clock, so the rate holds on a loaded machine.
type Stream struct {
	Chat                    bool
	PromptTokens, MaxTokens int
	ChunkTokens             int // tokens per chunk; 0 is 1
	Interval                time.Duration
	// Usage and Continuous stream usage: totals in a last chunk (with Cached tokens
	// of the prompt), and in every chunk.
	Usage, Continuous bool
	Cached            int
	// NoBurst makes a server that fell behind (the machine stalled it) take up the
	// schedule from where it is, never catching up in a burst of back-to-back writes
	// no engine would send; without it every token keeps its due time.
	NoBurst bool
	// Messy writes as some servers do: a keep-alive comment and an event: line before
	// every event, CRLF line ends, each event split in two writes.
	Messy bool
	// Cut, when set, is asked before each chunk with the tokens sent so far whether
	// the connection dies there (a dropped stream).
	Cut func(produced int) bool
	// Flushed, when set, is told of each chunk: its k tokens, when its write began
	// and when it was flushed (the machine can deschedule the server in between, so
	// a client may see the token before the flush time: it was on its way from began).
	Flushed func(k int, began, flushed time.Time)
}

// Serve writes the stream with its first token due at first: a chat's role chunk at
// once, the tokens on schedule, the usage asked for, [DONE]. It returns early when
// the request's context ends or Cut cuts.
func (s Stream) Serve(w http.ResponseWriter, r *http.Request, first time.Time) {
	w.Header().Set("Content-Type", "text/event-stream")
	send := s.sender(w)
	if s.Chat {
		send(`{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`)
	}
	chunk := max(s.ChunkTokens, 1)
	t0, produced := first, 0
	var prev time.Time
	for produced < s.MaxTokens {
		k := min(chunk, s.MaxTokens-produced)
		due := t0.Add(time.Duration(produced+k-1) * s.Interval)
		if earliest := prev.Add(time.Duration(k) * s.Interval / 2); s.NoBurst && !prev.IsZero() && due.Before(earliest) {
			t0 = t0.Add(earliest.Sub(due))
			due = earliest
		}
		select {
		case <-time.After(time.Until(due)):
		case <-r.Context().Done():
			return
		}
		if s.Cut != nil && s.Cut(produced) {
			hangUp(w)
			return
		}
		produced += k
		began := time.Now()
		send(s.tokens(k, produced))
		prev = time.Now()
		if s.Flushed != nil {
			s.Flushed(k, began, prev)
		}
	}
	if s.Usage {
		send(fmt.Sprintf(`{"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d}}}`,
			s.PromptTokens, produced, s.PromptTokens+produced, s.Cached))
	}
	send("[DONE]")
}

// tokens is the chunk of k tokens that brings the answer to produced.
func (s Stream) tokens(k, produced int) string {
	finish := "null"
	if produced == s.MaxTokens {
		finish = `"length"`
	}
	words := strings.TrimSpace(strings.Repeat(" tok", k))
	u := ""
	if s.Continuous {
		u = fmt.Sprintf(`,"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}`, s.PromptTokens, produced, s.PromptTokens+produced)
	}
	if s.Chat {
		return fmt.Sprintf(`{"choices":[{"index":0,"delta":{"content":%q},"finish_reason":%s}]%s}`, words, finish, u)
	}
	return fmt.Sprintf(`{"choices":[{"index":0,"text":%q,"finish_reason":%s}]%s}`, words, finish, u)
}

// sender writes and flushes one SSE event.
func (s Stream) sender(w http.ResponseWriter) func(payload string) {
	fl := w.(http.Flusher)
	eol := "\n"
	if s.Messy {
		eol = "\r\n"
	}
	return func(payload string) {
		if s.Messy {
			fmt.Fprintf(w, ": keep-alive%s", eol)
			fmt.Fprintf(w, "event: message%s", eol)
			half := len(payload) / 2
			fmt.Fprintf(w, "data: %s", payload[:half])
			fl.Flush()
			fmt.Fprintf(w, "%s%s%s", payload[half:], eol, eol)
		} else {
			fmt.Fprintf(w, "data: %s%s%s", payload, eol, eol)
		}
		fl.Flush()
	}
}

// hangUp kills the connection mid-response.
func hangUp(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
		}
	}
}
