package workload

import (
	"encoding/json"
	"errors"
	"fmt"
)

// errTooShort marks a ShareGPT conversation of fewer than two turns: vLLM's reader
// (vllm/benchmarks/datasets.py, ShareGPTDataset.load_data) leaves those out, and so
// does this one.
var errTooShort = errors.New("a conversation of fewer than two turns")

// shareGPTTurn is one turn of a ShareGPT conversation: {"from", "value"} as
// ShareGPT_V3 writes it, or {"role", "content"} as some of its derivatives do.
type shareGPTTurn struct {
	From    *string `json:"from"`
	Value   *string `json:"value"`
	Role    *string `json:"role"`
	Content *string `json:"content"`
}

// shareGPTRoles maps the speakers ShareGPT files name to chat roles.
var shareGPTRoles = map[string]string{
	"human": "user", "user": "user",
	"gpt": "assistant", "chatgpt": "assistant", "bard": "assistant", "bing": "assistant",
	"assistant": "assistant", "model": "assistant",
	"system": "system",
}

// shareGPTEntry reads a conversation as vLLM's ShareGPT reader does: its first turn is
// the prompt and its second the reference completion (whatever their speakers); every
// user turn is kept, in order, for sessions.
func shareGPTEntry(raw json.RawMessage, e Entry) (Entry, error) {
	var turns []shareGPTTurn
	if err := json.Unmarshal(raw, &turns); err != nil {
		return e, fmt.Errorf(`"conversations": %w`, err)
	}
	if len(turns) < 2 {
		return e, errTooShort
	}
	texts := make([]string, len(turns))
	for i, t := range turns {
		who, text := t.From, t.Value
		if who == nil {
			who, text = t.Role, t.Content
		}
		if who == nil || text == nil {
			return e, fmt.Errorf("conversations[%d]: no \"from\" and \"value\" (or \"role\" and \"content\")", i)
		}
		role, ok := shareGPTRoles[*who]
		if !ok {
			return e, fmt.Errorf("conversations[%d]: unknown speaker %q", i, *who)
		}
		texts[i] = *text
		if role == "user" {
			e.Turns = append(e.Turns, *text)
		}
	}
	e.Prompt, e.Completion = texts[0], texts[1]
	return e, nil
}
