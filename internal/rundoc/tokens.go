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
	perRequest := int64(context) + int64(maxOutput)
	if maxModelLen != nil && perRequest > *maxModelLen {
		return false, FitReason{ByLength: true, PerRequest: perRequest, MaxModelLen: *maxModelLen}.String()
	}
	if kvCacheTokens != nil {
		need := int64(concurrency) * perRequest
		if need > *kvCacheTokens {
			return false, FitReason{Concurrency: int64(concurrency), PerRequest: perRequest, Need: need, KVCache: *kvCacheTokens}.String()
		}
	}
	return true, ""
}

// FormatTokenList writes token counts as the flags take them: "0,16K,32K".
func FormatTokenList(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = FormatTokens(n)
	}
	return strings.Join(parts, ",")
}
