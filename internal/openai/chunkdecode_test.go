package openai

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/replay"
)

// chunkSamples are chunk shapes beside the replay fixtures': what llmbench asks vLLM
// for, completions, reasoning, logprobs, odd spacing and escapes, and the error forms
// servers use (which the fast decoder leaves to encoding/json).
var chunkSamples = []string{
	`{"id":"chatcmpl-0f1e2d3c4b5a69788796a5b4c3d2e1f0","object":"chat.completion.chunk","created":1718000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" tok"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":16,"total_tokens":1040,"completion_tokens":1024}}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" end"},"logprobs":null,"finish_reason":"length","stop_reason":null}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":16,"total_tokens":2064,"completion_tokens":2048}}`,
	`{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" a\"b","logprobs":null,"finish_reason":null}]}`,
	`{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" a","logprobs":{"text_offset":[0,2],"token_logprobs":[-0.1,-2.5e-3],"tokens":[" a"," b"],"top_logprobs":null},"finish_reason":null}]}`,
	`{"choices":[{"index":0,"delta":{"content":"x"},"logprobs":{"content":[{"token":"x","logprob":-0.01,"bytes":[120],"top_logprobs":[]},{"token":"y","logprob":-1,"bytes":null,"top_logprobs":[]}]}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning_content":"think"}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning":"think","content":null}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning_content":"a\nb","reasoning":"\u00e9\ud800"}}]}`,
	` { "choices" : [ { "index" : 1 , "delta" : { "content" : "\u00e9" } } , {"index":0,"delta":{}} ] , "timings" : {"cache_n":3,"prompt_n":[1,2.5e3]} } `,
	`{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}],"usage":null,"system_fingerprint":"b1-abc"}`,
	"{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"caf\xc3\"},\"finish_reason\":null}]}",
	`{"error":null,"choices":[{"index":0,"delta":{"content":"x"}}]}`,
	`{}`,
	`{"choices":[{"index":0,"delta":{"content":"x"}}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6,"prompt_tokens_details":{"cached_tokens":4}}}`,
	`{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6,"prompt_tokens_details":{"cached_tokens":null}}}`,
	`{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6,"prompt_tokens_details":{}}}`,
	`{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6,"prompt_tokens_details":null}}`,
}

// slowSamples are chunks the fast decoder leaves to encoding/json: a key that matches a field only case-insensitively, a field given twice,
// numbers that are not plain integers, the error forms.
var slowSamples = []string{
	`{"choices":[{"index":0,"delta":{"content":"x"}}],"Usage":{"completion_tokens":9}}`,
	`{"choices":[{"index":0,"delta":{"content":"x"}}],"choices":[]}`,
	`{"choices":[{"index":0.0,"delta":{"content":"x"}}]}`,
	`{"created":1e3,"choices":[{"index":0,"delta":{"content":"x"}}]}`,
	`{"error":{"message":"the engine died","code":500}}`,
	`{"error":"Input validation error: max_new_tokens must be > 0","error_type":"validation"}`,
	`{"object":"error","message":"out of memory","type":"InternalServerError","code":500}`,
}

var (
	replayOnce   sync.Once
	replayEvents []string
	replayErr    error
)

// replayChunks are the data of every event of every engine fixture in
// internal/replay/testdata, streamed by the replay server with and without the
// per-chunk counts each engine can give.
func replayChunks(t testing.TB) []string {
	replayOnce.Do(func() {
		for _, name := range replay.ShapeNames() {
			for _, body := range []string{
				`{"model":"m","messages":[{"role":"user","content":"a b c"}],"max_tokens":7,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true},"timings_per_token":true}`,
				`{"model":"m","messages":[{"role":"user","content":"a b c"}],"max_tokens":5,"stream":true}`,
			} {
				evs, err := replayStream(name, body)
				if err != nil {
					replayErr = err
					return
				}
				replayEvents = append(replayEvents, evs...)
			}
		}
	})
	if replayErr != nil {
		t.Fatal(replayErr)
	}
	return replayEvents
}

func replayStream(shape, body string) ([]string, error) {
	s, err := replay.Start(replay.Config{Shape: shape, Step: time.Millisecond, WarmTTFT: time.Millisecond})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && data != "[DONE]" {
			out = append(out, data)
		}
	}
	return out, sc.Err()
}

// viewText is a view with its texts unescaped, for comparing the two decoders.
type viewText struct {
	Choices  []choiceText
	HasUsage bool
	Usage    Usage
	Details  struct {
		Present, HasCached bool
		Cached             int
	}
	Timings string
}

type choiceText struct {
	Index                                    int
	HasDelta                                 bool
	Content, ReasoningContent, Reasoning, Tx string
	HasFinish                                bool
	Finish                                   string
	Logprobs                                 int
}

func textOf(v *chunkView) viewText {
	out := viewText{HasUsage: v.hasUsage, Usage: v.usage, Timings: string(v.timings)}
	out.Details.Present, out.Details.HasCached, out.Details.Cached = v.details.present, v.details.hasCached, v.details.cached
	for _, c := range v.choices {
		out.Choices = append(out.Choices, choiceText{
			Index: c.index, HasDelta: c.hasDelta,
			Content: string(c.content.appendTo(nil)), ReasoningContent: string(c.reasoningContent.appendTo(nil)),
			Reasoning: string(c.reasoning.appendTo(nil)), Tx: string(c.text.appendTo(nil)),
			HasFinish: c.hasFinish, Finish: c.finish, Logprobs: c.logprobs,
		})
	}
	return out
}

// viaJSON is what encoding/json reads of data, as a view; ok is false where apply
// would not count the chunk's tokens (not JSON of Chunk's shape, or an error form).
func viaJSON(data []byte) (viewText, bool) {
	var ch Chunk
	if json.Unmarshal(data, &ch) != nil {
		return viewText{}, false
	}
	if _, isErr := ch.ErrorMessage(); isErr {
		return viewText{}, false
	}
	var v chunkView
	viewOf(&ch, &v)
	return textOf(&v), true
}

// checkFast fails when the fast decoder reads data and encoding/json reads it
// differently, or does not read it; it reports whether the fast decoder read it.
func checkFast(t *testing.T, data []byte) bool {
	t.Helper()
	var v chunkView
	if !decodeChunk(data, &v) {
		return false
	}
	want, ok := viaJSON(data)
	if !ok {
		t.Fatalf("the fast decoder read %q, which encoding/json refuses or reads as an error", data)
	}
	if diff := cmp.Diff(want, textOf(&v)); diff != "" {
		t.Fatalf("%q: fast decoder vs encoding/json (-json +fast):\n%s", data, diff)
	}
	return true
}

// TestChunkDecodeAgreesWithEncodingJSON: on every engine fixture's chunks and the
// samples, whatever the fast decoder reads, encoding/json reads the same; and it reads
// every token chunk the fixtures send (else the fast path would be no faster).
func TestChunkDecodeAgreesWithEncodingJSON(t *testing.T) {
	fixtures := replayChunks(t)
	for _, s := range append(fixtures, chunkSamples...) {
		if !checkFast(t, []byte(s)) {
			t.Errorf("the fast decoder gave up on a chunk it should read: %s", s)
		}
	}
	for _, s := range slowSamples {
		if checkFast(t, []byte(s)) {
			t.Errorf("the fast decoder read a chunk it should leave to encoding/json: %s", s)
		}
	}
	t.Logf("%d fixture chunks, %d samples, %d left to encoding/json", len(fixtures), len(chunkSamples), len(slowSamples))
}

// FuzzChunkDecode: whatever the fast decoder accepts, encoding/json reads the same
// way. Seeded with every engine fixture's chunks.
func FuzzChunkDecode(f *testing.F) {
	for _, s := range append(append(replayChunks(f), chunkSamples...), slowSamples...) {
		f.Add([]byte(s))
	}
	f.Add([]byte("{\"choices\":[{\"finish_reason\":\"\xff\"}]}"))
	f.Add([]byte(`{"choices":[{"index":0,"delta":{"content":"x"}}],"choiceſ":[]}`))
	f.Add([]byte(`{"choices":[{"index":-0,"delta":{"Content":"x"}}]}`))
	f.Add([]byte(`{"choices":[{"index":0,"delta":{"content":"x"},"logprobs":{"content":[1,2],"Tokens":[3]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFast(t, data)
	})
}

// FuzzChunkHead: a chunk read after another, resuming after the head they share,
// reads as it does alone.
func FuzzChunkHead(f *testing.F) {
	fixtures := replayChunks(f)
	for i := 1; i < len(fixtures); i++ {
		f.Add([]byte(fixtures[i-1]), []byte(fixtures[i]))
	}
	f.Add([]byte(chunkSamples[0]), []byte(strings.Replace(chunkSamples[0], `"model":"meta`, `"model":"Meta`, 1)))
	f.Add([]byte(chunkSamples[0]), []byte(strings.Replace(chunkSamples[0], `"choices"`, `"Choices"`, 1)))
	f.Fuzz(func(t *testing.T, first, second []byte) {
		var m headMemo
		var v, alone chunkView
		decodeChunkAfter(first, &v, &m)
		ok := decodeChunkAfter(second, &v, &m)
		okAlone := decodeChunk(second, &alone)
		if ok != okAlone {
			t.Fatalf("%q after %q: read %v, alone %v (head %q)", second, first, ok, okAlone, m.head)
		}
		if ok {
			if diff := cmp.Diff(textOf(&alone), textOf(&v)); diff != "" {
				t.Fatalf("%q after %q (-alone +after):\n%s", second, first, diff)
			}
		}
	})
}

// FuzzApply: a stream of the fuzzed event twice, after a token chunk, gives the same
// result through the fast decoder and through encoding/json alone: counts, arrivals,
// text, finish, usage, timings, what was skipped and what failed.
func FuzzApply(f *testing.F) {
	for _, s := range append(append(replayChunks(f), chunkSamples...), slowSamples...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		first := []byte(chunkSamples[0])
		fast, slow := &StreamResult{}, &StreamResult{jsonOnly: true}
		at := time.Unix(1000, 0)
		for i, ev := range [][]byte{first, data, data} {
			e := Event{Data: ev, At: at.Add(time.Duration(i) * time.Millisecond)}
			errFast, errSlow := fast.apply(e, nil, true), slow.apply(e, nil, true)
			if (errFast == nil) != (errSlow == nil) || errFast != nil && errFast.Error() != errSlow.Error() {
				t.Fatalf("event %d %q: error %v (fast) vs %v (encoding/json)", i, ev, errFast, errSlow)
			}
		}
		if diff := cmp.Diff(resultOf(slow), resultOf(fast)); diff != "" {
			t.Fatalf("%q: (-encoding/json +fast):\n%s", data, diff)
		}
	})
}

type applied struct {
	Chunks                []TokenChunk
	Tokens, Reasoning     int
	FirstAnswer           time.Time
	FinishReason          string
	Usage                 *Usage
	Timings               *Timings
	ChunkUsage, Spec      bool
	Events, Merged, Skips int
	SkipSample, Text      string
}

func resultOf(r *StreamResult) applied {
	return applied{Chunks: r.Chunks, Tokens: r.Tokens, Reasoning: r.ReasoningTokens, FirstAnswer: r.FirstAnswer, FinishReason: r.FinishReason,
		Usage: r.Usage, Timings: r.Timings, ChunkUsage: r.ChunkUsage, Spec: r.Speculative,
		Events: r.Events, Merged: r.Merged, Skips: r.Skipped, SkipSample: r.SkipSample, Text: string(r.Text)}
}

// TestApplyAgreesOnFixtures: every fixture's whole stream, kept text included, reads
// the same through both decoders.
func TestApplyAgreesOnFixtures(t *testing.T) {
	events := replayChunks(t)
	fast, slow := &StreamResult{}, &StreamResult{jsonOnly: true}
	at := time.Unix(1000, 0)
	for i, ev := range events {
		e := Event{Data: []byte(ev), At: at.Add(time.Duration(i) * time.Millisecond)}
		if errF, errS := fast.apply(e, nil, true), slow.apply(e, nil, true); (errF == nil) != (errS == nil) {
			t.Fatalf("event %q: %v vs %v", ev, errF, errS)
		}
	}
	if diff := cmp.Diff(resultOf(slow), resultOf(fast)); diff != "" {
		t.Fatalf("(-encoding/json +fast):\n%s", diff)
	}
	if fast.Tokens == 0 || len(fast.Text) == 0 {
		t.Fatalf("the fixtures' streams showed %d tokens, %d bytes of text", fast.Tokens, len(fast.Text))
	}
}

// BenchmarkChunkDecode compares, per vLLM continuous-usage chunk, encoding/json into
// Chunk with the fast decoder.
func BenchmarkChunkDecode(b *testing.B) {
	data := []byte(chunkSamples[0])
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var ch Chunk
			if err := json.Unmarshal(data, &ch); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		var v chunkView
		for b.Loop() {
			if !decodeChunk(data, &v) {
				b.Fatal("gave up")
			}
		}
	})
	b.Run("fast-same-head", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		var v chunkView
		var m headMemo
		for b.Loop() {
			if !decodeChunkAfter(data, &v, &m) {
				b.Fatal("gave up")
			}
		}
	})
}

// BenchmarkApplyEvent is the whole of the per-event work after the SSE reader: apply
// with the runner's kind of observer, on a vLLM continuous-usage chunk and on a
// reasoning chunk (a reasoning model's stream is mostly those).
func BenchmarkApplyEvent(b *testing.B) {
	data := []byte(chunkSamples[0])
	for _, jsonOnly := range []bool{true, false} {
		name := "fast"
		if jsonOnly {
			name = "encoding-json"
		}
		b.Run(name, func(b *testing.B) { benchApply(b, data, jsonOnly) })
	}
	b.Run("fast-reasoning", func(b *testing.B) {
		benchApply(b, []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1718000000,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"reasoning_content":" think"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":16,"total_tokens":1040,"completion_tokens":1024}}`), false)
	})
}

func benchApply(b *testing.B, data []byte, jsonOnly bool) {
	b.ReportAllocs()
	r := &StreamResult{jsonOnly: jsonOnly}
	obs := nopObserver{}
	for b.Loop() {
		if len(r.Chunks) > 8192 {
			r.Chunks = r.Chunks[:0]
		}
		r.Tokens = 1023 // the chunk's running count says 1024: one token
		if err := r.apply(Event{Data: data}, obs, false); err != nil {
			b.Fatal(err)
		}
	}
}

type nopObserver struct{}

func (nopObserver) FirstToken(time.Time)  {}
func (nopObserver) Tokens(time.Time, int) {}
