package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Runner measures the speed test matrix.
type Runner struct {
	Server *measure.Server
	Opts   measure.Options

	calBase    int
	calPerWord float64
	builder    *prompt.Builder
	clock      measure.Clock
	// dirty says the last measurement was a cell, whose cancelled streams the server
	// may still be aborting.
	dirty bool
	// check is what the run's stream check showed.
	check *rundoc.StreamCheck
	// calibrated holds, per context, the calibration requests the server counted
	// (chunkcalib.go): a row's later cells start from them.
	calibrated map[int][]measure.Request
}

// rowWork is one row of the plan in the order it runs: its shared context, the
// prefill row measured on its cold request (if any) and its decode cells.
type rowWork struct {
	context int
	prefill *rundoc.PrefillRow
	cells   []*rundoc.DecodeCell
}

// Run measures every pending prefill row and decode cell of doc (a planned document, or
// one being resumed), checkpointing after each. On cancellation the work in progress is
// marked interrupted, the document checkpointed, and measure.ErrInterrupted returned. Against a
// server that does not stream, every pending measurement is marked failed and
// ErrNotStreaming returned; against one whose stream check fails on every try, nothing
// is measured and an error wrapping ErrCannotGenerate is returned.
func (r *Runner) Run(ctx context.Context, doc *rundoc.Run) error {
	cfg := doc.Config
	r.builder = &prompt.Builder{API: r.Server.API, Counter: r.Server.Counter, Tokenizer: r.Server.Tokenizer, Document: r.Opts.Document}
	if cfg.Seed != nil {
		r.builder.Seed = *cfg.Seed
	}
	r.clock = measure.NewClock()
	r.Opts.Attempt = r.Opts.AttemptID()
	r.Opts.Events.Attempt(r.Opts.Attempt, r.clock)
	o := &orchestration{r: r, doc: doc}
	o.count()
	if o.done == o.total {
		return nil
	}
	err := measure.Preflight(ctx, r.Server, r.builder, &r.Opts, doc, func(reason string) { failPending(doc, reason) })
	if errors.Is(err, measure.ErrInterrupted) {
		return o.interrupt()
	}
	if err != nil {
		return err
	}
	r.check = doc.StreamCheck
	// With --repeat, the whole plan runs once per repeat (interleaved, so that a
	// server drifting over the run shows as repeats that disagree).
	for o.rep = 0; o.rep < o.repeats(); o.rep++ {
		o.rows = r.plan(doc)
		for o.row = range o.rows {
			if err := o.measureRow(ctx, o.rows[o.row]); err != nil {
				return err
			}
		}
	}
	o.step("done", 0)
	addRepeatNote(doc)
	return nil
}

// plan orders the work: in "separate" mode every prefill row first; in
// "decode-warmup" mode rows by ascending context, each decode row's warm-up doubling
// as its prefill measurement.
func (r *Runner) plan(doc *rundoc.Run) []rowWork {
	cfg := doc.Config
	decodeRows := sortedUnique(cfg.Contexts)
	prefillRow := func(c int) *rundoc.PrefillRow {
		for i := range doc.Prefill {
			if doc.Prefill[i].Context == c {
				return &doc.Prefill[i]
			}
		}
		return nil
	}
	var work []rowWork
	separate := cfg.PrefillMode == "separate"
	if separate {
		for i := range doc.Prefill {
			work = append(work, rowWork{context: doc.Prefill[i].Context, prefill: &doc.Prefill[i]})
		}
	}
	rows := decodeRows
	if !separate {
		rows = sortedUnique(append(slices.Clone(decodeRows), cfg.PrefillContexts...))
	}
	for _, c := range rows {
		w := rowWork{context: c}
		if !separate {
			w.prefill = prefillRow(c)
		}
		if slices.Contains(decodeRows, c) {
			for i := range doc.Decode {
				if doc.Decode[i].Context == c {
					w.cells = append(w.cells, &doc.Decode[i])
				}
			}
		}
		work = append(work, w)
	}
	return work
}

// orchestration is one Run's progress through the plan.
type orchestration struct {
	r           *Runner
	doc         *rundoc.Run
	done, total int
	// measuring is the prefill row whose cold request is in flight, if any.
	measuring *rundoc.PrefillRow
	// rep is the repeat being measured (from 0; repeat.go).
	rep int
	// rows is the repeat's work and row the index of the one being measured, for the
	// cold reads left; coldRate (prompt tokens per second of the last cold read) and
	// coldSpent time them.
	rows      []rowWork
	row       int
	coldRate  float64
	coldSpent time.Duration
}

func (o *orchestration) count() {
	n := o.repeats()
	for i := range o.doc.Prefill {
		if p := &o.doc.Prefill[i]; p.Status != rundoc.StatusOverCapacity {
			o.total += n
			o.done += n - o.prefillLeft(p)
		}
	}
	for i := range o.doc.Decode {
		if c := &o.doc.Decode[i]; c.Status != rundoc.StatusOverCapacity {
			o.total += n
			o.done += n - o.cellLeft(c)
		}
	}
}

func (o *orchestration) step(desc string, expect time.Duration) {
	p := o.r.Opts.Progress
	if p == nil {
		return
	}
	if pp, ok := p.(measure.PlanProgress); ok {
		pp.Left(o.left(expect > 0))
	}
	p.Step(desc, o.done, o.total, expect)
}

// left is the plan's time still to measure: a window for each cell measurement left,
// and the cold reads of the rows left (the current row's too unless its cold read is
// done, as it is once a cell of it runs).
func (o *orchestration) left(coldDone bool) measure.PlanLeft {
	n := 0
	for i := range o.doc.Decode {
		n += o.cellLeft(&o.doc.Decode[i])
	}
	pl := measure.PlanLeft{Windows: time.Duration(n) * o.doc.Config.Duration(), ColdSpent: o.coldSpent}
	from := o.row
	if coldDone {
		from++
	}
	tokens := 0
	for i := from; i < len(o.rows); i++ {
		tokens += o.rows[i].context
	}
	for _, w := range o.rows { // later repeats read every row again
		tokens += (o.repeats() - o.rep - 1) * w.context
	}
	switch {
	case tokens > 0 && o.coldRate > 0:
		pl.Cold = time.Duration(float64(tokens) / o.coldRate * float64(time.Second))
	case tokens > 0:
		pl.ColdUnknown = true
	}
	return pl
}

func (o *orchestration) checkpoint() error { return o.r.Opts.Save(o.doc) }

func (o *orchestration) interrupt() error {
	if o.measuring != nil {
		o.measuring.Status, o.measuring.Reason = rundoc.StatusInterrupted, "the run was stopped during this measurement"
	}
	if err := o.checkpoint(); err != nil {
		return err
	}
	return measure.ErrInterrupted
}

// measureRow measures one row: its cold request (prefill, and the cache warm-up for
// its cells), then each pending cell.
func (o *orchestration) measureRow(ctx context.Context, w rowWork) error {
	r := o.r
	needPrefill := w.prefill != nil && o.prefillPending(w.prefill)
	var pending []*rundoc.DecodeCell
	for _, c := range w.cells {
		if o.cellPending(c) {
			pending = append(pending, c)
		}
	}
	if !needPrefill && len(pending) == 0 {
		return nil
	}
	if ctx.Err() != nil {
		return o.interrupt()
	}
	settle := r.settleAfterCell(ctx)
	if needPrefill {
		o.step(fmt.Sprintf("prefill %s", rundoc.FormatTokens(w.context))+o.repeatLabel(), 0)
		if w.prefill.PrefillIntervals == nil {
			o.measuring = w.prefill // earlier repeats are kept, not marked interrupted
		}
	} else {
		o.step(fmt.Sprintf("warm-up %s", rundoc.FormatTokens(w.context)), 0)
	}
	coldStart := time.Now()
	pctx, pre := r.warmUp(ctx, w.context)
	if ctx.Err() != nil {
		return o.interrupt()
	}
	o.timeCold(w.context, time.Since(coldStart))
	o.measuring = nil
	pre.Settle = settle
	if needPrefill {
		meta := r.meta(measure.EventMeta{Phase: "warmup", Context: w.context, Concurrency: 1, Repeat: o.repeatIndex()})
		logPrefill(r.Opts.Events, meta, pre)
		scored := ScorePrefill(pre)
		r.scorePrefillEnergy(ctx, meta, &scored, &pre.Request)
		if o.repeats() > 1 {
			scored = MergePrefillRepeat(*w.prefill, scored)
		}
		*w.prefill = scored
		o.done++
		if p := r.Opts.Progress; p != nil {
			p.Log(prefillLine(w.prefill))
		}
		if err := o.checkpoint(); err != nil {
			return err
		}
	}
	if pctx == nil {
		reason := "warm-up failed: " + pre.Error
		if pre.Error == "" {
			reason = "warm-up failed: no token arrived"
		}
		for _, c := range pending {
			failed := rundoc.DecodeCell{Context: c.Context, Concurrency: c.Concurrency, Status: rundoc.StatusFailed, Reason: reason}
			if o.repeats() > 1 {
				failed = MergeRepeat(*c, failed)
			}
			*c = failed
			o.done++
		}
		return o.checkpoint()
	}
	reqIndex := new(atomic.Int64)
	reqIndex.Store(1) // request 0 was the warm-up
	warmed := 1
	for _, cell := range pending {
		if ctx.Err() != nil {
			return o.interrupt()
		}
		if o.overCapacity(cell, pctx) {
			continue
		}
		warmed = r.warmSlots(ctx, pctx, cell.Concurrency, warmed, reqIndex)
		if err := o.cell(ctx, cell, pctx, reqIndex); err != nil {
			return err
		}
	}
	return nil
}

// overCapacity marks a cell over capacity once its row's prompt is known to be longer
// than its context (a context of 0 sends the chat template and the request's tail:
// some 90 tokens on llama-server), where that makes a request outgrow a slot,
// max_model_len or the KV cache: such requests would end early at the slot's end, or
// be refused. It reports whether it did.
func (o *orchestration) overCapacity(cell *rundoc.DecodeCell, pctx *prompt.Context) bool {
	if pctx.Actual <= cell.Context || cell.CellIntervals != nil { // a repeat measured is kept
		return false
	}
	reason, _ := o.doc.Capacity.Limits().Check(cell.Context, pctx.Actual, cell.Concurrency, o.doc.Config.MaxOutputTokens)
	if reason == "" {
		return false
	}
	cell.Status, cell.Reason = rundoc.StatusOverCapacity, reason
	cell.DecodeFigures, cell.WindowStats, cell.CellDetail, cell.CellIntervals = nil, nil, nil, nil
	o.done += o.repeats() - o.rep // its later repeats will not run either
	if p := o.r.Opts.Progress; p != nil {
		p.Log(cellLine(cell))
	}
	return true
}

// timeCold records a cold read's time, for the ETA of those left.
func (o *orchestration) timeCold(context int, took time.Duration) {
	o.coldSpent += took
	if context > 0 && took > 0 {
		o.coldRate = float64(context) / took.Seconds()
	}
}

// cell measures one decode cell and scores it.
func (o *orchestration) cell(ctx context.Context, cell *rundoc.DecodeCell, pctx *prompt.Context, reqIndex *atomic.Int64) error {
	r, cfg := o.r, o.doc.Config
	settle := r.settleAfterCell(ctx)
	o.step(fmt.Sprintf("decode %s × %d", rundoc.FormatTokens(cell.Context), cell.Concurrency)+o.repeatLabel(), cfg.Duration())
	spec := cellSpec{context: cell.Context, concurrency: cell.Concurrency, duration: cfg.Duration(),
		maxOutput: cfg.MaxOutputTokens, pctx: pctx, reqIndex: reqIndex, ceiling: o.doc.Client.Ceiling()}
	spec.send = r.contextSource(spec)
	if r.Opts.Workload != nil {
		src, err := r.workloadSource(ctx, spec, cellSeed(deref(cfg.Seed), cell.Context, cell.Concurrency, o.repeatIndex()))
		if err != nil {
			return o.failCell(cell, "preparing the workload: "+err.Error())
		}
		spec.send = src
	}
	run := r.executeCell(ctx, spec)
	r.dirty = true
	if run == nil || ctx.Err() != nil {
		if cell.CellIntervals == nil { // earlier repeats are kept as they were
			cell.Status, cell.Reason = rundoc.StatusInterrupted, "the run was stopped during this cell"
			cell.DecodeFigures, cell.WindowStats, cell.CellDetail = nil, nil, nil
		}
		return o.interrupt()
	}
	run.Settle = settle
	if w := r.Opts.Workload; w != nil {
		run.Workload = &CellWorkload{}
		if w.Sessions != nil {
			run.Workload.Turns = w.Sessions.Turns
		}
	}
	meta := r.meta(measure.EventMeta{Context: cell.Context, Concurrency: cell.Concurrency, Repeat: o.repeatIndex()})
	logCell(r.Opts.Events, meta, run)
	scored := ScoreCell(run)
	if run.Open != 0 {
		r.scoreCellEnergy(ctx, meta, &scored, run)
	}
	if o.repeats() > 1 {
		scored = MergeRepeat(*cell, scored)
	}
	*cell = scored
	o.done++
	if p := r.Opts.Progress; p != nil {
		p.Log(cellLine(cell))
	}
	return o.checkpoint()
}

// failCell marks a cell failed before it ran (its workload could not be prepared).
func (o *orchestration) failCell(cell *rundoc.DecodeCell, reason string) error {
	failed := rundoc.DecodeCell{Context: cell.Context, Concurrency: cell.Concurrency, Status: rundoc.StatusFailed, Reason: reason}
	if o.repeats() > 1 {
		failed = MergeRepeat(*cell, failed)
	}
	*cell = failed
	o.done++
	return o.checkpoint()
}

func deref(p *int64) int64 {
	if p == nil {
		return 1
	}
	return *p
}

// settleAfterCell waits for the server to go idle when the last measurement was a
// cell.
func (r *Runner) settleAfterCell(ctx context.Context) *Settle {
	if !r.dirty {
		return nil
	}
	r.dirty = false
	return r.settle(ctx)
}

func (r *Runner) meta(m measure.EventMeta) measure.EventMeta {
	m.Attempt = r.Opts.Attempt
	return m
}

func cellLine(c *rundoc.DecodeCell) string {
	label := fmt.Sprintf("decode %5s × %-3d", rundoc.FormatTokens(c.Context), c.Concurrency)
	if c.DecodeFigures == nil {
		return fmt.Sprintf("%s  %s: %s", label, c.Status, c.Reason)
	}
	s := fmt.Sprintf("%s  %8.1f tok/s  TTFT %6.0f ms  TBT %5.1f ms  %s", label, c.TotalTokS, c.TTFTMs, c.TBTMs, c.Status)
	if c.Reason != "" {
		s += ": " + c.Reason
	}
	return s
}

// prefillLine is a prefill row's result as the progress display logs it, aligned with
// cellLine's columns.
func prefillLine(p *rundoc.PrefillRow) string {
	label := fmt.Sprintf("prefill %5s     ", rundoc.FormatTokens(p.Context))
	if p.PrefillFigures == nil {
		return fmt.Sprintf("%s  %s: %s", label, p.Status, p.Reason)
	}
	// Prompt tokens per second; no TBT column (prefill streams one token).
	s := fmt.Sprintf("%s  %8.1f tok/s  TTFT %6.0f ms  %12s  %s", label, p.PromptTokS, p.TTFTMs, "", p.Status)
	if p.Reason != "" {
		s += ": " + p.Reason
	}
	return s
}

func sortedUnique(v []int) []int {
	out := slices.Clone(v)
	slices.Sort(out)
	return slices.Compact(out)
}
