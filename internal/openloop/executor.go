package openloop

import (
	"context"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/prompt"
)

// sendFunc sends one request and returns what the client saw. It is the one seam
// between the open-loop executor and the wire: a richer request executor (outcomes,
// retries) replaces it without touching the schedule or the scoring.
type sendFunc func(ctx context.Context, p prompt.Payload, maxTokens int, obs openai.Observer) *openai.StreamResult

// RateRequest is one request of a rate cell as the executor saw it, on the wall
// clock. Scheduled is the time every latency is measured from: its place on the
// schedule, or, at rate inf (no schedule), when its slot let it go.
type RateRequest struct {
	Index        int
	Scheduled    time.Time
	Slot         time.Time // when it could be sent: Scheduled, or later when it waited for a slot
	InputTarget  int       // prompt tokens asked
	OutputTarget int       // output tokens asked
	// IdealCached is the request's ideal cache hits, where its workload says; Turn
	// the session's turn it was (nil: not a session's).
	IdealCached *int
	Turn        *measure.Turn
	Result      *openai.StreamResult
}

// Record is the request as it is scored and logged: the core's record, its times
// and schedule on c.
func (r *RateRequest) Record(c measure.Clock) measure.Request {
	q := measure.RecordOf(r.Result, c)
	q.Index, q.Scheduled, q.Slot = r.Index, c.NS(r.Scheduled), c.NS(r.Slot)
	q.InputTarget, q.OutputTarget, q.IdealCached = r.InputTarget, r.OutputTarget, r.IdealCached
	if r.Turn != nil {
		r.Turn.Stamp(&q)
	}
	return q
}

// Records are a cell's requests as they are scored and logged (RateRequest.Record).
func Records(reqs []RateRequest, c measure.Clock) []measure.Request {
	out := make([]measure.Request, len(reqs))
	for i := range reqs {
		out[i] = reqs[i].Record(c)
	}
	return out
}

// rateExecutor runs one cell's schedule open loop: each request is sent at its
// scheduled time whatever happened to the others (no request waits for another
// unless maxConcurrency caps those in flight), then the cell waits up to drain for
// the requests still in flight and cancels the rest.
type rateExecutor struct {
	send           sendFunc
	maxConcurrency int
	drain          time.Duration
	obs            openai.Observer
	// startDelay leaves time between planning and the first send, so the first
	// request is not late against its own schedule.
	startDelay time.Duration
	// arrivalsDone, if set, is called when the last request has been dispatched.
	arrivalsDone func()
	// turn sends a session's turns (sessions.go), where the cell's requests are
	// sessions.
	turn turnFunc
}

// run executes plan with the given prompts (and their ideal cache hits, nil where
// the workload says none) and returns every request (in schedule order) and the cell's
// start. Requests never sent (the run was stopped) have a cancelled result and no send
// time.
func (e *rateExecutor) run(ctx context.Context, plan *RatePlan, payloads []prompt.Payload, ideal []*int) ([]RateRequest, time.Time) {
	reqCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	slots := e.slotQueue()
	reqs := make([]RateRequest, len(plan.Offsets))
	done := make(chan int, len(reqs))
	start := time.Now().Add(e.startDelay)
	sent := dispatch(ctx, start, plan.Offsets, func(i int, at time.Time) {
		reqs[i] = RateRequest{Index: i, Scheduled: at, InputTarget: plan.Input[i], OutputTarget: plan.Output[i]}
		if ideal != nil {
			reqs[i].IdealCached = ideal[i]
		}
		// The dispatcher takes requests' places in the slot queue itself, in schedule
		// order: a request whose goroutine starts late still gets the next slot.
		slot := slots.enqueue()
		go func(r *RateRequest, p prompt.Payload) {
			defer func() { done <- r.Index }()
			var ok bool
			if r.Slot, ok = takeSlot(reqCtx, slot, r.Scheduled); !ok {
				r.Result = &openai.StreamResult{Cancelled: true, End: time.Now()}
				return
			}
			defer slots.release(r)
			if plan.Rate.IsInf() {
				r.Scheduled = r.Slot
			}
			r.Result = e.send(reqCtx, p, r.OutputTarget, e.obs)
		}(&reqs[i], payloads[i])
	})
	if e.arrivalsDone != nil {
		e.arrivalsDone()
	}
	// Requests the stopped run never sent are recorded as such.
	for i := sent; i < len(reqs); i++ {
		reqs[i] = RateRequest{Index: i, Scheduled: start.Add(plan.Offsets[i]), InputTarget: plan.Input[i], OutputTarget: plan.Output[i],
			Result: &openai.StreamResult{Cancelled: true}}
	}
	e.drainFor(ctx, cancel, sent, done)
	return reqs, start
}

// dispatch calls send for each offset at its time from start, in order, and returns
// how many it called before ctx ended.
func dispatch(ctx context.Context, start time.Time, offsets []time.Duration, send func(i int, at time.Time)) int {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for i, off := range offsets {
		at := start.Add(off)
		if wait := time.Until(at); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				return i
			}
		}
		send(i, at)
	}
	return len(offsets)
}

// drainFor waits for the sent requests (each a value on done) for up to the drain
// after the last arrival, then cancels those still in flight: they end unfinished.
func (e *rateExecutor) drainFor(ctx context.Context, cancel context.CancelFunc, sent int, done <-chan int) {
	drain := time.NewTimer(e.drain)
	defer drain.Stop()
	stopped := ctx.Done()
	for left := sent; left > 0; {
		select {
		case <-done:
			left--
		case <-drain.C:
			cancel()
		case <-stopped:
			stopped = nil
			cancel()
		}
	}
}

// slotQueue is the cell's client-side cap on requests in flight (nil: none).
func (e *rateExecutor) slotQueue() *slotQueue {
	if e.maxConcurrency <= 0 {
		return nil
	}
	return newSlotQueue(e.maxConcurrency)
}

// takeSlot waits for a request's slot (nil: no cap) and says when the request could
// go: its scheduled time when a slot was free, else when one was released. So Slot −
// Scheduled is the wait for a slot, and Sent − Slot the client's own lateness (timer,
// goroutine start, hand-over, encoding). False: the cell was stopped first.
func takeSlot(ctx context.Context, slot <-chan time.Time, scheduled time.Time) (time.Time, bool) {
	if slot == nil {
		return scheduled, true
	}
	select {
	case freed := <-slot:
		if freed.After(scheduled) {
			return freed, true
		}
		return scheduled, true
	case <-ctx.Done():
		return time.Time{}, false
	}
}

// slotQueue hands the client's concurrency slots to requests first come, first
// served in schedule order, each with the time the slot was released (a request that
// waited could go from that instant, so the client's delay in handing it over is its
// send lag, not part of the wait).
type slotQueue struct {
	mu      sync.Mutex
	free    []time.Time
	waiting []chan time.Time
}

func newSlotQueue(n int) *slotQueue {
	return &slotQueue{free: make([]time.Time, n)}
}

// enqueue takes the next place in line; the channel delivers the slot (nil for a nil
// queue: no cap).
func (q *slotQueue) enqueue() <-chan time.Time {
	if q == nil {
		return nil
	}
	ch := make(chan time.Time, 1)
	q.mu.Lock()
	defer q.mu.Unlock()
	if n := len(q.free); n > 0 {
		ch <- q.free[n-1]
		q.free = q.free[:n-1]
	} else {
		q.waiting = append(q.waiting, ch)
	}
	return ch
}

// release gives r's slot back when r has ended (at its end, or now when it has
// none), to the first in line if anyone waits; nothing for a nil queue. A waiter that
// gave up (the cell was stopped) keeps its slot: nothing is dispatched after that.
func (q *slotQueue) release(r *RateRequest) {
	if q == nil {
		return
	}
	at := time.Now()
	if r.Result != nil && !r.Result.End.IsZero() {
		at = r.Result.End
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiting) > 0 {
		q.waiting[0] <- at
		q.waiting = q.waiting[1:]
		return
	}
	q.free = append(q.free, at)
}
