package bench

import (
	"context"
	"time"

	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/prompt"
)

// sendFunc sends one request and returns what the client saw. It is the one seam
// between the open-loop executor and the wire: a richer request executor (outcomes,
// retries) replaces it without touching the schedule or the scoring.
type sendFunc func(ctx context.Context, p prompt.Payload, maxTokens int, obs openai.Observer) *openai.StreamResult

// RateRequest is one request of a rate cell as the executor saw it. Scheduled is the
// time every latency is measured from: its place on the schedule, or, at rate inf
// (no schedule), when its slot let it go.
type RateRequest struct {
	Index        int
	Scheduled    time.Time
	Slot         time.Time // when it could be sent: Scheduled, or later when it waited for a slot
	InputTarget  int       // prompt tokens asked
	OutputTarget int       // output tokens asked
	Result       *openai.StreamResult
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
}

// run executes plan with the given prompts and returns every request (in schedule
// order) and the cell's start. Requests never sent (the run was stopped) have a
// cancelled result and no send time.
func (e *rateExecutor) run(ctx context.Context, plan *RatePlan, payloads []prompt.Payload) ([]RateRequest, time.Time) {
	reqCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var slots chan struct{}
	if e.maxConcurrency > 0 {
		slots = make(chan struct{}, e.maxConcurrency)
	}
	reqs := make([]RateRequest, len(plan.Offsets))
	done := make(chan int, len(reqs))
	start := time.Now().Add(e.startDelay)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	sent := 0
dispatch:
	for i, off := range plan.Offsets {
		at := start.Add(off)
		if wait := time.Until(at); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				break dispatch
			}
		}
		reqs[i] = RateRequest{Index: i, Scheduled: at, InputTarget: plan.Input[i], OutputTarget: plan.Output[i]}
		sent++
		go func(r *RateRequest, p prompt.Payload) {
			defer func() { done <- r.Index }()
			// Slot is when the request could go: its scheduled time when a slot was
			// free, else when one freed. So Slot − Scheduled is the wait for a slot, and
			// Sent − Slot the client's own lateness (timer, goroutine start, encoding).
			r.Slot = r.Scheduled
			if slots != nil {
				select {
				case slots <- struct{}{}:
				default:
					select {
					case slots <- struct{}{}:
						r.Slot = time.Now()
					case <-reqCtx.Done():
						r.Slot = time.Time{}
						r.Result = &openai.StreamResult{Cancelled: true, End: time.Now()}
						return
					}
				}
				defer func() { <-slots }()
			}
			if plan.Rate.IsInf() {
				r.Scheduled = r.Slot
			}
			r.Result = e.send(reqCtx, p, r.OutputTarget, e.obs)
		}(&reqs[i], payloads[i])
	}
	if e.arrivalsDone != nil {
		e.arrivalsDone()
	}
	// Requests the stopped run never sent are recorded as such.
	for i := sent; i < len(reqs); i++ {
		reqs[i] = RateRequest{Index: i, Scheduled: start.Add(plan.Offsets[i]), InputTarget: plan.Input[i], OutputTarget: plan.Output[i],
			Result: &openai.StreamResult{Cancelled: true}}
	}
	drain := time.NewTimer(e.drain)
	defer drain.Stop()
	stopped := ctx.Done()
	for left := sent; left > 0; {
		select {
		case <-done:
			left--
		case <-drain.C:
			cancel() // the requests still in flight end as cancelled: unfinished
		case <-stopped:
			stopped = nil
			cancel()
		}
	}
	return reqs, start
}

// tokenObserver feeds a live display with tokens as they stream in.
type tokenObserver struct{ progress Progress }

func (o tokenObserver) FirstToken(time.Time) {}

func (o tokenObserver) Tokens(_ time.Time, n int) {
	if o.progress != nil {
		o.progress.Tokens(n)
	}
}
