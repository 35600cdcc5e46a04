package zerostream

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"strconv"
	"time"
)

// stream is one response being written: its chunks are rendered into buf and written
// in one HTTP chunk per step.
type stream struct {
	c            net.Conn
	chat         bool
	max, sent    int
	usage        bool // a final usage chunk
	continuous   bool // usage in every token chunk
	promptTokens int
	last         int64 // the step this stream was last written at
	done         chan error

	prefix []byte // `data: {"id":...,"choices":[{"index":0,`
	buf    []byte
}

// The chunks follow vLLM's ChatCompletionStreamResponse / CompletionStreamResponse
// (vllm/entrypoints/openai/protocol.py, serialized with exclude_unset): id, object,
// created, model, choices[{index, delta|text, logprobs, finish_reason}], and with
// continuous_usage_stats a usage {prompt_tokens, total_tokens, completion_tokens} in
// every chunk; the first chat chunk carries only the role.
func newStream(c net.Conn, cfg Config, chat bool, max int, usage, continuous bool) *stream {
	st := &stream{c: c, chat: chat, max: max, usage: usage, continuous: continuous, promptTokens: cfg.PromptTokens, done: make(chan error, 1)}
	var id [16]byte
	_, _ = rand.Read(id[:])
	object, idPrefix := "text_completion", "cmpl-"
	if chat {
		object, idPrefix = "chat.completion.chunk", "chatcmpl-"
	}
	p := []byte(`data: {"id":"` + idPrefix + hex.EncodeToString(id[:]) + `","object":"` + object + `","created":`)
	p = strconv.AppendInt(p, time.Now().Unix(), 10)
	p = append(p, `,"model":`...)
	p = strconv.AppendQuote(p, cfg.Model)
	p = append(p, `,"choices":[`...)
	st.prefix = p
	return st
}

func (st *stream) finished() bool { return st.sent >= st.max }

// write sends the next k tokens (fewer at the end of the response) as one HTTP chunk;
// it returns how many token chunks it wrote.
func (st *stream) write(k int) (int, error) {
	b := st.buf[:0]
	b = append(b, "00000000\r\n"...) // chunk size, filled in below
	start := len(b)
	if st.chat && st.sent == 0 {
		b = append(b, st.prefix...)
		b = append(b, `{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]`...)
		if st.continuous {
			b = st.appendUsage(b, 0)
		}
		b = append(b, "}\n\n"...)
	}
	n := 0
	for ; n < k && st.sent < st.max; n++ {
		st.sent++
		b = append(b, st.prefix...)
		if st.chat {
			b = append(b, `{"index":0,"delta":{"content":" tok"},"logprobs":null,"finish_reason":`...)
		} else {
			b = append(b, `{"index":0,"text":" tok","logprobs":null,"finish_reason":`...)
		}
		if st.sent == st.max {
			b = append(b, `"length"}]`...)
		} else {
			b = append(b, `null}]`...)
		}
		if st.continuous {
			b = st.appendUsage(b, st.sent)
		}
		b = append(b, "}\n\n"...)
	}
	if st.sent == st.max {
		if st.usage {
			b = append(b, st.prefix...)
			b = append(b, ']')
			b = st.appendUsage(b, st.sent)
			b = append(b, "}\n\n"...)
		}
		b = append(b, "data: [DONE]\n\n"...)
	}
	size := len(b) - start
	hexSize := strconv.AppendInt(nil, int64(size), 16)
	// Right-align the size in its 8 characters: HTTP allows leading zeros.
	for i := range 8 {
		b[i] = '0'
	}
	copy(b[8-len(hexSize):8], hexSize)
	b = append(b, "\r\n"...)
	if st.sent == st.max {
		b = append(b, "0\r\n\r\n"...)
	}
	st.buf = b
	if _, err := st.c.Write(b); err != nil {
		return n, err
	}
	return n, nil
}

func (st *stream) appendUsage(b []byte, completion int) []byte {
	b = append(b, `,"usage":{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(st.promptTokens), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(st.promptTokens+completion), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(completion), 10)
	return append(b, '}')
}
