package bench

import (
	"context"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// A server that counts a request's tokens only when it ends (usage on the finish, no
// per-chunk count, no tokenize route: Ollama) leaves a window of requests that outlast
// it (8,192 output tokens at 50 tok/s take minutes) with nothing but the client's one
// per chunk: unverified, or estimated from too few finished requests to bound. Its
// count then rests on the tokens per chunk of requests it finished; so, after the
// window, the cell sends short requests on its own prompts at its concurrency until
// they bound the count (and TPOT) within calibrationTarget, or calibrationBudget is
// spent. They are part of the cell's record, marked calibration, outside its window:
// they weigh in the ratio and its bound (boundCounts), in no figure.
const (
	// A calibration request asks for what a stream of the cell writes in half the
	// budget, within these bounds, in whole multiples of calibrationStep: long, so that
	// its ends (a first chunk unlike the rest, a last one cut by max_tokens) weigh
	// little in its count (endEffect), and a multiple of every chunk size from 1 to 6,
	// so that a server chunking regularly (a speculative step of 4) cuts no chunk.
	calibrationTokens    = 480
	calibrationMinTokens = 240
	calibrationStep      = 120
	// The budget is the cell's duration, within these bounds.
	calibrationMinBudget = 10 * time.Second
	calibrationBudget    = 30 * time.Second
	calibrationTarget    = measure.MaxCountBound / 2
	// calibrationKept bounds the counted calibration requests a row carries over.
	calibrationKept = 512
)

// calibrationLength is the max_tokens of a calibration request: what a stream of the
// cell wrote in half of budget, counting one token a chunk (a server's chunks hold at
// least one, so the request takes no longer than that), within the bounds. A cell
// slower than that still tries the shortest: a wave the budget cuts short counts
// nothing, and calibration stops.
func calibrationLength(run *CellRun, budget time.Duration) int {
	if run.MaxOutput <= calibrationMinTokens {
		return run.MaxOutput
	}
	secs := float64(run.Close-run.Open) / 1e9
	chunks := 0
	w := span{run.Open, run.Close}
	for i := range run.Requests[:measuredRequests(run.Requests)] {
		in, _ := clientSplit(&run.Requests[i], w)
		chunks += in
	}
	n := 0
	if secs > 0 && run.Concurrency > 0 {
		n = int(float64(chunks) / secs / float64(run.Concurrency) * budget.Seconds() / 2)
	}
	n = n / calibrationStep * calibrationStep
	return min(max(n, calibrationMinTokens), calibrationTokens, run.MaxOutput)
}

// calibrateChunks runs the calibration waves a cell needs (countShortfall), starting
// from those its row's earlier cells had counted (the same prompts, the same model:
// the same text), until the target or the budget; it stops sooner when three waves
// in a row do not tighten the bound at all: what a cut stream's few chunks leave
// uncertain (tpotBound's token of rounding) does not shrink with more requests.
func (r *Runner) calibrateChunks(ctx context.Context, spec cellSpec, run *CellRun, keepText bool) {
	if _, need := countShortfall(run); !need {
		return
	}
	for _, q := range r.calibrated[spec.context] {
		run.Requests = append(run.Requests, q)
	}
	defer func() { r.keepCalibration(spec.context, run) }()
	short, need := countShortfall(run)
	if !need {
		return
	}
	budget := min(max(spec.duration, calibrationMinBudget), calibrationBudget)
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	maxTokens := calibrationLength(run, budget)
	stale := 0
	for ctx.Err() == nil {
		wave := make([]*openai.StreamResult, spec.concurrency)
		var wg sync.WaitGroup
		for s := range wave {
			wg.Add(1)
			go func() {
				defer wg.Done()
				i := int(spec.reqIndex.Add(1) - 1)
				wave[s] = r.Server.Send(ctx, spec.pctx.Payload(i), maxTokens, nil, keepText)
			}()
		}
		wg.Wait()
		counted := false
		for _, res := range wave {
			q := measure.RecordOf(res, r.clock)
			q.Calibration = true
			run.Requests = append(run.Requests, q)
			counted = counted || (q.Finished() && q.Usage != nil && q.Usage.CompletionTokens > 0)
		}
		if !counted {
			return // a server that counts nothing at the end is not helped by more
		}
		before := short
		if short, need = countShortfall(run); !need {
			return
		}
		if short >= 0.99*before {
			stale++
		} else {
			stale = 0
		}
		if stale == 3 {
			return
		}
	}
}

// keepCalibration keeps the counted calibration requests of run for its row's later
// cells (at most calibrationKept, the latest).
func (r *Runner) keepCalibration(context int, run *CellRun) {
	var kept []measure.Request
	for _, q := range run.Requests[measuredRequests(run.Requests):] {
		if q.Finished() && q.Usage != nil && q.Usage.CompletionTokens > 0 {
			kept = append(kept, q)
		}
	}
	if r.calibrated == nil {
		r.calibrated = map[int][]measure.Request{}
	}
	r.calibrated[context] = kept[max(0, len(kept)-calibrationKept):]
}

// countShortfall says whether a measured cell's count rests on too little — none of
// its requests counted by the server (short is then +Inf), or the estimate bounded
// only beyond calibrationTarget (short is the larger of the count's and TPOT's
// bounds) — and so needs calibration. A server that counts every chunk needs none.
func countShortfall(run *CellRun) (short float64, need bool) {
	if run.Open == 0 || slices.ContainsFunc(run.Requests, func(q measure.Request) bool { return q.ChunkUsage }) {
		return 0, false
	}
	c := resolveCounts(run.Requests)
	win := span{run.Open, run.Close}
	n := measuredRequests(run.Requests)
	w := cellFigures(run.Requests[:n], c.head(n), win)
	if slices.Contains(w.sources, rundoc.CountClientOnly) {
		return math.Inf(1), true
	}
	b := boundCounts(run.Requests, c, win, w.stats.OutputTokens)
	if !b.estimated {
		return 0, false
	}
	if !b.ok {
		return math.Inf(1), true
	}
	short = max(b.rel, tpotBound(run.Requests, c, win, b))
	return short, short > calibrationTarget
}

// measuredRequests is how many of a cell's requests were the cell's own: the
// calibration requests come after them.
func measuredRequests(reqs []measure.Request) int {
	n := len(reqs)
	for n > 0 && reqs[n-1].Calibration {
		n--
	}
	return n
}

// head is the counting of the first n requests (the ratio is all of them's).
func (c counting) head(n int) counting {
	return counting{counts: c.counts[:n], source: c.source[:n], ratio: c.ratio}
}
