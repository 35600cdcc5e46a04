package openai

import (
	"encoding/json"
	"unicode/utf8"
)

// chunkView is what StreamResult.apply reads of one stream chunk. The fast decoder
// (decodeChunk) fills it from the event's bytes without allocating; viewOf fills it
// from a Chunk that encoding/json decoded, where the fast decoder gave up. Both
// paths then count tokens with the same code, so they cannot disagree on what a
// chunk shows — only on whether they could read it, and FuzzChunkView holds the fast
// decoder to reading exactly what encoding/json reads.
type chunkView struct {
	choices  []choiceView
	hasUsage bool
	// usage is the chunk's usage without its prompt_tokens_details, which details
	// holds (so that no pointer is made per chunk).
	usage   Usage
	details promptDetails
	// timings is llama.cpp's timing block, raw; nil when absent or null.
	timings []byte
}

// promptDetails is usage.prompt_tokens_details: present (an object, not null), and
// its cached_tokens when that is a number.
type promptDetails struct {
	present, hasCached bool
	cached             int
}

// choiceView is what apply reads of one choice.
type choiceView struct {
	index    int
	hasDelta bool
	// The delta's texts (chat) and the choice's text (completions).
	content, reasoningContent, reasoning, text jsonText
	hasFinish                                  bool // finish_reason is a string, not null or absent
	finish                                     string
	// logprobs is how many tokens the choice's log probabilities describe.
	logprobs int
}

// jsonText is a string field as one of the two decoders left it: a Go string
// (encoding/json), or the bytes between a JSON string's quotes (the fast decoder),
// unescaped only when the text itself is wanted.
type jsonText struct {
	s string
	// raw is the string's bytes between the quotes; plain says they are the text as
	// they are (no escapes, valid UTF-8).
	raw   []byte
	plain bool
}

func (t jsonText) empty() bool { return t.s == "" && len(t.raw) == 0 }

// appendTo appends the text to dst, unescaped as encoding/json unescapes it.
func (t jsonText) appendTo(dst []byte) []byte {
	switch {
	case t.s != "":
		return append(dst, t.s...)
	case t.plain:
		return append(dst, t.raw...)
	case len(t.raw) == 0:
		return dst
	}
	// Escapes or invalid UTF-8: encoding/json's own unquoting (replacement characters
	// for broken surrogates and bytes included) on the string alone.
	quoted := make([]byte, 0, len(t.raw)+2)
	quoted = append(append(append(quoted, '"'), t.raw...), '"')
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return dst // cannot happen: the fast decoder checked the string
	}
	return append(dst, s...)
}

// viewOf fills v from a chunk encoding/json decoded, reusing v's choices.
func viewOf(ch *Chunk, v *chunkView) {
	*v = chunkView{choices: v.choices[:0]}
	for i := range ch.Choices {
		c := &ch.Choices[i]
		cv := choiceView{index: c.Index, text: jsonText{s: c.Text}, logprobs: c.Logprobs.Count()}
		if d := c.Delta; d != nil {
			cv.hasDelta = true
			cv.content, cv.reasoningContent, cv.reasoning = jsonText{s: d.Content}, jsonText{s: d.ReasoningContent}, jsonText{s: d.Reasoning}
		}
		if c.FinishReason != nil {
			cv.hasFinish, cv.finish = true, *c.FinishReason
		}
		v.choices = append(v.choices, cv)
	}
	if u := ch.Usage; u != nil {
		v.hasUsage, v.usage = true, *u
		v.usage.PromptTokensDetails = nil
		if det := u.PromptTokensDetails; det != nil {
			v.details.present = true
			if det.CachedTokens != nil {
				v.details.hasCached, v.details.cached = true, *det.CachedTokens
			}
		}
	}
	if len(ch.Timings) > 0 && string(ch.Timings) != "null" {
		v.timings = ch.Timings
	}
}

// plainText says whether a JSON string's raw bytes are its text as they are.
func plainText(raw []byte, escaped bool) bool {
	if escaped {
		return false
	}
	for _, c := range raw {
		if c >= utf8.RuneSelf {
			return utf8.Valid(raw)
		}
	}
	return true
}
