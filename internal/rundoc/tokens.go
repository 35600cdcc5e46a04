package rundoc

import (
	"fmt"
	"strconv"
	"strings"
)

// K is the context-size unit of the seed page and of every flag: 56K = 57,344 tokens.
const K = 1024

// ParseTokens parses a token count: a plain number ("8192") or a number of K
// ("8K", "56k", "0.5K"), K = 1024.
func ParseTokens(s string) (int, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty token count")
	}
	mult := 1.0
	switch t[len(t)-1] {
	case 'k', 'K':
		mult, t = K, t[:len(t)-1]
	case 'm', 'M':
		mult, t = K*K, t[:len(t)-1]
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("%q is not a token count (use a number like 8192 or 8K, K = 1024)", s)
	}
	n := f * mult
	if n != float64(int(n)) {
		return 0, fmt.Errorf("%q is not a whole number of tokens", s)
	}
	return int(n), nil
}

// ParseTokenList parses a comma-separated list of token counts ("0,16K,32K,56K").
func ParseTokenList(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		n, err := ParseTokens(part)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// ParseIntList parses a comma-separated list of positive integers ("1,2,4,8").
func ParseIntList(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		p := strings.TrimSpace(part)
		if p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive whole number", p)
		}
		out = append(out, n)
	}
	return out, nil
}

// FormatTokens writes a token count the way the seed page does: 57344 → "56K",
// 0 → "0", 1000 → "1000".
func FormatTokens(n int) string {
	if n != 0 && n%K == 0 {
		return strconv.Itoa(n/K) + "K"
	}
	return strconv.Itoa(n)
}

// Fit reports whether a cell fits the server, by the seed page's rule: a cell with
// concurrency × (context + max_output) > KV cache tokens is over capacity, and so is one
// with context + max_output > max_model_len. Unknown limits (nil) never exclude a cell.
// The reason is empty when the cell fits.
func Fit(context, concurrency, maxOutput int, kvCacheTokens, maxModelLen *int64) (fits bool, reason string) {
	reason, _ = Limits{KVCacheTokens: kvCacheTokens, MaxModelLen: maxModelLen}.Check(context, context, concurrency, maxOutput)
	return reason == "", reason
}

// Limits are what a server holds, for the over-capacity rule.
type Limits struct {
	// KVCacheTokens is the whole KV cache, MaxModelLen the longest request; nil when
	// unknown.
	KVCacheTokens, MaxModelLen *int64
	// Slots and SlotTokens describe a server that runs each request in a slot of its
	// own context (llama-server: -np N slots of n_ctx each): a request must fit one
	// slot, and requests beyond the slots wait for one (queueing, not over capacity),
	// so only min(concurrency, slots) of them hold the KV cache at once.
	Slots, SlotTokens *int64
}

// The over-capacity reasons that say one request is too long, whatever the
// concurrency (IsLengthReason).
const (
	exceedsMaxModelLen = "exceeds max_model_len"
	exceedsSlot        = "exceeds one slot's context"
)

// IsLengthReason says an over-capacity reason is one request's length (max_model_len
// or a slot's context), not the concurrency.
func IsLengthReason(reason string) bool {
	return strings.Contains(reason, exceedsMaxModelLen) || strings.Contains(reason, exceedsSlot)
}

// Check says why a cell does not fit ("" when it does) and whether it is one
// request's length. prompt is what a request of the row sends, in tokens: the
// context, or more where the chat template and the request's tail are longer than it
// (a context of 0 is some 90 tokens on llama-server).
func (l Limits) Check(context, prompt, concurrency, maxOutput int) (reason string, length bool) {
	perRequest := int64(max(context, prompt)) + int64(maxOutput)
	what := "context + max output"
	if prompt > context {
		what = fmt.Sprintf("the prompt (%d tokens with the chat template) + max output", prompt)
	}
	if l.SlotTokens != nil && perRequest > *l.SlotTokens {
		return fmt.Sprintf("%s = %d tokens %s of %d tokens (the server runs %s of %d)", what, perRequest, exceedsSlot, *l.SlotTokens, plural(l.Slots, "slot"), *l.SlotTokens), true
	}
	if l.MaxModelLen != nil && perRequest > *l.MaxModelLen {
		return fmt.Sprintf("%s = %d tokens %s %d", what, perRequest, exceedsMaxModelLen, *l.MaxModelLen), true
	}
	if l.KVCacheTokens == nil {
		return "", false
	}
	held := int64(concurrency)
	if l.Slots != nil && *l.Slots > 0 && *l.Slots < held {
		held = *l.Slots // the rest wait for a slot, holding nothing
	}
	if need := held * perRequest; need > *l.KVCacheTokens {
		if held < int64(concurrency) {
			return fmt.Sprintf("%d requests at once (one per slot) × %d tokens = %d exceeds the KV cache (%d tokens)", held, perRequest, need, *l.KVCacheTokens), false
		}
		return fmt.Sprintf("%d requests × %d tokens = %d exceeds the KV cache (%d tokens)", concurrency, perRequest, need, *l.KVCacheTokens), false
	}
	return "", false
}

// Smallest is the longest request the limits let one slot take: the smallest of
// max_model_len, a slot's context and the KV cache; 0 when none is known.
func (l Limits) Smallest() int64 {
	limit := int64(0)
	for _, v := range []*int64{l.MaxModelLen, l.KVCacheTokens, l.SlotTokens} {
		if v != nil && *v > 0 && (limit == 0 || *v < limit) {
			limit = *v
		}
	}
	return limit
}

func plural(n *int64, what string) string {
	switch {
	case n == nil:
		return what + "s"
	case *n == 1:
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", *n, what)
}

// FormatTokenList writes token counts as the flags take them: "0,16K,32K".
func FormatTokenList(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = FormatTokens(n)
	}
	return strings.Join(parts, ",")
}
