package openai

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
)

func readAll(t *testing.T, r io.Reader) ([]string, error) {
	t.Helper()
	s := NewSSEReader(r)
	var out []string
	for {
		ev, err := s.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		out = append(out, ev.Type+"|"+string(ev.Data))
	}
}

func TestSSEReader(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // far past bufio.Scanner's 64 KB line limit
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"plain", "data: a\n\ndata: b\n\n", []string{"|a", "|b"}},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"|a", "|b"}},
		{"comments and keep-alives", ": ping\n\n: keep-alive\ndata: a\n\n", []string{"|a"}},
		{"event lines", "event: message\ndata: a\n\nevent: error\ndata: boom\n\n", []string{"message|a", "error|boom"}},
		{"multi-line data", "data: a\ndata: b\n\n", []string{"|a\nb"}},
		{"no space after colon", "data:a\n\n", []string{"|a"}},
		{"id and retry ignored", "id: 7\nretry: 100\ndata: a\n\n", []string{"|a"}},
		{"very long line", "data: " + long + "\n\n", []string{"|" + long}},
		{"last event without blank line", "data: a\n\ndata: b\n", []string{"|a", "|b"}},
		{"done", "data: {}\n\ndata: [DONE]\n\n", []string{"|{}", "|[DONE]"}},
		// An event whose data buffer is empty is not dispatched (HTML living standard,
		// "dispatch the event"): gateways send such keep-alives between tokens.
		{"ping without data", "event: ping\n\ndata: a\n\n", []string{"|a"}},
		{"empty data line", "data:\n\ndata: a\n\n", []string{"|a"}},
		{"ping with data", "event: ping\ndata: {}\n\n", []string{"ping|{}"}},
		{"unknown fields", "foo: bar\ndata: a\n\n", []string{"|a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range []io.Reader{
				strings.NewReader(tt.in),
				iotest.OneByteReader(strings.NewReader(tt.in)), // every event split across reads
				iotest.HalfReader(strings.NewReader(tt.in)),
			} {
				got, err := readAll(t, r)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestSSEReaderBrokenStream(t *testing.T) {
	_, err := readAll(t, strings.NewReader("data: a\n\ndata: {\"half"))
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want io.ErrUnexpectedEOF for a stream cut mid-event", err)
	}
}

func TestApplyChunks(t *testing.T) {
	stream := strings.Join([]string{
		`data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
		`data: {"choices":[{"index":0,"delta":{"reasoning_content":"think"},"finish_reason":null}]}`,
		`data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}`,
		`data: {"choices":[{"index":0,"delta":{"content":" there"},"finish_reason":"length"}]}`,
		`data: {"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13,"prompt_tokens_details":{"cached_tokens":8}}}`,
		`data: [DONE]`, ``,
	}, "\n\n")
	s := NewSSEReader(strings.NewReader(stream))
	res := &StreamResult{}
	t0 := time.Now()
	for {
		ev, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		ev.At = t0.Add(time.Duration(len(res.Chunks)) * time.Second) // events apart in time
		if err := res.apply(ev, nil, false); err != nil {
			if errors.Is(err, errDone) {
				break
			}
			t.Fatal(err)
		}
	}
	if res.Tokens != 3 || len(res.Chunks) != 3 {
		t.Errorf("tokens = %d in %d chunks, want 3 in 3 (role-only chunk is no token, reasoning is)", res.Tokens, len(res.Chunks))
	}
	if res.ReasoningTokens != 1 || res.AnswerTokens() != 2 || res.FinishReason != "length" {
		t.Errorf("reasoning %d, answer %d, finish %q: want 1, 2, length", res.ReasoningTokens, res.AnswerTokens(), res.FinishReason)
	}
	if want := t0.Add(time.Second); !res.FirstAnswer.Equal(want) || !res.FirstToken.Equal(t0) {
		t.Errorf("first token %v, first answer %v: want the reasoning chunk's and the first content chunk's", res.FirstToken.Sub(t0), res.FirstAnswer.Sub(t0))
	}
	if res.Usage == nil || *res.Usage.PromptTokensDetails.CachedTokens != 8 {
		t.Errorf("usage = %+v", res.Usage)
	}
}

func TestApplyContinuousUsage(t *testing.T) {
	res := &StreamResult{}
	for _, d := range []string{
		`{"choices":[{"index":0,"delta":{"content":"a b"}}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`,
		`{"choices":[{"index":0,"delta":{"content":"c d e"}}],"usage":{"prompt_tokens":5,"completion_tokens":5,"total_tokens":10}}`,
	} {
		if err := res.apply(Event{Data: []byte(d), At: time.Now().Add(time.Duration(len(res.Chunks)) * time.Second)}, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	if !res.ChunkUsage {
		t.Error("per-chunk usage not recognised")
	}
	if res.Tokens != 5 || res.Chunks[0].N != 2 || res.Chunks[1].N != 3 {
		t.Errorf("chunks %+v tokens %d: want 2 then 3 from the running usage", res.Chunks, res.Tokens)
	}
}

func FuzzSSEReader(f *testing.F) {
	for _, seed := range []string{
		"data: a\n\n", "data: a\r\n\r\n", ": c\nevent: e\ndata: x\ndata: y\n\n", "data: [DONE]\n\n",
		"data:", "\r\n\r\n", "data: {\"choices\":[]}\n\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		// Whole or split one byte at a time, the reader must agree and never panic.
		a, errA := readAll(t, strings.NewReader(in))
		b, errB := readAll(t, iotest.OneByteReader(strings.NewReader(in)))
		if (errA == nil) != (errB == nil) || !cmp.Equal(a, b) {
			t.Fatalf("whole: %q %v; split: %q %v", a, errA, b, errB)
		}
		for _, ev := range a {
			res := &StreamResult{}
			_ = res.apply(Event{Data: []byte(ev)}, nil, false)
		}
	})
}
