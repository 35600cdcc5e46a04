package openai

import (
	"bytes"
	"strconv"
)

// The fast chunk decoder: it reads the fields StreamResult.apply uses straight from an
// event's bytes, with no reflection and no allocation, and checks the whole of the
// input as strictly as encoding/json does. Where the two could read a chunk
// differently it gives up (ok=false) and apply decodes the chunk with encoding/json:
// a key that is not exactly a field's name but could match one case-insensitively,
// an escaped key, a field given twice, a value of a type the field does not take, a
// number that is not a plain integer where an integer is wanted, an escaped or
// non-UTF-8 finish_reason, an error envelope, a whole message, nesting deeper than
// maxDepth. Giving up is always safe: it only costs time.

// maxDigits is the longest integer read without a chance of overflowing an int.
const maxDigits = 9 + 9*(strconv.IntSize/64)

// maxDepth bounds the nesting the fast decoder follows (encoding/json allows 10,000).
const maxDepth = 64

// decoder is the position in one chunk's bytes.
type decoder struct {
	b []byte
	i int
}

// decodeChunk reads data (one event's JSON) into v, reusing v's choices.
func decodeChunk(data []byte, v *chunkView) bool {
	return decodeChunkAfter(data, v, nil)
}

// headMemo remembers the head of a stream's last chunk: the bytes up to the first
// member the view takes anything from (id, object, created, model… — the same in
// every chunk of a request), as checked, and the fields they held. Reading them again
// would give the same state, so a chunk that starts with the same bytes resumes after
// them.
type headMemo struct {
	head []byte
	mask uint32
}

// decodeChunkAfter is decodeChunk with the stream's head memo (nil for none), which
// it updates.
func decodeChunkAfter(data []byte, v *chunkView, m *headMemo) bool {
	*v = chunkView{choices: v.choices[:0]}
	d := decoder{b: data}
	if !d.chunk(v, m) {
		return false
	}
	d.ws()
	return d.i == len(d.b)
}

func (d *decoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// next skips white space and returns the next byte (0 at the end).
func (d *decoder) next() byte {
	if d.i < len(d.b) && d.b[d.i] > ' ' {
		return d.b[d.i] // no white space: the usual case, kept cheap
	}
	d.ws()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

func (d *decoder) eat(c byte) bool {
	if d.next() == c {
		d.i++
		return true
	}
	return false
}

// null reads a null literal if one comes next.
func (d *decoder) null() bool {
	if d.next() == 'n' {
		return d.literal("null")
	}
	return false
}

func (d *decoder) literal(word string) bool {
	if len(d.b)-d.i >= len(word) && string(d.b[d.i:d.i+len(word)]) == word {
		d.i += len(word)
		return true
	}
	return false
}

// strStop marks the bytes that end a run of plain string bytes: the closing quote,
// an escape, and the control characters JSON does not allow in a string.
var strStop = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// str reads a string and returns its bytes between the quotes, and whether it holds
// escapes. The string must be valid JSON: no control characters, only JSON's escapes.
func (d *decoder) str() (raw []byte, escaped, ok bool) {
	if d.next() != '"' {
		return nil, false, false
	}
	b, i := d.b, d.i+1
	start := i
	for {
		for i < len(b) && !strStop[b[i]] {
			i++
		}
		if i >= len(b) {
			return nil, false, false
		}
		switch b[i] {
		case '"':
			d.i = i + 1
			return b[start:i], escaped, true
		case '\\':
			escaped = true
			if i+1 >= len(b) {
				return nil, false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return nil, false, false
				}
				i += 6
			default:
				return nil, false, false
			}
		default: // a control character
			return nil, false, false
		}
	}
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// text reads a string field of a Go string type: a string or null (which leaves the
// field as it was: empty, since no field is read twice).
func (d *decoder) text(t *jsonText) bool {
	if d.null() {
		return true
	}
	raw, escaped, ok := d.str()
	if !ok {
		return false
	}
	*t = jsonText{raw: raw, plain: plainText(raw, escaped)}
	return true
}

// skipString reads a string field whose value apply does not use: a string or null.
func (d *decoder) skipString() bool {
	if d.null() {
		return true
	}
	_, _, ok := d.str()
	return ok
}

// integer reads a field of an integer type: a plain integer that fits in 63 bits, or
// null (leaving it 0). A fraction or an exponent, which encoding/json refuses for an
// integer field, gives up.
func (d *decoder) integer(v *int) bool {
	if d.null() {
		return true
	}
	neg := d.next() == '-'
	if neg {
		d.i++
	}
	start := d.i
	n := 0
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		n = n*10 + int(d.b[d.i]-'0')
		d.i++
	}
	digits := d.i - start
	if digits == 0 || digits > maxDigits || (d.b[start] == '0' && digits > 1) {
		return false
	}
	if d.i < len(d.b) && (d.b[d.i] == '.' || d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		return false
	}
	if neg {
		n = -n
	}
	*v = n
	return true
}

// key reads an object key and the colon after it. A key that is not plain lower-case
// ASCII gives up unless it is exactly one the caller knows: encoding/json matches keys
// to fields case-insensitively, so "Usage" or "choiceſ" would bind to a field.
func (d *decoder) key() ([]byte, bool) {
	raw, escaped, ok := d.str()
	if !ok || escaped || !d.eat(':') {
		return nil, false
	}
	return raw, true
}

// unknown says whether a key that is none of an object's fields is safe to skip: it
// could match none of them case-insensitively.
func unknown(key []byte) bool {
	for _, c := range key {
		if c >= 'A' && c <= 'Z' || c >= 0x80 {
			return false
		}
	}
	return true
}

// skip passes over any JSON value, checking it as encoding/json would.
func (d *decoder) skip(depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch d.next() {
	case '{':
		d.i++
		if d.eat('}') {
			return true
		}
		for {
			if _, _, ok := d.str(); !ok || !d.eat(':') || !d.skip(depth+1) {
				return false
			}
			if d.eat('}') {
				return true
			}
			if !d.eat(',') {
				return false
			}
		}
	case '[':
		d.i++
		if d.eat(']') {
			return true
		}
		for {
			if !d.skip(depth + 1) {
				return false
			}
			if d.eat(']') {
				return true
			}
			if !d.eat(',') {
				return false
			}
		}
	case '"':
		_, _, ok := d.str()
		return ok
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	}
	return d.number()
}

// number passes over a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *decoder) number() bool {
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.b) && d.b[d.i] == '0':
		d.i++
	case d.digits() == 0:
		return false
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if d.digits() == 0 {
			return false
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if d.digits() == 0 {
			return false
		}
	}
	return true
}

func (d *decoder) digits() int {
	start := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	return d.i - start
}

// open reads an object's opening brace.
func (d *decoder) open() bool { return d.eat('{') }

// more reads what follows an object member: true for a comma (another member
// comes), false at the closing brace; ok is false on anything else.
func (d *decoder) more() (more, ok bool) {
	if d.eat(',') {
		return true, true
	}
	return false, d.eat('}')
}

// members reads an object's members once its '{' is read: for each one, field reads
// the value of the member named key and reports whether it could. It stops at the
// closing brace, or gives up with field.
func (d *decoder) members(field func(key []byte) bool) bool {
	if d.eat('}') {
		return true
	}
	for {
		key, ok := d.key()
		if !ok || !field(key) {
			return false
		}
		more, ok := d.more()
		if !ok || !more {
			return ok
		}
	}
}

// object reads null, or an object whose members field reads one by one; present,
// where given, says it was an object.
func (d *decoder) object(present *bool, field func(key []byte) bool) bool {
	if d.null() {
		return true
	}
	if !d.open() {
		return false
	}
	if present != nil {
		*present = true
	}
	return d.members(field)
}

// array reads null, or an array whose elements elem reads one by one.
func (d *decoder) array(elem func() bool) bool {
	if d.null() {
		return true
	}
	if !d.eat('[') {
		return false
	}
	if d.eat(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if d.eat(']') {
			return true
		}
		if !d.eat(',') {
			return false
		}
	}
}

// seen marks a field read and reports whether it had been read before.
func seen(mask *uint32, bit uint32) bool {
	if *mask&bit != 0 {
		return true
	}
	*mask |= bit
	return false
}

// Chunk fields, as bits of a "seen" mask.
const (
	fChoices uint32 = 1 << iota
	fUsage
	fTimings
	fError
	fID
	fObject
	fCreated
	fModel
	fFingerprint
	fMessage
)

// chunk reads the top-level object: Chunk's fields.
func (d *decoder) chunk(v *chunkView, m *headMemo) bool {
	var mask uint32
	resumed := m != nil && len(m.head) > 0 && bytes.HasPrefix(d.b, m.head)
	if resumed {
		d.i, mask = len(m.head), m.mask
	} else {
		if !d.open() {
			return false
		}
		if d.eat('}') {
			return true
		}
	}
	// head is where the members the view takes nothing from, from the start, end.
	inHead, head, headMask := true, 0, uint32(0)
	for {
		key, ok := d.key()
		if !ok {
			return false
		}
		takes := false
		switch string(key) {
		case "choices":
			takes = true
			ok = !seen(&mask, fChoices) && d.choices(v)
		case "usage":
			takes = true
			ok = !seen(&mask, fUsage) && d.usage(v)
		case "timings":
			takes = true
			ok = !seen(&mask, fTimings) && d.timings(v)
		case "error":
			// An error envelope: encoding/json's path says what it was. A null error is
			// none.
			ok = !seen(&mask, fError) && d.null()
		case "object":
			ok = !seen(&mask, fObject) && d.objectName()
		case "id":
			ok = !seen(&mask, fID) && d.skipString()
		case "model":
			ok = !seen(&mask, fModel) && d.skipString()
		case "system_fingerprint":
			ok = !seen(&mask, fFingerprint) && d.skipString()
		case "message":
			ok = !seen(&mask, fMessage) && d.skipString()
		case "created":
			var n int
			ok = !seen(&mask, fCreated) && d.integer(&n)
		default:
			ok = unknown(key) && d.skip(1)
		}
		if !ok {
			return false
		}
		more, ok := d.more()
		if !ok {
			return false
		}
		if !more {
			switch {
			case m == nil:
			case head > len(m.head) || !resumed && head > 0:
				m.head, m.mask = append(m.head[:0], d.b[:head]...), headMask
			case !resumed:
				m.head = m.head[:0]
			}
			return true
		}
		inHead = inHead && !takes
		if inHead {
			head, headMask = d.i, mask
		}
	}
}

// objectName reads the chunk's "object": any name but "error" ({"object": "error",
// "message": ...} is vLLM's and SGLang's older error form), unescaped.
func (d *decoder) objectName() bool {
	if d.null() {
		return true
	}
	raw, escaped, ok := d.str()
	return ok && !escaped && string(raw) != "error"
}

func (d *decoder) timings(v *chunkView) bool {
	if d.null() {
		return true
	}
	d.ws()
	start := d.i
	if !d.skip(1) {
		return false
	}
	v.timings = d.b[start:d.i]
	return true
}

// choices reads the choices array: objects (a null element, which encoding/json
// reads as an empty choice, gives up).
func (d *decoder) choices(v *chunkView) bool {
	return d.array(func() bool {
		v.choices = append(v.choices, choiceView{})
		return d.choice(&v.choices[len(v.choices)-1])
	})
}

// Choice fields.
const (
	fIndex uint32 = 1 << iota
	fDelta
	fText
	fFinish
	fLogprobs
	fChoiceMessage
)

func (d *decoder) choice(c *choiceView) bool {
	if !d.open() {
		return false
	}
	var mask uint32
	return d.members(func(key []byte) (ok bool) {
		switch string(key) {
		case "index":
			ok = !seen(&mask, fIndex) && d.integer(&c.index)
		case "delta":
			ok = !seen(&mask, fDelta) && d.delta(c)
		case "text":
			ok = !seen(&mask, fText) && d.text(&c.text)
		case "finish_reason":
			ok = !seen(&mask, fFinish) && d.finishReason(c)
		case "logprobs":
			ok = !seen(&mask, fLogprobs) && d.logprobs(c)
		case "message":
			// A whole message belongs to a response, not a stream: encoding/json reads it.
			ok = !seen(&mask, fChoiceMessage) && d.null()
		default:
			ok = unknown(key) && d.skip(2)
		}
		return ok
	})
}

// Delta fields.
const (
	fRole uint32 = 1 << iota
	fContent
	fReasoningContent
	fReasoning
)

func (d *decoder) delta(c *choiceView) bool {
	var mask uint32
	return d.object(&c.hasDelta, func(key []byte) (ok bool) {
		switch string(key) {
		case "content":
			ok = !seen(&mask, fContent) && d.text(&c.content)
		case "reasoning_content":
			ok = !seen(&mask, fReasoningContent) && d.text(&c.reasoningContent)
		case "reasoning":
			ok = !seen(&mask, fReasoning) && d.text(&c.reasoning)
		case "role":
			ok = !seen(&mask, fRole) && d.skipString()
		default:
			ok = unknown(key) && d.skip(3)
		}
		return ok
	})
}

// finishReason reads finish_reason: null, or a string that needs no unescaping.
func (d *decoder) finishReason(c *choiceView) bool {
	if d.null() {
		return true
	}
	raw, escaped, ok := d.str()
	if !ok || !plainText(raw, escaped) {
		return false
	}
	c.hasFinish, c.finish = true, internFinish(raw)
	return true
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

// Logprobs fields.
const (
	fLPContent uint32 = 1 << iota
	fLPTokens
)

// logprobs reads a choice's log probabilities: how many entries content (chat) or
// tokens (completions) has.
func (d *decoder) logprobs(c *choiceView) bool {
	var mask uint32
	return d.object(nil, func(key []byte) (ok bool) {
		var n int
		switch string(key) {
		case "content":
			ok = !seen(&mask, fLPContent) && d.countArray(&n)
		case "tokens":
			ok = !seen(&mask, fLPTokens) && d.countArray(&n)
		default:
			ok = unknown(key) && d.skip(3)
		}
		if ok {
			c.logprobs = max(c.logprobs, n)
		}
		return ok
	})
}

// countArray reads an array of any values, or null, and counts its elements.
func (d *decoder) countArray(n *int) bool {
	return d.array(func() bool {
		if !d.skip(4) {
			return false
		}
		*n++
		return true
	})
}

// Usage fields.
const (
	fPromptTokens uint32 = 1 << iota
	fCompletionTokens
	fTotalTokens
	fPromptDetails
)

func (d *decoder) usage(v *chunkView) bool {
	var mask uint32
	return d.object(&v.hasUsage, func(key []byte) (ok bool) {
		switch string(key) {
		case "prompt_tokens":
			ok = !seen(&mask, fPromptTokens) && d.integer(&v.usage.PromptTokens)
		case "completion_tokens":
			ok = !seen(&mask, fCompletionTokens) && d.integer(&v.usage.CompletionTokens)
		case "total_tokens":
			ok = !seen(&mask, fTotalTokens) && d.integer(&v.usage.TotalTokens)
		case "prompt_tokens_details":
			ok = !seen(&mask, fPromptDetails) && d.promptDetails(&v.details)
		default:
			ok = unknown(key) && d.skip(2)
		}
		return ok
	})
}

// promptDetails reads usage.prompt_tokens_details: null, or an object whose
// cached_tokens is an integer or null.
func (d *decoder) promptDetails(p *promptDetails) bool {
	seenCached := false
	return d.object(&p.present, func(key []byte) bool {
		switch string(key) {
		case "cached_tokens":
			if seenCached {
				return false
			}
			seenCached = true
			if d.null() {
				return true
			}
			p.hasCached = true
			return d.integer(&p.cached)
		default:
			return unknown(key) && d.skip(3)
		}
	})
}
