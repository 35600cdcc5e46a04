package measure

import (
	"bufio"
	"encoding/json"
	"io"
	"sync"
)

// EventMeta says which part of the run an event belongs to. Attempt names the run
// invocation (a resumed run is a new attempt), so that an events log appended across
// a resume never mixes two measurements of one cell.
type EventMeta struct {
	Attempt     string `json:"attempt,omitempty"`
	Phase       string `json:"phase,omitempty"` // warmup | decode | rate
	Context     int    `json:"context"`
	Concurrency int    `json:"concurrency"`
	// Stream is a decode request's stream in its cell, from 1 (Request.Stream).
	Stream int `json:"stream,omitempty"`
	// Index is an open-loop request's place in its cell's schedule (Request.Index).
	Index int `json:"index,omitempty"`
	// Cell numbers the cells of an open-loop run (phase "rate"), from 1.
	Cell int `json:"cell,omitempty"`
	// Repeat numbers a --repeat measurement of a cell or prefill row, from 1 (absent
	// without --repeat).
	Repeat int `json:"repeat,omitempty"`
}

// Place is the measurement the event belongs to: its meta without the request's own
// place in it (Stream, Index). The reader groups requests by it.
func (m EventMeta) Place() EventMeta {
	m.Stream, m.Index = 0, 0
	return m
}

// Event is one line of the NDJSON events log, as every load shape writes it:
//   - "attempt": a run invocation starts (Base: its clock's start, Unix ns);
//   - "request": one request, as scored (Request's fields);
//   - "energy": the power trace and price a measurement was scored with, after it.
//
// A load shape's own events embed Event and add their payload after it: the matrix's
// "cell", "window" and "prefill" (internal/bench), the open loop's "rate_cell"
// (internal/openloop). Times are nanoseconds on the run's clock; chunk times
// nanoseconds after Sent.
type Event struct {
	Type string `json:"type"`
	EventMeta
	*Request
	Base   int64        `json:"base_ns,omitempty"`
	Energy *EnergyInput `json:"energy,omitempty"`
	// line is the event as it was read, for a load shape's own payload (ReadLog keeps
	// it for every event but requests).
	line []byte
}

// Decode reads the event's line as read into v: a load shape's own event, with its
// payload.
func (e *Event) Decode(v any) error { return json.Unmarshal(e.line, v) }

// EventLog writes events as NDJSON. A nil *EventLog discards everything.
type EventLog struct {
	mu  sync.Mutex
	w   *bufio.Writer
	err error
}

// NewEventLog writes events to w.
func NewEventLog(w io.Writer) *EventLog {
	return &EventLog{w: bufio.NewWriterSize(w, 256<<10)}
}

// Attempt records the start of a run invocation.
func (l *EventLog) Attempt(id string, c Clock) {
	l.Append(Event{Type: "attempt", EventMeta: EventMeta{Attempt: id}, Base: c.Base()})
}

// Request records one request; its Stream and Index go in meta.
func (l *EventLog) Request(meta EventMeta, q Request) {
	if l == nil {
		return
	}
	if q.Stream != 0 {
		meta.Stream = q.Stream
	}
	if q.Index != 0 {
		meta.Index = q.Index
	}
	l.Append(Event{Type: "request", EventMeta: meta, Request: &q})
}

// Energy records what a measurement's energy was scored with.
func (l *EventLog) Energy(meta EventMeta, in EnergyInput) {
	l.Append(Event{Type: "energy", EventMeta: meta, Energy: &in})
}

// Append records an event: one of these, or a load shape's own, which embeds Event.
func (l *EventLog) Append(ev any) {
	if l == nil {
		return
	}
	b, err := json.Marshal(ev)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	if err == nil {
		b = append(b, '\n')
		_, err = l.w.Write(b)
	}
	l.err = err
}

// Flush writes buffered events out and returns the first error seen.
func (l *EventLog) Flush() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.w.Flush(); err != nil && l.err == nil {
		l.err = err
	}
	return l.err
}
