package bench

import (
	"io"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Event is one line of the events log as the matrix writes it: the core's event
// (measure.Event: "attempt", "request", "energy") with the matrix's own after it:
//   - "window": a cell's window (Open, Close), kept for older readers;
//   - "cell": what executing a cell produced (Run), with its requests before it;
//   - "prefill": what measuring a prefill row produced (Prefill).
//
// Cells' requests are phase "decode", a row's warm-up requests phase "warmup"; a
// cell's energy is phase "decode", a prefill row's "warmup". RescoreAll scores the log
// with the same functions as the live run.
type Event struct {
	measure.Event
	Open    int64       `json:"open_ns,omitempty"`
	Close   int64       `json:"close_ns,omitempty"`
	Run     *CellRun    `json:"cell_run,omitempty"`
	Prefill *PrefillRun `json:"prefill,omitempty"`
}

// logCell records a cell's execution: its requests, its window, then the rest.
func logCell(l *measure.EventLog, meta measure.EventMeta, run *CellRun) {
	if l == nil {
		return
	}
	meta.Phase = "decode"
	for _, q := range run.Requests {
		l.Request(meta, q)
	}
	if run.Open != 0 {
		l.Append(Event{Event: measure.Event{Type: "window", EventMeta: meta}, Open: run.Open, Close: run.Close})
	}
	l.Append(Event{Event: measure.Event{Type: "cell", EventMeta: meta}, Run: run})
}

// logPrefill records a prefill row's measurement.
func logPrefill(l *measure.EventLog, meta measure.EventMeta, run *PrefillRun) {
	l.Append(Event{Event: measure.Event{Type: "prefill", EventMeta: meta}, Prefill: run})
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
	log, err := measure.ReadLog(r)
	if err != nil {
		return nil, err
	}
	return RescoreLog(log)
}

// place is a measurement of the matrix: a cell (n > 0), a prefill row (n 0) or a
// prefill row's energy (n -1), of a repeat.
type place struct{ ctx, n, rep int }

// rescoring gathers the matrix's measurements from a log, each the last attempt's.
type rescoring struct {
	cells, prefills         map[place]*Event
	cellOrder, prefillOrder []place
	energy                  map[measure.EventMeta]*measure.EnergyInput
}

// RescoreLog recomputes every prefill row and decode cell of a log read once
// (measure.ReadLog).
func RescoreLog(log *measure.Log) (*Rescored, error) {
	rs := &rescoring{cells: map[place]*Event{}, prefills: map[place]*Event{}, energy: map[measure.EventMeta]*measure.EnergyInput{}}
	for i := range log.Events {
		if err := rs.add(&log.Events[i]); err != nil {
			return nil, err
		}
	}
	out := &Rescored{}
	for _, p := range rs.prefillOrder {
		ev := rs.prefills[p]
		pre := ev.Prefill
		row := ScorePrefill(pre)
		if in := rs.energy[energyPlace(ev.Attempt, "warmup", p.ctx, -1, p.rep)]; in != nil {
			ScorePrefillEnergy(&row, &pre.Request, *in)
		}
		out.Prefill = appendRepeat(out.Prefill, p.rep, row,
			func(r *rundoc.PrefillRow) bool { return r.Context == p.ctx }, MergePrefillRepeat)
	}
	for _, p := range rs.cellOrder {
		ev := rs.cells[p]
		run := *ev.Run
		run.Requests = log.Requests(measure.EventMeta{Attempt: ev.Attempt, Phase: "decode", Context: p.ctx, Concurrency: p.n, Repeat: p.rep})
		cell := ScoreCell(&run)
		if in := rs.energy[energyPlace(ev.Attempt, "decode", p.ctx, p.n, p.rep)]; in != nil && run.Open != 0 {
			ScoreCellEnergy(&cell, &run, *in)
		}
		out.Decode = appendRepeat(out.Decode, p.rep, cell,
			func(c *rundoc.DecodeCell) bool { return c.Context == p.ctx && c.Concurrency == p.n }, MergeRepeat)
	}
	return out, nil
}

// energyPlace is where an energy event is filed: a prefill row's under concurrency -1.
func energyPlace(attempt, phase string, ctx, n, rep int) measure.EventMeta {
	if phase == "warmup" {
		n = -1
	}
	return measure.EventMeta{Attempt: attempt, Context: ctx, Concurrency: n, Repeat: rep}
}

// add files one of the log's events other than requests.
func (rs *rescoring) add(e *measure.Event) error {
	if e.Type == "energy" {
		if e.Energy != nil {
			rs.energy[energyPlace(e.Attempt, e.Phase, e.Context, e.Concurrency, e.Repeat)] = e.Energy
		}
		return nil
	}
	if e.Type != "window" && e.Type != "cell" && e.Type != "prefill" {
		return nil
	}
	ev := &Event{}
	if err := e.Decode(ev); err != nil {
		return err
	}
	p := place{ev.Context, ev.Concurrency, ev.Repeat}
	switch ev.Type {
	case "window":
		// Logs written before cell events: score the window with what is known.
		if prev, ok := rs.cells[p]; !ok || prev.Attempt == ev.Attempt {
			if !ok {
				rs.cellOrder = append(rs.cellOrder, p)
			}
			ev.Run = &CellRun{Context: ev.Context, Concurrency: ev.Concurrency, Open: ev.Open, Close: ev.Close, DurationS: float64(ev.Close-ev.Open) / 1e9}
			rs.cells[p] = ev
		}
	case "cell":
		if ev.Run == nil {
			return nil
		}
		if _, ok := rs.cells[p]; !ok {
			rs.cellOrder = append(rs.cellOrder, p)
		}
		rs.cells[p] = ev
	case "prefill":
		if ev.Prefill == nil {
			return nil
		}
		pp := place{ev.Prefill.Context, 0, ev.Repeat}
		if _, ok := rs.prefills[pp]; !ok {
			rs.prefillOrder = append(rs.prefillOrder, pp)
		}
		rs.prefills[pp] = ev
	}
	return nil
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
