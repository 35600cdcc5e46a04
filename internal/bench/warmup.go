package bench

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// warmUp builds the row's shared context and sends its cold first request (one output
// token): its TTFT is the prefill time, and it warms the prefix cache for the row's
// cells. A request that does not succeed is retried under the retry policy, each time
// with a new nonce so that the retry is cold too, until the policy's budget is spent.
// Without an exact counter, a prompt that missed its size by more than 1% is rebuilt
// from the server's own count, at most twice.
func (r *Runner) warmUp(ctx context.Context, context int) (*prompt.Context, *PrefillRun) {
	run := &PrefillRun{Context: context}
	policy := r.Opts.RetryPolicy()
	started := time.Now()
	perWord := r.calPerWord
	failures, corrections := 0, 0
	for {
		run.Attempts++
		pctx, res, err := r.coldRequest(ctx, context, perWord)
		if perWord == 0 {
			perWord = r.calPerWord // calibrated by the first attempt
		}
		if ctx.Err() != nil {
			return nil, run
		}
		if err == nil && res.NotStreamed {
			run.Request, run.Error = measure.RecordOf(res, r.clock), openai.ErrNotStreamed.Error()
			return nil, run
		}
		if err == nil && res.Outcome.Success() {
			run.Request = measure.RecordOf(res, r.clock)
			if res.Usage != nil && res.Usage.PromptTokens > 0 {
				pctx.Actual = res.Usage.PromptTokens
			}
			if r.Server.Exact || context == 0 || res.Usage == nil || measure.RelDiff(pctx.Actual, context) <= 0.01 || corrections >= 2 {
				return pctx, run
			}
			// Sized from a ratio: the server's own count of this request corrects it.
			corrections++
			words := float64(context-r.calBase) / perWord
			perWord = float64(pctx.Actual-r.calBase) / words
			slog.Debug("prompt length corrected", "context", context, "got", pctx.Actual, "perWord", perWord)
			continue
		}
		var retryAfter time.Duration
		if err == nil {
			run.Request = measure.RecordOf(res, r.clock)
			err, retryAfter = res.Err, res.RetryAfter
		} else {
			var herr *openai.HTTPError
			if errors.As(err, &herr) {
				retryAfter = herr.RetryAfter
			}
		}
		failures++
		if time.Since(started) > policy.Budget {
			run.Error = fmt.Sprintf("cold request of %s tokens: %v (%d attempts in %.0f s)", rundoc.FormatTokens(context), err, run.Attempts, time.Since(started).Seconds())
			return nil, run
		}
		if !policy.Wait(ctx, failures, retryAfter) {
			return nil, run
		}
	}
}

// coldRequest builds the row's context with a new nonce and sends its request 0 for
// one token. The request is logged.
func (r *Runner) coldRequest(ctx context.Context, context int, perWord float64) (*prompt.Context, *openai.StreamResult, error) {
	nonce := r.nonce(context)
	var pctx *prompt.Context
	var err error
	if r.Server.Exact || context == 0 {
		pctx, err = r.builder.Build(ctx, context, nonce)
	} else {
		if r.calPerWord == 0 {
			if r.calBase, r.calPerWord, err = r.builder.Calibrate(ctx); err != nil {
				r.calPerWord = 0
				return nil, nil, err
			}
		}
		if perWord == 0 {
			perWord = r.calPerWord
		}
		pctx = r.builder.Estimate(context, nonce, r.calBase, perWord)
	}
	if err != nil {
		return nil, nil, err
	}
	res := r.Server.Send(ctx, pctx.Payload(0), 1, nil, false)
	r.Opts.Events.Request(r.meta(measure.EventMeta{Phase: "warmup", Context: context, Concurrency: 1}), measure.RecordOf(res, r.clock))
	return pctx, res, nil
}

// nonce starts a shared context. Its first characters are random, so that no two
// contexts share a prefix past the chat template (engines that cache at token rather
// than block granularity, like llama.cpp, would reuse even a few common tokens).
func (r *Runner) nonce(context int) string {
	return fmt.Sprintf("[%08x %s %d]", rand.Uint32(), r.Opts.Nonce, context)
}

// warmSlots fills the prompt cache of every slot a cell of n streams will use, where
// the server keeps one per slot (Server.SlotCaches): the row's warm-up filled one, and
// each of the cell's other streams would otherwise prefill the whole context inside
// the window. It sends one single-token request of the row's context per slot, all
// at once so that each takes a slot of its own (or, where a request can name its
// slot, in each slot by name); a slot already warm answers from its cache. warmed is
// how many slots are warm already; it returns how many are now. The requests are
// logged as warm-ups and measure nothing.
func (r *Runner) warmSlots(ctx context.Context, pctx *prompt.Context, n, warmed int, reqIndex *atomic.Int64) int {
	want := n
	switch slots := r.Server.SlotCaches; {
	case slots == 0:
		return warmed
	case slots > 0:
		want = min(n, slots)
	}
	if want <= warmed {
		return warmed
	}
	var wg sync.WaitGroup
	for k := range want {
		i := int(reqIndex.Add(1) - 1)
		var slot *int
		if r.Server.PinSlots {
			slot = openai.Ptr(k)
		}
		wg.Go(func() {
			res := r.Server.SendIn(ctx, pctx.Payload(i), 1, nil, false, slot)
			r.Opts.Events.Request(r.meta(measure.EventMeta{Phase: "warmup", Context: pctx.Target, Concurrency: want}), measure.RecordOf(res, r.clock))
		})
	}
	wg.Wait()
	return want
}
