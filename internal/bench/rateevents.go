package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/llmbench/llmbench/internal/openai"
)

// RateRequest records one open-loop request (phase "rate") with its schedule.
func (l *EventLog) RateRequest(cell int, r *RateRequest) {
	if l == nil || r.Result == nil {
		return
	}
	q := RecordOf(r.Result, Clock{}) // wall-clock nanoseconds
	ev := Event{
		Type: "request", EventMeta: EventMeta{Phase: "rate", Index: r.Index, Cell: cell}, Request: &q,
		Scheduled: unixNano(r.Scheduled), Slot: unixNano(r.Slot), InputTarget: r.InputTarget, OutputTarget: r.OutputTarget,
	}
	l.write(ev)
}

// RateCell records what scoring an open-loop cell needs besides its requests; it
// follows the cell's requests in the log.
func (l *EventLog) RateCell(cell int, in RateInput) {
	if l == nil {
		return
	}
	l.write(Event{Type: "rate_cell", EventMeta: EventMeta{Phase: "rate", Cell: cell}, RateInput: &in})
}

// RescoreRate reads an events log and recomputes every open-loop cell from its raw
// requests through ScoreRate, the live run's own scoring: the check that a run
// document's rate figures follow from what was seen.
func RescoreRate(r io.Reader) ([]RateCell, error) {
	reqs := map[int][]RateRequest{}
	var cells []RateCell
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
		switch ev.Type {
		case "request":
			reqs[ev.Cell] = append(reqs[ev.Cell], rateRequestOf(&ev))
		case "rate_cell":
			if ev.RateInput == nil {
				return nil, fmt.Errorf("events: rate cell %d has no rate_input", ev.Cell)
			}
			cells = append(cells, ScoreRate(reqs[ev.Cell], *ev.RateInput))
		}
	}
	return cells, nil
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
		res = ev.Request.result()
	}
	return RateRequest{Index: ev.Index, Scheduled: timeOf(ev.Scheduled), Slot: timeOf(ev.Slot),
		InputTarget: ev.InputTarget, OutputTarget: ev.OutputTarget, Result: res}
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
