package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/openai"
)

// EventMeta says which part of the run a request belonged to.
type EventMeta struct {
	Phase       string `json:"phase"` // warmup | decode
	Context     int    `json:"context"`
	Concurrency int    `json:"concurrency"`
	Stream      int    `json:"stream"`
	Index       int    `json:"index"`
	// Cell numbers the cells of an open-loop run (phase "rate"), from 1.
	Cell int `json:"cell,omitempty"`
}

// Event is one line of the NDJSON events log: a request (type "request") with every
// chunk's arrival, or a cell's window (type "window"). Times are Unix nanoseconds of
// the wall clock; chunk times are nanoseconds after Sent, so a run can be re-scored
// offline with CellFigures.
type Event struct {
	Type string `json:"type"`
	EventMeta
	Sent         int64         `json:"sent_ns,omitempty"`
	FirstToken   int64         `json:"first_token_ns,omitempty"`
	End          int64         `json:"end_ns,omitempty"`
	Chunks       [][2]int64    `json:"chunks,omitempty"` // [ns after sent, tokens]
	Tokens       int           `json:"tokens,omitempty"`
	FinishReason string        `json:"finish_reason,omitempty"`
	Cancelled    bool          `json:"cancelled,omitempty"`
	Error        string        `json:"error,omitempty"`
	Status       int           `json:"http_status,omitempty"`
	Usage        *openai.Usage `json:"usage,omitempty"`
	Open         int64         `json:"open_ns,omitempty"`
	Close        int64         `json:"close_ns,omitempty"`

	// Open-loop requests: the scheduled time latencies are measured from, when a slot
	// let the request go, and the lengths asked. A "rate_cell" event carries what
	// scoring the cell needs besides its requests.
	Scheduled    int64      `json:"scheduled_ns,omitempty"`
	Slot         int64      `json:"slot_ns,omitempty"`
	InputTarget  int        `json:"input_target,omitempty"`
	OutputTarget int        `json:"output_target,omitempty"`
	RateInput    *RateInput `json:"rate_input,omitempty"`
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

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// Request records one request's result.
func (l *EventLog) Request(meta EventMeta, r *openai.StreamResult) {
	if l == nil {
		return
	}
	ev := Event{
		Type: "request", EventMeta: meta,
		Sent: unixNano(r.Sent), FirstToken: unixNano(r.FirstToken), End: unixNano(r.End),
		Tokens: r.Tokens, FinishReason: r.FinishReason, Cancelled: r.Cancelled,
		Status: r.Status, Usage: r.Usage,
	}
	if r.Err != nil {
		ev.Error = r.Err.Error()
	}
	ev.Chunks = make([][2]int64, len(r.Chunks))
	for i, c := range r.Chunks {
		ev.Chunks[i] = [2]int64{int64(c.At.Sub(r.Sent)), int64(c.N)}
	}
	l.write(ev)
}

// Window records a cell's measurement window.
func (l *EventLog) Window(meta EventMeta, w Window) {
	if l == nil {
		return
	}
	l.write(Event{Type: "window", EventMeta: meta, Open: unixNano(w.Open), Close: unixNano(w.Close)})
}

func (l *EventLog) write(ev Event) {
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

// Rescore reads an events log and recomputes every decode cell's figures from the raw
// arrival times: the check that a run document's numbers follow from what was seen.
func Rescore(r io.Reader) ([]DecodeCell, error) {
	type key struct{ ctx, n int }
	results := map[key][]*openai.StreamResult{}
	windows := map[key]Window{}
	var order []key
	br := bufio.NewReaderSize(r, 1<<20)
	dec := json.NewDecoder(br)
	for {
		var ev Event
		if err := dec.Decode(&ev); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("reading events: %w", err)
		}
		if ev.Phase != "decode" {
			continue
		}
		k := key{ev.Context, ev.Concurrency}
		switch ev.Type {
		case "window":
			windows[k] = Window{Open: time.Unix(0, ev.Open), Close: time.Unix(0, ev.Close)}
			order = append(order, k)
		case "request":
			sent := time.Unix(0, ev.Sent)
			res := &openai.StreamResult{
				Sent: sent, Tokens: ev.Tokens, FinishReason: ev.FinishReason,
				Cancelled: ev.Cancelled, Usage: ev.Usage, Status: ev.Status,
			}
			if ev.FirstToken != 0 {
				res.FirstToken = time.Unix(0, ev.FirstToken)
			}
			if ev.End != 0 {
				res.End = time.Unix(0, ev.End)
			}
			if ev.Error != "" {
				res.Err = errors.New(ev.Error)
			}
			for _, c := range ev.Chunks {
				res.Chunks = append(res.Chunks, openai.TokenChunk{At: sent.Add(time.Duration(c[0])), N: int(c[1])})
			}
			results[k] = append(results[k], res)
		}
	}
	var cells []DecodeCell
	for _, k := range order {
		fig, stats, detail := CellFigures(results[k], windows[k])
		cells = append(cells, DecodeCell{Context: k.ctx, Concurrency: k.n, Status: StatusValid,
			DecodeFigures: &fig, WindowStats: &stats, CellDetail: &detail})
	}
	return cells, nil
}
