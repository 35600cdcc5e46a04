package openai

// A PROTOTYPE, in a test file on purpose (issue 14, phase 1): a stream-chunk decoder
// that reads only the fields StreamResult.apply uses, without reflection and without
// allocating, to size the gain before internal/openai's reader is rewritten (issue 13).
// It gives up (ok=false) on anything it does not read exactly as encoding/json would —
// escapes in finish_reason, non-integer numbers, a key that matches only
// case-insensitively, an error envelope — so a real implementation falls back to
// json.Unmarshal there and stays exact. FuzzProtoChunk holds it to encoding/json.

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"
	"time"
	"unicode/utf8"
)

// protoChoice is what apply reads of one choice.
type protoChoice struct {
	Index              int
	HasDelta           bool
	Content, Reasoning bool // delta.content, delta.reasoning_content|reasoning non-empty
	Text               bool // text non-empty (completions)
	HasFinish          bool // finish_reason is a string (not null or absent)
	Finish             string
}

// protoChunk is what apply reads of one chunk.
type protoChunk struct {
	Choices  []protoChoice
	HasUsage bool
	Usage    Usage
	Timings  []byte // a slice of the input
}

type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) eat(c byte) bool {
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}

// str returns a string's raw bytes (escapes left as they are) and whether it had any.
func (s *scanner) str() (raw []byte, escaped, ok bool) {
	if !s.eat('"') {
		return nil, false, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			raw = s.b[start:s.i]
			s.i++
			return raw, escaped, true
		case c == '\\':
			escaped = true
			if s.i+1 >= len(s.b) {
				return nil, false, false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					return nil, false, false
				}
				for _, h := range s.b[s.i+2 : s.i+6] {
					if !isHex(h) {
						return nil, false, false
					}
				}
				s.i += 6
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		default:
			s.i++
		}
	}
	return nil, false, false
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// integer reads a JSON integer that fits an int; anything else (a fraction, an
// exponent) gives up, as encoding/json would fail on it for an int field.
func (s *scanner) integer() (int, bool) {
	s.ws()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	digits := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	if s.i == digits || (s.b[digits] == '0' && s.i-digits > 1) {
		return 0, false
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return 0, false
	}
	v, err := strconv.Atoi(string(s.b[start:s.i])) // no allocation: the conversion does not escape
	return v, err == nil
}

func (s *scanner) lit(word string) bool {
	s.ws()
	if bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		s.i += len(word)
		return true
	}
	return false
}

// skip passes over any JSON value, checking its shape.
func (s *scanner) skip(depth int) bool {
	if depth > 100 {
		return false
	}
	switch s.peek() {
	case '{':
		s.i++
		if s.eat('}') {
			return true
		}
		for {
			if _, _, ok := s.str(); !ok || !s.eat(':') || !s.skip(depth+1) {
				return false
			}
			if s.eat('}') {
				return true
			}
			if !s.eat(',') {
				return false
			}
		}
	case '[':
		s.i++
		if s.eat(']') {
			return true
		}
		for {
			if !s.skip(depth + 1) {
				return false
			}
			if s.eat(']') {
				return true
			}
			if !s.eat(',') {
				return false
			}
		}
	case '"':
		_, _, ok := s.str()
		return ok
	case 't':
		return s.lit("true")
	case 'f':
		return s.lit("false")
	case 'n':
		return s.lit("null")
	default:
		return s.number()
	}
}

func (s *scanner) number() bool {
	s.ws()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	d := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	if s.i == d || (s.b[d] == '0' && s.i-d > 1) {
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		f := s.i
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
		}
		if s.i == f {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		e := s.i
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
		}
		if s.i == e {
			return false
		}
	}
	return s.i > start
}

// object calls field for every key of an object; field reads or skips the value.
func (s *scanner) object(field func(key []byte) bool) bool {
	if !s.eat('{') {
		return false
	}
	if s.eat('}') {
		return true
	}
	for {
		key, esc, ok := s.str()
		if !ok || esc || !s.eat(':') || !field(key) {
			return false
		}
		if s.eat('}') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

// known says whether key is one of the names, and gives up (by reporting a clash)
// when it matches one only case-insensitively, as encoding/json would still bind it.
func known(key []byte, names ...string) (string, bool) {
	for _, n := range names {
		if string(key) == n {
			return n, true
		}
	}
	for _, n := range names {
		if bytes.EqualFold(key, []byte(n)) {
			return "", false
		}
	}
	return "", true
}

// protoDecode reads data into c (reusing c.Choices); ok=false means: decode it with
// encoding/json instead.
func protoDecode(data []byte, c *protoChunk) (ok bool) {
	*c = protoChunk{Choices: c.Choices[:0]}
	s := &scanner{b: data}
	var seenChoices, seenUsage bool
	good := s.object(func(key []byte) bool {
		name, ok := known(key, "choices", "usage", "timings", "error", "id", "object", "created", "model", "system_fingerprint")
		if !ok {
			return false
		}
		switch name {
		case "choices":
			if seenChoices {
				return false
			}
			seenChoices = true
			return s.choices(c)
		case "usage":
			if seenUsage {
				return false
			}
			seenUsage = true
			if s.lit("null") {
				return true
			}
			c.HasUsage = true
			return s.usage(c)
		case "timings":
			start := s.i
			if !s.skip(0) {
				return false
			}
			v := bytes.TrimSpace(data[start:s.i])
			if string(v) == "null" {
				c.Timings = nil
			} else {
				c.Timings = v
			}
			return true
		case "error":
			return false // an error envelope: the slow path says what it was
		case "id", "object", "model", "system_fingerprint":
			if s.lit("null") {
				return true
			}
			_, _, ok := s.str()
			return ok
		case "created":
			if s.lit("null") {
				return true
			}
			_, ok := s.integer()
			return ok
		}
		return s.skip(0)
	})
	if !good {
		return false
	}
	s.ws()
	return s.i == len(s.b) && (len(c.Choices) > 0 || c.HasUsage)
}

func (s *scanner) choices(c *protoChunk) bool {
	c.Choices = c.Choices[:0]
	if s.lit("null") {
		return true
	}
	if !s.eat('[') {
		return false
	}
	if s.eat(']') {
		return true
	}
	for {
		var ch protoChoice
		if !s.choice(&ch) {
			return false
		}
		c.Choices = append(c.Choices, ch)
		if s.eat(']') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

func (s *scanner) choice(ch *protoChoice) bool {
	// encoding/json merges a repeated key into what it already decoded; the prototype
	// gives up on repeats instead of imitating that.
	var seenDelta bool
	var content, reasoningContent, reasoning bool
	ok := s.object(func(key []byte) bool {
		name, ok := known(key, "index", "delta", "text", "finish_reason", "message", "logprobs", "stop_reason")
		if !ok {
			return false
		}
		switch name {
		case "index":
			v, ok := s.integer()
			ch.Index = v
			return ok
		case "delta":
			if seenDelta {
				return false
			}
			seenDelta = true
			if s.lit("null") {
				return true
			}
			ch.HasDelta = true
			return s.object(func(key []byte) bool {
				name, ok := known(key, "content", "reasoning_content", "reasoning", "role")
				if !ok {
					return false
				}
				if name == "" {
					return s.skip(0)
				}
				if s.lit("null") {
					return true // a null leaves encoding/json's field as it was
				}
				raw, _, ok := s.str()
				switch name {
				case "content":
					content = len(raw) > 0
				case "reasoning_content":
					reasoningContent = len(raw) > 0
				case "reasoning":
					reasoning = len(raw) > 0
				}
				return ok
			})
		case "text":
			if s.lit("null") {
				return true
			}
			raw, _, ok := s.str()
			ch.Text = len(raw) > 0
			return ok
		case "finish_reason":
			if s.lit("null") {
				ch.HasFinish, ch.Finish = false, ""
				return true
			}
			raw, esc, ok := s.str()
			if !ok || esc || !utf8.Valid(raw) {
				return false // encoding/json would unescape or replace bytes
			}
			ch.HasFinish, ch.Finish = true, internFinish(raw)
			return true
		case "message":
			return false // not in a stream
		}
		return s.skip(0)
	})
	ch.Content, ch.Reasoning = content, reasoningContent || reasoning
	return ok
}

// internFinish returns the usual finish reasons without allocating.
func internFinish(raw []byte) string {
	switch string(raw) {
	case "length":
		return "length"
	case "stop":
		return "stop"
	case "":
		return ""
	}
	return string(raw)
}

func (s *scanner) usage(c *protoChunk) bool {
	return s.object(func(key []byte) bool {
		name, ok := known(key, "prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details")
		if !ok {
			return false
		}
		var v int
		switch name {
		case "prompt_tokens", "completion_tokens", "total_tokens":
			if s.lit("null") {
				return true
			}
			v, ok = s.integer()
		case "prompt_tokens_details":
			return false // rare in a stream: let encoding/json read it
		default:
			return s.skip(0)
		}
		switch name {
		case "prompt_tokens":
			c.Usage.PromptTokens = v
		case "completion_tokens":
			c.Usage.CompletionTokens = v
		case "total_tokens":
			c.Usage.TotalTokens = v
		}
		return ok
	})
}

// viaJSON is what apply reads of a chunk through encoding/json, in protoChunk's terms.
func viaJSON(data []byte) (protoChunk, bool) {
	var ch Chunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return protoChunk{}, false
	}
	var c protoChunk
	for _, x := range ch.Choices {
		p := protoChoice{Index: x.Index, Text: x.Text != ""}
		if x.Delta != nil {
			p.HasDelta = true
			p.Content = x.Delta.Content != ""
			p.Reasoning = x.Delta.ReasoningContent != "" || x.Delta.Reasoning != ""
		}
		if x.FinishReason != nil {
			p.HasFinish, p.Finish = true, *x.FinishReason
		}
		c.Choices = append(c.Choices, p)
	}
	if ch.Usage != nil {
		c.HasUsage, c.Usage = true, *ch.Usage
	}
	if len(ch.Timings) > 0 && string(ch.Timings) != "null" {
		c.Timings = ch.Timings
	}
	return c, len(c.Choices) > 0 || c.HasUsage
}

var protoSamples = []string{
	// vLLM with continuous_usage_stats (what llmbench asks vLLM and SGLang for).
	`{"id":"chatcmpl-0f1e2d3c4b5a69788796a5b4c3d2e1f0","object":"chat.completion.chunk","created":1718000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" tok"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":16,"total_tokens":1040,"completion_tokens":1024}}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" end"},"logprobs":null,"finish_reason":"length","stop_reason":null}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":16,"total_tokens":2064,"completion_tokens":2048}}`,
	// completions, reasoning, llama.cpp timings, odd spacing and escapes.
	`{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" a\"b","logprobs":null,"finish_reason":null}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning_content":"think"}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning":"think","content":null}}]}`,
	` { "choices" : [ { "index" : 1 , "delta" : { "content" : "\u00e9" } } , {"index":0,"delta":{}} ] , "timings" : {"cache_n":3,"prompt_n":[1,2.5e3]} } `,
	`{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}],"usage":null,"system_fingerprint":"b1-abc"}`,
}

func TestProtoChunkAgreesWithEncodingJSON(t *testing.T) {
	var c protoChunk
	for _, s := range protoSamples {
		want, wantOK := viaJSON([]byte(s))
		if !protoDecode([]byte(s), &c) {
			t.Errorf("the prototype gave up on %s", s)
			continue
		}
		if !wantOK || !protoEqual(c, want) {
			t.Errorf("%s:\nprototype %+v\njson      %+v", s, c, want)
		}
	}
}

func protoEqual(a, b protoChunk) bool {
	if len(a.Choices) != len(b.Choices) || a.HasUsage != b.HasUsage || a.Usage != b.Usage || !bytes.Equal(a.Timings, b.Timings) {
		return false
	}
	for i := range a.Choices {
		if a.Choices[i] != b.Choices[i] {
			return false
		}
	}
	return true
}

// Whatever the prototype accepts, encoding/json must read the same way.
func FuzzProtoChunk(f *testing.F) {
	for _, s := range protoSamples {
		f.Add([]byte(s))
	}
	// Found by the fuzzer: invalid UTF-8 in finish_reason, which encoding/json replaces.
	f.Add([]byte("{\"choices\":[{\"finish_reason\":\"\xff\"}]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c protoChunk
		if !protoDecode(data, &c) {
			return
		}
		want, ok := viaJSON(data)
		if !ok || !protoEqual(c, want) {
			t.Fatalf("%q:\nprototype %+v\njson      %+v (ok %v)", data, c, want, ok)
		}
	})
}

// BenchmarkChunkDecode compares, per vLLM continuous-usage chunk, what apply pays today
// (json.Unmarshal into Chunk) with the prototype.
func BenchmarkChunkDecode(b *testing.B) {
	data := []byte(protoSamples[0])
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var ch Chunk
			if err := json.Unmarshal(data, &ch); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("prototype", func(b *testing.B) {
		b.ReportAllocs()
		var c protoChunk
		for b.Loop() {
			if !protoDecode(data, &c) {
				b.Fatal("gave up")
			}
		}
	})
}

// BenchmarkApplyEvent is the whole of today's per-event work after the SSE reader:
// apply with the runner's kind of observer.
func BenchmarkApplyEvent(b *testing.B) {
	data := []byte(protoSamples[0])
	b.ReportAllocs()
	r := &StreamResult{}
	obs := nopObserver{}
	for b.Loop() {
		if len(r.Chunks) > 8192 {
			r.Chunks, r.Tokens = r.Chunks[:0], 0
		}
		if err := r.apply(Event{Data: data}, obs, false); err != nil {
			b.Fatal(err)
		}
	}
}

type nopObserver struct{}

func (nopObserver) FirstToken(time.Time)  {}
func (nopObserver) Tokens(time.Time, int) {}
