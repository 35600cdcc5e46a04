package bench

import (
	"context"
	"fmt"
	"hash/fnv"

	"github.com/llmbench/llmbench/internal/clock"
	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/workload"
)

// A workload in the matrix (docs/workloads.md): a cell's N streams send the
// workload's requests instead of the row's context with a unique tail — a dataset's
// requests in the order the cell's seed drew them, or each stream a user holding a
// conversation for the window, starting the next session when one ends. The window,
// its figures and the rules are the matrix's; the workload adds its own figures
// (measure.ScoreWorkload). A workload's row is context 0: its prompts are its own.

// CellWorkload is what scoring a workload's cell needs beside its requests: the
// sessions' turns (0: not sessions).
type CellWorkload struct {
	Turns int `json:"turns,omitempty"`
}

// datasetRequests is how many requests a cell draws from a dataset (cycled when the
// cell sends more): enough that N streams rarely send one prompt twice.
const datasetRequests = 1024

// source is what a cell's streams send: each call sends stream's next request and
// returns what the client saw (nil: the cell ended before it was sent), and what its
// record carries of the workload.
type source func(ctx context.Context, stream int, obs openai.Observer, keepText bool) (*openai.StreamResult, func(*measure.Request))

// contextSource is the matrix's own: the row's shared context with a unique tail per
// request.
func (r *Runner) contextSource(spec cellSpec) source {
	return func(ctx context.Context, _ int, obs openai.Observer, keepText bool) (*openai.StreamResult, func(*measure.Request)) {
		i := int(spec.reqIndex.Add(1) - 1)
		return r.Server.Send(ctx, spec.pctx.Payload(i), spec.maxOutput, obs, keepText), nil
	}
}

// workloadSource is the cell's source under the run's workload: its dataset's
// requests, or its sessions.
func (r *Runner) workloadSource(ctx context.Context, spec cellSpec, seed uint64) (source, error) {
	w := r.Opts.Workload
	if w.Sessions != nil {
		ss, err := w.NewSessions(ctx, r.builder, seed, spec.maxOutput)
		if err != nil {
			return nil, err
		}
		return sessionSource(r.Server, ss, spec.concurrency), nil
	}
	reqs, err := r.Server.DatasetRequests(ctx, w.Dataset, datasetRequests, seed, spec.maxOutput)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, _ int, obs openai.Observer, keepText bool) (*openai.StreamResult, func(*measure.Request)) {
		q := reqs[int(spec.reqIndex.Add(1)-1)%len(reqs)]
		res := r.Server.Send(ctx, q.Payload, q.Output, obs, keepText)
		return res, func(rec *measure.Request) { rec.InputTarget, rec.OutputTarget = q.Input, q.Output }
	}, nil
}

// sessionSource makes each of n streams a user: it holds a conversation, waits each
// turn's think time after the reply before it, and starts the cell's next session
// when its conversation ends (answered, or a turn failed).
func sessionSource(srv *measure.Server, ss *measure.Sessions, n int) source {
	convs := make([]*workload.Conversation, n+1) // by stream, from 1; a stream's own
	return func(ctx context.Context, stream int, obs openai.Observer, _ bool) (*openai.StreamResult, func(*measure.Request)) {
		conv := convs[stream]
		if conv == nil || conv.Done() {
			var err error
			if conv, err = ss.Start(); err != nil {
				return &openai.StreamResult{Outcome: openai.OutcomeFailed, Err: err}, nil
			}
			convs[stream] = conv
		}
		req, _ := conv.Next()
		if !clock.Sleep(ctx, req.Think) {
			conv.End()
			return nil, nil // the cell ended while the user thought: nothing was sent
		}
		t := ss.Send(ctx, srv, conv, req, obs)
		return t.Result, t.Stamp
	}
}

// cellSeed is a workload cell's seed: the run's, the cell's place and its repeat, so
// that no two cells send the same sessions or draw the same requests in the same order.
func cellSeed(runSeed int64, context, concurrency, repeat int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d/%d/%d", runSeed, context, concurrency, repeat)
	return h.Sum64()
}

// workloadEvidence is what a workload's cell gives the rules beyond the matrix's: a
// user thinking between turns holds its stream as a request in flight does (the
// sessions' think time is the workload's, not streams lost), and a dataset's prompts,
// counted before they were sent, are checked against the server's usage as a rate
// cell's are.
func workloadEvidence(e *measure.Evidence, run *CellRun, wl *CellWorkload) {
	if wl.Turns > 0 && e.AvgInFlight != nil {
		avg := *e.AvgInFlight + thinking(run.Requests, span{run.Open, run.Close}, wl.Turns)
		e.AvgInFlight = &avg
	}
	var prompted, asked, n int
	for i := range run.Requests {
		q := &run.Requests[i]
		if q.InputTarget > 0 && q.Usage != nil && q.Usage.PromptTokens > 0 {
			prompted, asked, n = prompted+q.Usage.PromptTokens, asked+q.InputTarget, n+1
		}
	}
	if n > 0 {
		e.PromptTokens, e.PromptTarget, e.PromptRequests = prompted, asked, n
	}
}

// thinking is how many of the cell's users were thinking on average over the window:
// between a turn's reply and their session's next turn, or after a reply at the
// window's close when their session had turns left.
func thinking(reqs []measure.Request, w span, turns int) float64 {
	if w.close <= w.open {
		return 0
	}
	byStream := map[int][]*measure.Request{}
	for i := range reqs {
		if q := &reqs[i]; q.Session != "" && !q.Calibration {
			byStream[q.Stream] = append(byStream[q.Stream], q)
		}
	}
	var ns int64
	overlap := func(from, to int64) {
		from, to = max(from, w.open), min(to, w.close)
		if to > from {
			ns += to - from
		}
	}
	for _, qs := range byStream {
		for k, q := range qs { // in the order sent (executeCell sorts by Sent)
			if q.End == 0 || !q.Finished() {
				continue
			}
			switch {
			case k+1 < len(qs) && qs[k+1].Session == q.Session:
				overlap(q.End, qs[k+1].Sent)
			case k+1 == len(qs) && q.Turn < turns:
				overlap(q.End, w.close)
			}
		}
	}
	return float64(ns) / float64(w.close-w.open)
}
