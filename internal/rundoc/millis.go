package rundoc

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// KeyValue is one item of a flag's comma-separated list of key=value pairs.
type KeyValue struct{ Item, Key, Value string }

// ParseKeyValues splits "ttft=500ms, tpot=50ms" into its items, keys lower-cased and
// both sides trimmed, empty items skipped; bad is the first item without "=" (then the
// list is nil).
func ParseKeyValues(s string) (kvs []KeyValue, bad string) {
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		key, val, ok := strings.Cut(item, "=")
		if !ok {
			return nil, item
		}
		kvs = append(kvs, KeyValue{Item: item, Key: strings.ToLower(strings.TrimSpace(key)), Value: strings.TrimSpace(val)})
	}
	return kvs, ""
}

// ParseMillis reads a latency target as the flags take it: a Go duration ("500ms",
// "1s") or a bare number of milliseconds; it must be positive and finite.
func ParseMillis(s string) (float64, error) {
	val := strings.TrimSpace(s)
	var v float64
	if d, err := time.ParseDuration(val); err == nil {
		v = float64(d) / float64(time.Millisecond)
	} else if f, err := strconv.ParseFloat(val, 64); err == nil {
		v = f
	} else {
		return 0, MillisNotDuration.Error(strconv.Quote(s))
	}
	if !(v > 0) || math.IsInf(v, 0) {
		return 0, MillisNotPositive.Error()
	}
	return v, nil
}
