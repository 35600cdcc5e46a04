package measure

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Log is an events log as read, once, for every load shape's re-score: its requests
// grouped by the measurement they belong to, and every other event in order.
type Log struct {
	// Events are the events other than requests, in the order of the log.
	Events   []Event
	requests map[EventMeta][]Request
}

// Requests are the requests of the measurement at place (EventMeta.Place), in the
// order of the log, each with its Stream and Index from its event.
func (l *Log) Requests(place EventMeta) []Request { return l.requests[place] }

// ReadLog reads an NDJSON events log: the one reader of what every load shape wrote.
func ReadLog(r io.Reader) (*Log, error) {
	l := &Log{requests: map[EventMeta][]Request{}}
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if perr := l.add(line); perr != nil {
				return nil, fmt.Errorf("reading events: %w", perr)
			}
		}
		if errors.Is(err, io.EOF) {
			return l, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading events: %w", err)
		}
	}
}

// add files one event.
func (l *Log) add(line []byte) error {
	var ev Event
	if err := json.Unmarshal(line, &ev); err != nil {
		return err
	}
	if ev.Type == "request" {
		if ev.Request != nil {
			q := *ev.Request
			q.Stream, q.Index = ev.EventMeta.Stream, ev.EventMeta.Index
			p := ev.Place()
			l.requests[p] = append(l.requests[p], q)
		}
		return nil
	}
	ev.line = line
	l.Events = append(l.Events, ev)
	return nil
}
