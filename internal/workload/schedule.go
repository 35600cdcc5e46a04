package workload

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"time"
)

// Schedule is a fixed schedule: each request sent at its own time.
type Schedule struct {
	Name string
	// Entries are the requests in time order; Timestamps their times in milliseconds.
	Entries    []Entry
	Timestamps []float64
}

// LoadSchedule reads a fixed schedule: JSONL of {"timestamp" (ms), "messages"} (or
// "prompt"/"text", and optionally an output length, as a dataset line).
func LoadSchedule(path string) (*Schedule, error) {
	return readFile("schedule", path, ParseSchedule)
}

// ParseSchedule reads a fixed schedule; name is how its messages name the file.
func ParseSchedule(name string, data []byte) (*Schedule, error) {
	var entries []Entry
	var ms []float64
	err := eachJSONLine(name, data, func(l *line, where string) error {
		if l.Timestamp == nil || *l.Timestamp < 0 || math.IsInf(*l.Timestamp, 0) {
			return fmt.Errorf("%s: %w", where, errors.New(`"timestamp" (ms, 0 or more) is missing or negative`))
		}
		e, err := l.entry(where)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		entries = append(entries, e)
		ms = append(ms, *l.Timestamp)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("%s: no requests", name)
	}
	s := &Schedule{Name: filepath.Base(name)}
	for _, i := range sortedByTime(ms) {
		s.Entries = append(s.Entries, entries[i])
		s.Timestamps = append(s.Timestamps, ms[i])
	}
	return s, nil
}

// Offsets are when to send each request, from the first, played speed times faster
// (0: as written).
func (s *Schedule) Offsets(speed float64) ([]time.Duration, error) {
	return offsets(s.Timestamps, speed)
}
