package openloop

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/workload"
)

// A workload's cell (docs/workloads.md): the schedule is the cell's arrivals as
// ever (or, for a replay, the file's timestamps), and the prompts are the workload's
// instead of random words. What is sent is decided before the first request, from the
// cell's seed, as every cell's plan is.

// prepareWorkload fills pc's prompts from the workload: sessions (one arriving at each
// of the schedule's times), a dataset's requests, or random words under a pool of
// shared system prompts.
func (r *Runner) prepareWorkload(ctx context.Context, w *measure.Workload, pc *preparedCell, cfg *rundoc.RateConfig, b *prompt.Builder) error {
	plan := pc.plan
	switch {
	case w.Sessions != nil:
		var err error
		pc.sessions, err = w.NewSessions(ctx, b, pc.seed, cfg.OutputLen)
		return err
	case w.Dataset != nil:
		reqs, err := r.Server.DatasetRequests(ctx, w.Dataset, len(plan.Offsets), pc.seed, cfg.OutputLen)
		if err != nil {
			return err
		}
		pc.payloads = make([]prompt.Payload, len(reqs))
		for i, q := range reqs {
			pc.payloads[i], plan.Input[i], plan.Output[i] = q.Payload, q.Input, q.Output
		}
		return nil
	case w.Pool != nil:
		return r.poolPrompts(ctx, w, pc, b)
	}
	return errors.New("the workload sends nothing")
}

// poolPrompts builds the cell's prompts under a pool of shared system prompts: each
// request draws one (workload.PrefixPool.Assign) and its prompt starts with it, the
// rest its own random words. The prompts of one pool prompt are built together, as a
// cell's prompts under a shared prefix are (prompt.Builder.Unique), from a seed of
// their own.
func (r *Runner) poolPrompts(ctx context.Context, w *measure.Workload, pc *preparedCell, b *prompt.Builder) error {
	plan := pc.plan
	assign, err := w.Pool.Assign(len(plan.Offsets), pc.seed)
	if err != nil {
		return err
	}
	groups := make([][]int, w.Pool.Prompts)
	for i, k := range assign {
		groups[k] = append(groups[k], i)
	}
	pc.payloads = make([]prompt.Payload, len(assign))
	for k, idx := range groups {
		if len(idx) == 0 {
			continue
		}
		lengths := make([]int, len(idx))
		for j, i := range idx {
			lengths[j] = max(plan.Input[i], w.Pool.Tokens+1)
		}
		set, err := b.Unique(ctx, lengths, w.Pool.Tokens, pc.seed^uint64(k+1)*0x9e3779b97f4a7c15, r.Server.Exact)
		if err != nil {
			return fmt.Errorf("building prompts: %w", err)
		}
		pc.overhead = set.Overhead
		for j, i := range idx {
			pc.payloads[i] = set.Payloads[j]
			plan.Input[i] = lengths[j]
			if set.Exact {
				plan.Input[i] = set.Lengths[j]
			}
		}
	}
	ideal := w.Pool.IdealCached(assign, w.Block, 0)
	pc.ideal = make([]*int, len(ideal))
	for i := range ideal {
		pc.ideal[i] = &ideal[i]
	}
	return nil
}

// prepareReplay plans a replay: a Mooncake trace's or a fixed schedule's requests
// (the first cfg.Requests of them, or all) sent on their timestamps, Speed times
// faster.
func (r *Runner) prepareReplay(ctx context.Context, w *measure.Workload, rate rundoc.Rate, cfg *rundoc.RateConfig, b *prompt.Builder, seed uint64) (*preparedCell, error) {
	pc := &preparedCell{arr: rundoc.Arrival{Kind: rundoc.ArrivalTrace}, seed: seed}
	var err error
	if w.Trace != nil {
		err = r.traceRequests(ctx, w, pc, cfg.Requests, b)
	} else {
		err = r.scheduleRequests(ctx, w, pc, cfg)
	}
	if err != nil {
		return nil, err
	}
	pc.plan.Rate, pc.plan.Arrival, pc.plan.Seed = rate, pc.arr, seed
	return pc, nil
}

// traceRequests builds a Mooncake trace's prompts from their hash ids
// (workload.Trace.Tokens): token ids where the server takes them (the completions API
// with a tokenizer), else words it takes as one token each, so that equal hash ids are
// equal token blocks and the server's prefix cache sees the trace's sharing. Each
// request's ideal hits are the trace's own (workload.Trace.IdealCached), counted with
// what the chat template adds around every prompt.
func (r *Runner) traceRequests(ctx context.Context, w *measure.Workload, pc *preparedCell, n int, b *prompt.Builder) error {
	tr := firstRequests(w.Trace, n)
	offsets, err := tr.Offsets(w.Speed)
	if err != nil {
		return err
	}
	pc.plan = &RatePlan{Offsets: offsets}
	model := workload.CacheModel{Block: w.Block}
	var unit func(indices []int) prompt.Payload
	var vocab int
	if b.Tokenizer != nil && b.API == prompt.Completions {
		pool, err := b.TokenPool(ctx)
		if err != nil {
			return err
		}
		vocab = len(pool)
		unit = func(indices []int) prompt.Payload {
			ids := make([]int, len(indices))
			for j, k := range indices {
				ids[j] = pool[k]
			}
			return prompt.Payload{IDs: ids}
		}
	} else {
		words, err := b.OneTokenWords(ctx)
		if err != nil {
			return err
		}
		if model.Trail, err = templateTokens(ctx, r.Server, words[0]); err != nil {
			return err
		}
		vocab = len(words)
		unit = func(indices []int) prompt.Payload {
			return prompt.Payload{Messages: chatText(workload.Text(indices, words))}
		}
	}
	ideal, _ := tr.IdealCached(model)
	for i, q := range tr.Requests {
		pc.payloads = append(pc.payloads, unit(tr.Tokens(i, vocab, pc.seed)))
		pc.plan.Input = append(pc.plan.Input, model.Lead+q.InputLength+model.Trail)
		pc.plan.Output = append(pc.plan.Output, q.OutputLength)
		pc.ideal = append(pc.ideal, &ideal[i])
	}
	if b.API == prompt.Completions && b.Tokenizer == nil {
		for i := range pc.payloads {
			pc.payloads[i] = prompt.Payload{Text: pc.payloads[i].Messages[0].Content}
		}
	}
	return nil
}

// templateTokens is what the server adds to a prompt of one one-token word (its chat
// template): counted where it counts cheaply, else none.
func templateTokens(ctx context.Context, srv *measure.Server, word string) (int, error) {
	if !srv.Exact || srv.Counter == nil || srv.API == prompt.Completions {
		return 0, nil
	}
	n, err := srv.Counter.Count(ctx, prompt.Payload{Messages: chatText(word)})
	if err != nil {
		return 0, fmt.Errorf("counting the chat template: %w", err)
	}
	return max(0, n-1), nil
}

// scheduleRequests are a fixed schedule's requests: each its messages, counted by
// the server's tokenizer where it has a cheap one, its answer the length its line
// asks (else --output-len).
func (r *Runner) scheduleRequests(ctx context.Context, w *measure.Workload, pc *preparedCell, cfg *rundoc.RateConfig) error {
	s := w.Schedule
	offsets, err := s.Offsets(w.Speed)
	if err != nil {
		return err
	}
	if n := cfg.Requests; n > 0 && n < len(offsets) {
		offsets = offsets[:n]
	}
	pc.plan = &RatePlan{Offsets: offsets}
	for i := range offsets {
		e := s.Entries[i]
		p := measure.EntryPayload(r.Server.API, e)
		in := 0
		if r.Server.Exact && r.Server.Counter != nil {
			if in, err = r.Server.Counter.Count(ctx, p); err != nil {
				return fmt.Errorf("counting %s's prompt: %w", e.Where, err)
			}
		}
		out := e.OutputTokens
		if out == 0 {
			out = cfg.OutputLen
		}
		pc.payloads = append(pc.payloads, p)
		pc.plan.Input = append(pc.plan.Input, in)
		pc.plan.Output = append(pc.plan.Output, out)
	}
	return nil
}

// firstRequests is the trace's first n requests (all of them for 0).
func firstRequests(t *workload.Trace, n int) *workload.Trace {
	if n <= 0 || n >= len(t.Requests) {
		return t
	}
	return &workload.Trace{Name: t.Name, BlockSize: t.BlockSize, Requests: t.Requests[:n]}
}

// TraceRate is the rate a replay of the first n requests of a trace's or a schedule's
// offsets offers: requests after the first over the span from the first to the last
// (0 for one request, or all at once).
func TraceRate(offsets []time.Duration, n int) rundoc.Rate {
	if n > 0 && n < len(offsets) {
		offsets = offsets[:n]
	}
	if len(offsets) < 2 || offsets[len(offsets)-1] <= 0 {
		return 0
	}
	return rundoc.Rate(float64(len(offsets)-1) / offsets[len(offsets)-1].Seconds())
}

// chatText is text as one user message.
func chatText(text string) []openai.Message {
	return []openai.Message{{Role: "user", Content: text}}
}
