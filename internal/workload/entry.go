package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/llmbench/llmbench/internal/openai"
)

// Entry is one request of a dataset or schedule: what is sent and, where the file
// says, how long the answer should be.
type Entry struct {
	// Messages is the chat form (a JSONL line's "messages"); Prompt the plain text
	// ("prompt" or "text", or a ShareGPT conversation's first turn).
	Messages []openai.Message
	Prompt   string
	// OutputTokens is the answer length the line asks for ("output_tokens",
	// "max_tokens", "max_completion_tokens" or "output_length"); 0 when it does not.
	OutputTokens int
	// Completion is the reference answer's text where the file has one (ShareGPT's
	// second turn): vLLM takes its length in the server's tokens as the output length.
	Completion string
	// Turns are a conversation's user messages in order (ShareGPT's human turns), for
	// multi-turn sessions; a single prompt is one turn.
	Turns []string
	// Where is the entry's file:line, for messages about it.
	Where string
}

// ChatMessages is the entry as chat messages: its messages, or its prompt as one user
// message.
func (e Entry) ChatMessages() []openai.Message {
	if e.Messages != nil {
		return e.Messages
	}
	return []openai.Message{{Role: "user", Content: e.Prompt}}
}

// userTurns are the user messages a session can take from the entry, in order.
func (e Entry) userTurns() []string {
	if len(e.Turns) > 0 {
		return e.Turns
	}
	if e.Messages != nil {
		var out []string
		for _, m := range e.Messages {
			if m.Role == "user" {
				out = append(out, m.Content)
			}
		}
		return out
	}
	return []string{e.Prompt}
}

// line is one JSONL line of a dataset or a fixed schedule, as written. Fields of
// other tools that say nothing to llmbench (ids, session ids, images) are ignored.
type line struct {
	Messages            []rawMessage    `json:"messages"`
	Prompt              *string         `json:"prompt"`
	Text                *string         `json:"text"`
	Conversations       json.RawMessage `json:"conversations"`
	OutputTokens        *float64        `json:"output_tokens"`
	MaxTokens           *float64        `json:"max_tokens"`
	MaxCompletionTokens *float64        `json:"max_completion_tokens"`
	OutputLength        *float64        `json:"output_length"`
	Timestamp           *float64        `json:"timestamp"`
}

type rawMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// entry reads one decoded line into an entry; where is its file:line.
func (l *line) entry(where string) (Entry, error) {
	e := Entry{Where: where}
	var err error
	if e.OutputTokens, err = l.outputTokens(); err != nil {
		return e, err
	}
	switch {
	case l.Messages != nil:
		if len(l.Messages) == 0 {
			return e, errors.New(`"messages" is empty`)
		}
		for i, m := range l.Messages {
			text, err := contentText(m.Content)
			if err != nil {
				return e, fmt.Errorf("messages[%d]: %w", i, err)
			}
			if m.Role == "" {
				return e, fmt.Errorf("messages[%d] has no role", i)
			}
			e.Messages = append(e.Messages, openai.Message{Role: m.Role, Content: text})
		}
	case l.Prompt != nil:
		e.Prompt = *l.Prompt
	case l.Text != nil:
		e.Prompt = *l.Text
	case len(l.Conversations) > 0:
		return shareGPTEntry(l.Conversations, e)
	default:
		return e, errors.New(`no "messages", "prompt", "text" or "conversations"`)
	}
	if e.Messages == nil && strings.TrimSpace(e.Prompt) == "" {
		return e, errors.New("the prompt is empty")
	}
	return e, nil
}

// outputTokens reads the one output-length field a line may have.
func (l *line) outputTokens() (int, error) {
	n := 0
	for _, f := range []struct {
		name string
		v    *float64
	}{{"output_tokens", l.OutputTokens}, {"max_tokens", l.MaxTokens}, {"max_completion_tokens", l.MaxCompletionTokens}, {"output_length", l.OutputLength}} {
		if f.v == nil {
			continue
		}
		if v := *f.v; v != math.Trunc(v) || v < 1 || v > 1<<30 {
			return 0, fmt.Errorf("%q is %v: an output length is a whole number of tokens, at least 1", f.name, v)
		}
		if n != 0 && n != int(*f.v) {
			return 0, fmt.Errorf("two output lengths disagree (%d and %v)", n, *f.v)
		}
		n = int(*f.v)
	}
	return n, nil
}

// contentText is a message's content as text: a string, or OpenAI's list of parts of
// which only text parts are supported.
func contentText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("content is neither text nor a list of parts")
	}
	var texts []string
	for _, p := range parts {
		if p.Type != "text" {
			return "", fmt.Errorf("a %q part: only text content is supported", p.Type)
		}
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n"), nil
}
