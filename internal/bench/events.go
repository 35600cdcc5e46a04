package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// EventMeta says which part of the run an event belongs to. Attempt names the run
// invocation (a resumed run is a new attempt), so that an events log appended across
// a resume never mixes two measurements of one cell.
type EventMeta struct {
	Attempt     string `json:"attempt,omitempty"`
	Phase       string `json:"phase,omitempty"` // warmup | decode
	Context     int    `json:"context"`
	Concurrency int    `json:"concurrency"`
	// Stream is a decode request's stream in its cell, from 1 (Request.Stream).
	Stream int `json:"stream,omitempty"`
	Index  int `json:"index,omitempty"`
	// Cell numbers the cells of an open-loop run (phase "rate"), from 1.
	Cell int `json:"cell,omitempty"`
	// Repeat numbers a --repeat measurement of a cell or prefill row, from 1 (absent
	// without --repeat).
	Repeat int `json:"repeat,omitempty"`
}

// Event is one line of the NDJSON events log:
//   - "attempt": a run invocation starts (Base: its clock's start, Unix ns);
//   - "request": one request, as scored (Request's fields);
//   - "window": a cell's window (Open, Close), kept for older readers;
//   - "cell": what executing a cell produced (Run), with its requests before it;
//   - "prefill": what measuring a prefill row produced (Prefill);
//   - "energy": the power trace and price a cell (phase "decode") or a prefill row
//     (phase "warmup") was scored with, after it (Energy).
//
// Times are nanoseconds on the run's clock; chunk times nanoseconds after Sent.
// Rescore scores the log with the same functions as the live run. The open loop's
// events (phase "rate": its requests and "rate_cell") are internal/openloop's, an
// Event with the open loop's fields after these, written by Append.
type Event struct {
	Type string `json:"type"`
	EventMeta
	*Request
	Base    int64        `json:"base_ns,omitempty"`
	Open    int64        `json:"open_ns,omitempty"`
	Close   int64        `json:"close_ns,omitempty"`
	Run     *CellRun     `json:"cell_run,omitempty"`
	Prefill *PrefillRun  `json:"prefill,omitempty"`
	Energy  *EnergyInput `json:"energy,omitempty"`
}

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
	if l == nil {
		return
	}
	l.write(Event{Type: "attempt", EventMeta: EventMeta{Attempt: id}, Base: c.baseNs})
}

// Request records one request.
func (l *EventLog) Request(meta EventMeta, q Request) {
	if l == nil {
		return
	}
	l.write(Event{Type: "request", EventMeta: meta, Request: &q})
}

// Cell records a cell's execution: its requests, its window, then the rest.
func (l *EventLog) Cell(meta EventMeta, run *CellRun) {
	if l == nil {
		return
	}
	meta.Phase = "decode"
	for _, q := range run.Requests {
		m := meta
		m.Stream = q.Stream
		l.Request(m, q)
	}
	if run.Open != 0 {
		l.write(Event{Type: "window", EventMeta: meta, Open: run.Open, Close: run.Close})
	}
	l.write(Event{Type: "cell", EventMeta: meta, Run: run})
}

// Prefill records a prefill row's measurement.
func (l *EventLog) Prefill(meta EventMeta, run *PrefillRun) {
	if l == nil {
		return
	}
	l.write(Event{Type: "prefill", EventMeta: meta, Prefill: run})
}

// Energy records what a cell's or prefill row's energy was scored with.
func (l *EventLog) Energy(meta EventMeta, in EnergyInput) {
	if l == nil {
		return
	}
	l.write(Event{Type: "energy", EventMeta: meta, Energy: &in})
}

// Append records an event of a kind another package defines: the open loop's,
// which embed Event and add their fields after its own.
func (l *EventLog) Append(ev any) {
	if l != nil {
		l.write(ev)
	}
}

func (l *EventLog) write(ev any) {
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

// Rescored is a run's measurements recomputed from its events log.
type Rescored struct {
	Prefill []rundoc.PrefillRow
	Decode  []rundoc.DecodeCell
}

// Rescore reads an events log and recomputes every decode cell from what was
// recorded: the check that a run document's numbers follow from what was seen. A cell
// measured in several attempts (a resumed run) is the last attempt's.
func Rescore(r io.Reader) ([]rundoc.DecodeCell, error) {
	all, err := RescoreAll(r)
	if err != nil {
		return nil, err
	}
	return all.Decode, nil
}

// RescoreAll recomputes every prefill row and decode cell of an events log.
func RescoreAll(r io.Reader) (*Rescored, error) {
	type key struct {
		attempt     string
		ctx, n, rep int
	}
	type place struct{ ctx, n, rep int }
	requests := map[key][]Request{}
	cells := map[place]*CellRun{}
	cellAttempt := map[place]string{}
	var cellOrder []place
	prefills := map[place]*PrefillRun{}
	prefillAttempt := map[place]string{}
	var prefillOrder []place
	energy := map[key]*EnergyInput{} // decode; prefill rows' under concurrency -1
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	for {
		var ev Event
		if err := dec.Decode(&ev); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("reading events: %w", err)
		}
		k := key{ev.Attempt, ev.Context, ev.Concurrency, ev.Repeat}
		p := place{ev.Context, ev.Concurrency, ev.Repeat}
		switch ev.Type {
		case "request":
			if ev.Phase == "decode" && ev.Request != nil {
				q := *ev.Request
				q.Stream = ev.EventMeta.Stream
				requests[k] = append(requests[k], q)
			}
		case "window":
			// Logs written before cell events: score the window with what is known.
			if _, ok := cells[p]; !ok || cellAttempt[p] == ev.Attempt {
				if !ok {
					cellOrder = append(cellOrder, p)
				}
				cells[p] = &CellRun{Context: ev.Context, Concurrency: ev.Concurrency, Open: ev.Open, Close: ev.Close, DurationS: float64(ev.Close-ev.Open) / 1e9}
				cellAttempt[p] = ev.Attempt
			}
		case "cell":
			if ev.Run == nil {
				continue
			}
			if _, ok := cells[p]; !ok {
				cellOrder = append(cellOrder, p)
			}
			cells[p], cellAttempt[p] = ev.Run, ev.Attempt
		case "prefill":
			if ev.Prefill == nil {
				continue
			}
			pp := place{ev.Prefill.Context, 0, ev.Repeat}
			if _, ok := prefills[pp]; !ok {
				prefillOrder = append(prefillOrder, pp)
			}
			prefills[pp], prefillAttempt[pp] = ev.Prefill, ev.Attempt
		case "energy":
			if ev.Energy == nil {
				continue
			}
			if ev.Phase == "warmup" {
				k.n = -1
			}
			energy[k] = ev.Energy
		}
	}
	out := &Rescored{}
	for _, p := range prefillOrder {
		pre := prefills[p]
		row := ScorePrefill(pre)
		if in := energy[key{prefillAttempt[p], p.ctx, -1, p.rep}]; in != nil {
			ScorePrefillEnergy(&row, &pre.Request, *in)
		}
		out.Prefill = appendRepeat(out.Prefill, p.rep, row,
			func(r *rundoc.PrefillRow) bool { return r.Context == p.ctx }, MergePrefillRepeat)
	}
	for _, p := range cellOrder {
		run := *cells[p]
		k := key{cellAttempt[p], p.ctx, p.n, p.rep}
		run.Requests = requests[k]
		cell := ScoreCell(&run)
		if in := energy[k]; in != nil && run.Open != 0 {
			ScoreCellEnergy(&cell, &run, *in)
		}
		out.Decode = appendRepeat(out.Decode, p.rep, cell,
			func(c *rundoc.DecodeCell) bool { return c.Context == p.ctx && c.Concurrency == p.n }, MergeRepeat)
	}
	return out, nil
}

// appendRepeat adds a re-scored measurement to out: a new entry, or with --repeat
// (rep > 0) merged into the entry its earlier repeats made, as the live run did.
func appendRepeat[T any](out []T, rep int, scored T, same func(*T) bool, merge func(prev, scored T) T) []T {
	if rep == 0 {
		return append(out, scored)
	}
	for i := range out {
		if same(&out[i]) {
			out[i] = merge(out[i], scored)
			return out
		}
	}
	return append(out, merge(*new(T), scored))
}
