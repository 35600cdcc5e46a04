package openloop

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/clock"
	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/workload"
)

// Sessions in the open loop: sessions arrive on the cell's schedule (its rate is
// sessions per second), and each then sends its turns one after another, a turn due
// its think time after the reply before it. A turn's latencies are timed from when it
// was due, as every open-loop request's are from its schedule.

// turnFunc starts a session and sends its turns (measure.Sessions).
type turnFunc struct {
	start func() (*workload.Conversation, error)
	send  func(ctx context.Context, conv *workload.Conversation, req workload.TurnRequest, obs openai.Observer) measure.Turn
}

// turnSender sends the cell's sessions to the server.
func (r *Runner) turnSender(s *measure.Sessions) turnFunc {
	return turnFunc{start: s.Start, send: func(ctx context.Context, conv *workload.Conversation, req workload.TurnRequest, obs openai.Observer) measure.Turn {
		return s.Send(ctx, r.Server, conv, req, obs)
	}}
}

// runSessions runs the cell's sessions, one arriving at each of the plan's offsets, and
// returns every turn sent, in the order they were due. Turns a stopped cell (or the
// drain's end) never sent are not requests of it.
func (e *rateExecutor) runSessions(ctx context.Context, plan *RatePlan) []RateRequest {
	reqCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	slots := e.slotQueue()
	var mu sync.Mutex
	var reqs []RateRequest
	done := make(chan int, len(plan.Offsets))
	start := time.Now().Add(e.startDelay)
	sent := dispatch(ctx, start, plan.Offsets, func(i int, at time.Time) {
		go func() {
			defer func() { done <- i }()
			e.session(reqCtx, slots, at, plan.Rate.IsInf(), func(r RateRequest) {
				mu.Lock()
				r.Index = len(reqs)
				reqs = append(reqs, r)
				mu.Unlock()
			})
		}()
	})
	if e.arrivalsDone != nil {
		e.arrivalsDone()
	}
	e.drainFor(ctx, cancel, sent, done)
	mu.Lock()
	defer mu.Unlock()
	sortByScheduled(reqs)
	return reqs
}

// session runs one session that arrived at at: each turn waits until it is due, takes
// a slot where the cell caps them, and is sent; record keeps it.
func (e *rateExecutor) session(ctx context.Context, slots *slotQueue, at time.Time, inf bool, record func(RateRequest)) {
	conv, err := e.turn.start()
	if err != nil {
		record(RateRequest{Scheduled: at, Result: &openai.StreamResult{Outcome: openai.OutcomeFailed, Err: err}})
		return
	}
	due := at
	for !conv.Done() && ctx.Err() == nil {
		req, _ := conv.Next()
		due = due.Add(req.Think)
		if !clock.Until(ctx, due) {
			conv.End()
			return
		}
		r := RateRequest{Scheduled: due}
		slot := slots.enqueue()
		var ok bool
		if r.Slot, ok = takeSlot(ctx, slot, due); !ok {
			conv.End()
			return
		}
		if inf {
			r.Scheduled = r.Slot
		}
		t := e.turn.send(ctx, conv, req, e.obs)
		slots.release(&RateRequest{Result: t.Result})
		r.Result, r.OutputTarget, r.IdealCached, r.Turn = t.Result, t.OutputTarget, t.IdealCached, &t
		record(r)
		due = time.Now()
		if !t.Result.End.IsZero() {
			due = t.Result.End
		}
	}
}

// sortByScheduled orders a cell's requests by when they were due, ties by their
// index (the order they were recorded), and numbers them in that order.
func sortByScheduled(reqs []RateRequest) {
	slices.SortStableFunc(reqs, func(a, b RateRequest) int { return a.Scheduled.Compare(b.Scheduled) })
	for i := range reqs {
		reqs[i].Index = i
	}
}
