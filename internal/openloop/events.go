package openloop

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Event is one line of the events log of phase "rate": bench's event with the open
// loop's fields after it.
//   - "request": one open-loop request: the scheduled time latencies are measured
//     from, when a slot let the request go, and the lengths asked;
//   - "rate_cell": what scoring the cell needs besides its requests (RateInput).
type Event struct {
	bench.Event
	Scheduled    int64      `json:"scheduled_ns,omitempty"`
	Slot         int64      `json:"slot_ns,omitempty"`
	InputTarget  int        `json:"input_target,omitempty"`
	OutputTarget int        `json:"output_target,omitempty"`
	RateInput    *RateInput `json:"rate_input,omitempty"`
}

// rateEvent is one open-loop request (phase "rate") as the events log holds it: its
// times and schedule on the run's clock, of the invocation (attempt) that sent it.
func rateEvent(attempt string, cell int, r *RateRequest, c bench.Clock) Event {
	q := bench.RecordOf(r.Result, c)
	return Event{
		Event:     bench.Event{Type: "request", EventMeta: bench.EventMeta{Attempt: attempt, Phase: "rate", Index: r.Index, Cell: cell}, Request: &q},
		Scheduled: c.NS(r.Scheduled), Slot: c.NS(r.Slot), InputTarget: r.InputTarget, OutputTarget: r.OutputTarget,
	}
}

// asLogged is what a cell's requests are as the log holds them: the live run scores
// this form, so that re-scoring the log reproduces its figures exactly.
func asLogged(evs []Event) []RateRequest {
	out := make([]RateRequest, len(evs))
	for i := range evs {
		out[i] = rateRequestOf(&evs[i])
	}
	return out
}

// logRateCell records what scoring an open-loop cell needs besides its requests; it
// follows the cell's requests in the log.
func logRateCell(l *bench.EventLog, attempt string, cell int, in RateInput) {
	l.Append(Event{Event: bench.Event{Type: "rate_cell", EventMeta: bench.EventMeta{Attempt: attempt, Phase: "rate", Cell: cell}}, RateInput: &in})
}

// RescoreRate reads an events log and recomputes every open-loop cell from its raw
// requests through ScoreRate, the live run's own scoring: the check that a run
// document's rate figures follow from what was seen. A cell is scored on the requests
// of its own invocation (a log appended by a run and its --resume holds both), and a
// cell measured again is the later measurement; cells come in the document's order.
func RescoreRate(r io.Reader) ([]rundoc.RateCell, error) {
	scored, err := RescoreRateCells(r)
	if err != nil {
		return nil, err
	}
	cells := make([]rundoc.RateCell, 0, len(scored))
	for _, n := range slices.Sorted(maps.Keys(scored)) {
		cells = append(cells, scored[n])
	}
	return cells, nil
}

// RescoreRateCells is RescoreRate's cells by their number (the document's index + 1),
// as bench.RecheckRun compares them.
func RescoreRateCells(r io.Reader) (map[int]rundoc.RateCell, error) {
	type place struct {
		attempt string
		cell    int
	}
	reqs := map[place][]RateRequest{}
	scored := map[int]rundoc.RateCell{}
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	for {
		var ev Event
		if err := dec.Decode(&ev); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("reading events: %w", err)
		}
		if ev.Phase != "rate" {
			continue
		}
		p := place{ev.Attempt, ev.Cell}
		switch ev.Type {
		case "request":
			reqs[p] = append(reqs[p], rateRequestOf(&ev))
		case "rate_cell":
			if ev.RateInput == nil {
				return nil, fmt.Errorf("events: rate cell %d has no rate_input", ev.Cell)
			}
			scored[ev.Cell] = ScoreRate(reqs[p], *ev.RateInput)
			delete(reqs, p)
		}
	}
	return scored, nil
}

func timeOf(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

func rateRequestOf(ev *Event) RateRequest {
	res := &openai.StreamResult{Outcome: openai.OutcomeIncomplete}
	if ev.Request != nil {
		res = ev.Request.Result()
	}
	return RateRequest{Index: ev.Index, Scheduled: timeOf(ev.Scheduled), Slot: timeOf(ev.Slot),
		InputTarget: ev.InputTarget, OutputTarget: ev.OutputTarget, Result: res}
}
