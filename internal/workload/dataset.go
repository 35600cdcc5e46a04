package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
)

// Dataset is a file of requests.
type Dataset struct {
	// Name is the file's base name, as a run document names its workload.
	Name string
	// Format is "sharegpt" (conversations) or "prompts" (prompts or messages).
	Format  string
	Entries []Entry
	// Skipped counts conversations of fewer than two turns, left out as vLLM does.
	Skipped int
}

// LoadDataset reads a dataset file: JSONL (one request a line: "messages", or
// "prompt"/"text", optionally an output length) or a JSON array of the same objects or
// of ShareGPT records ({"conversations": [{"from", "value"}, …]}).
func LoadDataset(path string) (*Dataset, error) {
	return readFile("dataset", path, ParseDataset)
}

// ParseDataset reads a dataset; name is how its messages name the file.
func ParseDataset(name string, data []byte) (*Dataset, error) {
	d := &Dataset{Name: filepath.Base(name), Format: "prompts"}
	add := func(l *line, where string) error {
		e, err := l.entry(where)
		switch {
		case errors.Is(err, errTooShort):
			d.Skipped++
			return nil
		case err != nil:
			return fmt.Errorf("%s: %w", where, err)
		}
		if e.Completion != "" || len(l.Conversations) > 0 {
			d.Format = "sharegpt"
		}
		d.Entries = append(d.Entries, e)
		return nil
	}
	var err error
	if trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(trimmed) > 0 && trimmed[0] == '[' {
		err = eachArrayItem(name, data, add)
	} else {
		err = eachJSONLine(name, data, add)
	}
	if err != nil {
		return nil, err
	}
	if len(d.Entries) == 0 {
		return nil, fmt.Errorf("%s: no requests (%d conversations of fewer than two turns left out)", name, d.Skipped)
	}
	return d, nil
}

// eachJSONLine decodes every non-blank line of a JSONL file, naming it file:line.
func eachJSONLine(name string, data []byte, f func(*line, string) error) error {
	return eachLine(name, data, func(raw []byte, where string) error {
		var l line
		if err := json.Unmarshal(raw, &l); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		return f(&l, where)
	})
}

// eachLine calls f with every non-blank line of a JSONL file and its file:line.
func eachLine(name string, data []byte, f func(raw []byte, where string) error) error {
	for i, raw := range bytes.Split(data, []byte("\n")) {
		raw = bytes.TrimSpace(raw)
		if i == 0 {
			raw = bytes.TrimPrefix(raw, []byte("\ufeff"))
		}
		if len(raw) == 0 {
			continue
		}
		if err := f(raw, fmt.Sprintf("%s:%d", name, i+1)); err != nil {
			return err
		}
	}
	return nil
}

// eachArrayItem decodes every item of a JSON array, naming each by the line it starts
// on.
func eachArrayItem(name string, data []byte, f func(*line, string) error) error {
	lines := newLineIndex(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	fail := func(err error) error {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return fmt.Errorf("%s:%d: %w", name, lines.at(syn.Offset), err)
		case errors.As(err, &typ):
			return fmt.Errorf("%s:%d: %w", name, lines.at(typ.Offset), err)
		case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
			return fmt.Errorf("%s:%d: the JSON array is cut short", name, lines.at(int64(len(data))))
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	if _, err := dec.Token(); err != nil { // [
		return fail(err)
	}
	for dec.More() {
		where := fmt.Sprintf("%s:%d", name, lines.at(nextValue(data, dec.InputOffset())))
		var l line
		if err := dec.Decode(&l); err != nil {
			return fail(err)
		}
		if err := f(&l, where); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // ]
		return fail(err)
	}
	return nil
}

// nextValue is where the value after offset starts: past white space and a comma.
func nextValue(data []byte, offset int64) int64 {
	for offset < int64(len(data)) && strings.IndexByte(" \t\r\n,", data[offset]) >= 0 {
		offset++
	}
	return offset
}

// lineIndex finds the line of a byte offset.
type lineIndex []int

func newLineIndex(data []byte) lineIndex {
	var idx lineIndex
	for i, c := range data {
		if c == '\n' {
			idx = append(idx, i)
		}
	}
	return idx
}

// at is the 1-based line of offset.
func (l lineIndex) at(offset int64) int {
	return 1 + sort.SearchInts(l, int(offset))
}
