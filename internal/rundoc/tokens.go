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

// IsLengthReason says an over-capacity reason is one request's length (max_model_len
// or a slot's context), not the concurrency.
func IsLengthReason(reason string) bool {
	f, ok := ParseFitReason(reason)
	return ok && f.ByLength
}

// Check says why a cell does not fit ("" when it does; FitReason's sentence) and
// whether it is one request's length. prompt is what a request of the row sends, in
// tokens: the context, or more where the chat template and the request's tail are
// longer than it (a context of 0 is some 90 tokens on llama-server).
func (l Limits) Check(context, prompt, concurrency, maxOutput int) (reason string, length bool) {
	f := FitReason{PerRequest: int64(max(context, prompt)) + int64(maxOutput)}
	if prompt > context {
		f.Prompt = int64(prompt)
	}
	switch {
	case l.SlotTokens != nil && f.PerRequest > *l.SlotTokens:
		f.ByLength, f.SlotTokens, f.Slots = true, *l.SlotTokens, 1
		if l.Slots != nil {
			f.Slots = *l.Slots
		}
		return f.String(), true
	case l.MaxModelLen != nil && f.PerRequest > *l.MaxModelLen:
		f.ByLength, f.MaxModelLen = true, *l.MaxModelLen
		return f.String(), true
	case l.KVCacheTokens == nil:
		return "", false
	}
	f.Concurrency = int64(concurrency)
	if l.Slots != nil && *l.Slots > 0 && *l.Slots < f.Concurrency {
		f.Concurrency, f.PerSlot = *l.Slots, true // the rest wait for a slot, holding nothing
	}
	if f.Need, f.KVCache = f.Concurrency*f.PerRequest, *l.KVCacheTokens; f.Need > f.KVCache {
		return f.String(), false
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

// FormatTokenList writes token counts as the flags take them: "0,16K,32K".
func FormatTokenList(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = FormatTokens(n)
	}
	return strings.Join(parts, ",")
}
