package openloop

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Event is one line of the events log as the open loop writes it: the core's event
// (measure.Event) with the open loop's own after it. Its requests are the core's
// "request" events of phase "rate", each with its schedule (measure.Request's
// Scheduled, Slot and lengths asked); after a cell's requests:
//   - "rate_cell": what scoring the cell needs besides its requests (RateInput).
//
// A cell's shared-prefix warm-up is a "request" of phase "warmup".
type Event struct {
	measure.Event
	RateInput *RateInput `json:"rate_input,omitempty"`
}

// logRateCell records what scoring an open-loop cell needs besides its requests; it
// follows the cell's requests in the log.
func logRateCell(l *measure.EventLog, attempt string, cell int, in RateInput) {
	l.Append(Event{Event: measure.Event{Type: "rate_cell", EventMeta: measure.EventMeta{Attempt: attempt, Phase: "rate", Cell: cell}}, RateInput: &in})
}

// RescoreRate reads an events log and recomputes every open-loop cell from its raw
// requests through ScoreRate, the live run's own scoring: the check that a run
// document's rate figures follow from what was seen. A cell is scored on the requests
// of its own invocation (a log appended by a run and its --resume holds both), and a
// cell measured again is the later measurement; cells come in the document's order.
func RescoreRate(r io.Reader) ([]rundoc.RateCell, error) {
	log, err := measure.ReadLog(r)
	if err != nil {
		return nil, err
	}
	scored, err := RescoreLog(log)
	cells := make([]rundoc.RateCell, 0, len(scored))
	for _, n := range slices.Sorted(maps.Keys(scored)) {
		cells = append(cells, scored[n])
	}
	return cells, err
}

// RescoreLog is RescoreRate's cells of a log read once (measure.ReadLog), by their
// number (the document's index + 1).
func RescoreLog(log *measure.Log) (map[int]rundoc.RateCell, error) {
	scored := map[int]rundoc.RateCell{}
	for i := range log.Events {
		e := &log.Events[i]
		if e.Phase != "rate" || e.Type != "rate_cell" {
			continue
		}
		var ev Event
		if err := e.Decode(&ev); err != nil {
			return nil, err
		}
		if ev.RateInput == nil {
			return nil, fmt.Errorf("events: rate cell %d has no rate_input", ev.Cell)
		}
		scored[ev.Cell] = ScoreRate(log.Requests(ev.Place()), *ev.RateInput)
	}
	return scored, nil
}
