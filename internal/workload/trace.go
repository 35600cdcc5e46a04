package workload

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// MooncakeBlockSize is how many tokens one hash id stands for in Mooncake's traces
// (kvcache-ai/Mooncake FAST25-release/README.md: "The block size is 512 tokens").
const MooncakeBlockSize = 512

// TraceRequest is one line of a Mooncake trace.
type TraceRequest struct {
	// Timestamp is when the request arrived, in milliseconds from the trace's start.
	Timestamp    float64
	InputLength  int
	OutputLength int
	// HashIDs name the prompt's blocks of the trace's block size, the last one
	// possibly short: equal ids at the start of two prompts are a shared prefix. Nil
	// when the line has none (the prompt shares nothing).
	HashIDs []int
	Where   string
}

// Trace is a Mooncake-format trace, its requests in time order.
type Trace struct {
	Name      string
	BlockSize int
	Requests  []TraceRequest
}

type traceLine struct {
	Timestamp    *float64 `json:"timestamp"`
	InputLength  *float64 `json:"input_length"`
	OutputLength *float64 `json:"output_length"`
	HashIDs      []int    `json:"hash_ids"`
}

// LoadMooncake reads a Mooncake trace whose hash ids cover blockSize tokens each (0:
// Mooncake's 512).
func LoadMooncake(path string, blockSize int) (*Trace, error) {
	return readFile("trace", path, func(name string, b []byte) (*Trace, error) { return ParseMooncake(name, b, blockSize) })
}

// ParseMooncake reads a Mooncake trace: JSONL of {timestamp (ms), input_length,
// output_length, hash_ids}.
func ParseMooncake(name string, data []byte, blockSize int) (*Trace, error) {
	if blockSize == 0 {
		blockSize = MooncakeBlockSize
	}
	if blockSize < 1 {
		return nil, fmt.Errorf("trace block size %d: at least 1", blockSize)
	}
	t := &Trace{Name: filepath.Base(name), BlockSize: blockSize}
	err := eachLine(name, data, func(raw []byte, where string) error {
		var l traceLine
		if err := json.Unmarshal(raw, &l); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		r, err := l.request(blockSize)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		r.Where = where
		t.Requests = append(t.Requests, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(t.Requests) == 0 {
		return nil, fmt.Errorf("%s: no requests", name)
	}
	ms := make([]float64, len(t.Requests))
	for i, r := range t.Requests {
		ms[i] = r.Timestamp
	}
	sorted := make([]TraceRequest, len(t.Requests))
	for i, j := range sortedByTime(ms) {
		sorted[i] = t.Requests[j]
	}
	t.Requests = sorted
	return t, nil
}

func (l *traceLine) request(blockSize int) (TraceRequest, error) {
	var r TraceRequest
	if l.Timestamp == nil || *l.Timestamp < 0 || math.IsInf(*l.Timestamp, 0) {
		return r, errors.New(`"timestamp" (ms, 0 or more) is missing or negative`)
	}
	r.Timestamp = *l.Timestamp
	var err error
	if r.InputLength, err = count("input_length", l.InputLength); err != nil {
		return r, err
	}
	if r.OutputLength, err = count("output_length", l.OutputLength); err != nil {
		return r, err
	}
	if l.HashIDs != nil {
		if want := (r.InputLength + blockSize - 1) / blockSize; len(l.HashIDs) != want {
			return r, fmt.Errorf("%d hash ids for %d input tokens: blocks of %d tokens make %d", len(l.HashIDs), r.InputLength, blockSize, want)
		}
		for _, h := range l.HashIDs {
			if h < 0 {
				return r, fmt.Errorf("hash id %d: ids are 0 or more", h)
			}
		}
		r.HashIDs = l.HashIDs
	}
	return r, nil
}

func count(name string, v *float64) (int, error) {
	if v == nil {
		return 0, fmt.Errorf("%q is missing", name)
	}
	if *v != math.Trunc(*v) || *v < 1 || *v > 1<<30 {
		return 0, fmt.Errorf("%q is %v: a whole number of tokens, at least 1", name, *v)
	}
	return int(*v), nil
}

// Offsets are when to send each request, from the first, played speed times faster
// (0: as recorded).
func (t *Trace) Offsets(speed float64) ([]time.Duration, error) {
	ms := make([]float64, len(t.Requests))
	for i, r := range t.Requests {
		ms[i] = r.Timestamp
	}
	return offsets(ms, speed)
}

// WriteJSONL writes the trace in Mooncake's format, a request a line, spaced as
// Mooncake's own files are (Python's json.dumps).
func (t *Trace) WriteJSONL(w io.Writer) error {
	var b strings.Builder
	for _, r := range t.Requests {
		b.Reset()
		fmt.Fprintf(&b, `{"timestamp": %s, "input_length": %d, "output_length": %d`,
			strconv.FormatFloat(r.Timestamp, 'f', -1, 64), r.InputLength, r.OutputLength)
		if r.HashIDs != nil {
			b.WriteString(`, "hash_ids": [`)
			for i, h := range r.HashIDs {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(strconv.Itoa(h))
			}
			b.WriteString("]")
		}
		b.WriteString("}\n")
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
	}
	return nil
}
