package bench

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/prompt"
)

// Server is the server under test as the runner needs it: a client, a model, and what
// the server takes in a request.
type Server struct {
	Client *openai.Client
	Model  string
	API    prompt.API
	// IgnoreEOS sends ignore_eos and min_tokens so that every request runs to
	// max_output; false for servers that do not take them (Ollama, TGI), whose early
	// ends are replaced and counted.
	IgnoreEOS bool
	// IgnoreEOSKnown says the server is known to honour ignore_eos, so a request that
	// ends early makes the cell invalid; where it is only hoped for, early ends are
	// counted and flagged.
	IgnoreEOSKnown bool
	// ContinuousUsage asks for usage in every chunk (vLLM, SGLang), which gives exact
	// per-chunk token counts.
	ContinuousUsage bool
	// Counter counts prompt tokens; Exact says it is cheap and exact (a tokenize route)
	// rather than a real request per count.
	Counter prompt.Counter
	Exact   bool
	// Tokenizer, with the completions API, makes token-id prompts (servers that take
	// them: vLLM, SGLang, llama.cpp).
	Tokenizer prompt.Tokenizer
}

func (s *Server) stream(ctx context.Context, p prompt.Payload, maxTokens int, obs openai.Observer) *openai.StreamResult {
	so := &openai.StreamOptions{IncludeUsage: true, ContinuousUsageStats: s.ContinuousUsage}
	var ignore *bool
	var minTokens *int
	if s.IgnoreEOS && maxTokens > 1 {
		ignore, minTokens = openai.Ptr(true), openai.Ptr(maxTokens)
	}
	if s.API == prompt.Completions {
		var pr any = p.Text
		if p.IDs != nil {
			pr = p.IDs
		}
		return s.Client.StreamCompletion(ctx, &openai.CompletionRequest{
			Model: s.Model, Prompt: pr, MaxTokens: openai.Ptr(maxTokens),
			StreamOptions: so, IgnoreEOS: ignore, MinTokens: minTokens,
		}, obs)
	}
	return s.Client.StreamChat(ctx, &openai.ChatRequest{
		Model: s.Model, Messages: p.Messages, MaxTokens: openai.Ptr(maxTokens),
		StreamOptions: so, IgnoreEOS: ignore, MinTokens: minTokens,
	}, obs)
}

// Monitor samples the server's own metrics during a cell (engine discovery provides
// one where the server exposes metrics).
type Monitor interface {
	Start(ctx context.Context, interval time.Duration)
	Stop() *ServerMetrics
}

// Progress is told what the runner is doing, for a live display.
type Progress interface {
	// Step says what runs now: done of total work items (prefill rows and cells).
	Step(desc string, done, total int, expect time.Duration)
	// Tokens counts tokens as they stream in.
	Tokens(n int)
	// Log prints a line above the live display.
	Log(line string)
}

// Options configure a Runner.
type Options struct {
	// StartTimeout bounds how long a cell waits for all its streams' first tokens.
	StartTimeout time.Duration
	// Checkpoint is called after every prefill row and cell with the document so far.
	Checkpoint func(*Run) error
	// Events, if set, receives one record per request.
	Events *EventLog
	// Progress, if set, is told what is happening.
	Progress Progress
	// NewMonitor, if set, makes a server-metrics sampler for each cell.
	NewMonitor func() Monitor
	// Nonce makes this run's contexts unique so they are cold on first use.
	Nonce string
	// Telemetry, if set, meters the server's machine during every window; Price, if
	// set, is what the machine costs (energy_run.go).
	Telemetry Telemetry
	Price     *Price
}

// Runner measures the speed test matrix.
type Runner struct {
	Server *Server
	Opts   Options

	calBase    int
	calPerWord float64
	builder    *prompt.Builder
}

// ErrInterrupted is returned by Run when the context was cancelled.
var ErrInterrupted = errors.New("run interrupted")

// Plan fills a new run document's prefill rows and decode cells from its config and the
// server's limits: over-capacity cells are marked (and never sent), the rest pending.
func Plan(doc *Run, kvCacheTokens, maxModelLen *int64) {
	cfg := doc.Config
	doc.Prefill = doc.Prefill[:0]
	for _, c := range sortedUnique(cfg.PrefillContexts) {
		row := PrefillRow{Context: c, Status: StatusPending}
		if ok, reason := Fit(c, 1, 1, nil, maxModelLen); !ok {
			row.Status, row.Reason = StatusOverCapacity, reason
		}
		doc.Prefill = append(doc.Prefill, row)
	}
	doc.Decode = doc.Decode[:0]
	for _, c := range sortedUnique(cfg.Contexts) {
		for _, n := range sortedUnique(cfg.Concurrency) {
			cell := DecodeCell{Context: c, Concurrency: n, Status: StatusPending}
			if ok, reason := Fit(c, n, cfg.MaxOutputTokens, kvCacheTokens, maxModelLen); !ok {
				cell.Status, cell.Reason = StatusOverCapacity, reason
			}
			doc.Decode = append(doc.Decode, cell)
		}
	}
}

func sortedUnique(v []int) []int {
	out := slices.Clone(v)
	slices.Sort(out)
	return slices.Compact(out)
}

func (s Status) done() bool {
	switch s {
	case StatusPending, StatusInterrupted, "":
		return false
	}
	return true
}

// Run measures every pending prefill row and decode cell of doc (a planned document, or
// one being resumed), checkpointing after each. On cancellation the work in progress is
// marked interrupted, the document checkpointed, and ErrInterrupted returned.
func (r *Runner) Run(ctx context.Context, doc *Run) error {
	cfg := doc.Config
	r.builder = &prompt.Builder{API: r.Server.API, Counter: r.Server.Counter, Tokenizer: r.Server.Tokenizer}
	if cfg.Seed != nil {
		r.builder.Seed = *cfg.Seed
	}
	total, done := 0, 0
	for _, p := range doc.Prefill {
		if p.Status != StatusOverCapacity {
			total++
			if p.Status.done() {
				done++
			}
		}
	}
	for _, c := range doc.Decode {
		if c.Status != StatusOverCapacity {
			total++
			if c.Status.done() {
				done++
			}
		}
	}
	step := func(desc string, expect time.Duration) {
		if r.Opts.Progress != nil {
			r.Opts.Progress.Step(desc, done, total, expect)
		}
	}
	checkpoint := func() error {
		if r.Opts.Checkpoint == nil {
			return nil
		}
		return r.Opts.Checkpoint(doc)
	}
	// measuring is the prefill row whose cold request is in flight, if any.
	var measuring *PrefillRow
	interrupt := func() error {
		if measuring != nil {
			measuring.Status, measuring.Reason = StatusInterrupted, "the run was stopped during this measurement"
		}
		if err := checkpoint(); err != nil {
			return err
		}
		return ErrInterrupted
	}
	duration := cfg.Duration()

	decodeRows := sortedUnique(cfg.Contexts)
	isDecodeRow := func(c int) bool { return slices.Contains(decodeRows, c) }

	// The order of work: in "separate" mode every prefill row first; in
	// "decode-warmup" mode rows by ascending context, each decode row's warm-up
	// doubling as its prefill measurement.
	type rowWork struct {
		context int
		prefill *PrefillRow // measure prefill on this row's cold request
		cells   []*DecodeCell
	}
	var work []rowWork
	prefillRow := func(c int) *PrefillRow {
		for i := range doc.Prefill {
			if doc.Prefill[i].Context == c {
				return &doc.Prefill[i]
			}
		}
		return nil
	}
	if cfg.PrefillMode == "separate" {
		for i := range doc.Prefill {
			work = append(work, rowWork{context: doc.Prefill[i].Context, prefill: &doc.Prefill[i]})
		}
	}
	rows := decodeRows
	if cfg.PrefillMode != "separate" {
		rows = sortedUnique(append(slices.Clone(decodeRows), cfg.PrefillContexts...))
	}
	for _, c := range rows {
		w := rowWork{context: c}
		if cfg.PrefillMode != "separate" {
			w.prefill = prefillRow(c)
		}
		if isDecodeRow(c) {
			for i := range doc.Decode {
				if doc.Decode[i].Context == c {
					w.cells = append(w.cells, &doc.Decode[i])
				}
			}
		}
		work = append(work, w)
	}

	for _, w := range work {
		needPrefill := w.prefill != nil && !w.prefill.Status.done()
		var pending []*DecodeCell
		for _, c := range w.cells {
			if !c.Status.done() {
				pending = append(pending, c)
			}
		}
		if !needPrefill && len(pending) == 0 {
			continue
		}
		if ctx.Err() != nil {
			return interrupt()
		}
		// The row's shared context, cold: its first request measures prefill (when this
		// row has a prefill measurement to make) and warms the prefix cache for the cells.
		if needPrefill {
			step(fmt.Sprintf("prefill %s", FormatTokens(w.context)), 0)
		} else {
			step(fmt.Sprintf("warm-up %s", FormatTokens(w.context)), 0)
		}
		if needPrefill {
			measuring = w.prefill
		}
		pctx, warm, err := r.warmUp(ctx, w.context)
		if ctx.Err() != nil {
			return interrupt()
		}
		measuring = nil
		if needPrefill {
			r.recordPrefill(w.prefill, w.context, warm, err)
			r.scorePrefillEnergy(ctx, w.prefill, warm)
			done++
			if err := checkpoint(); err != nil {
				return err
			}
		}
		if err != nil {
			for _, c := range pending {
				c.Status, c.Reason = StatusFailed, "warm-up failed: "+err.Error()
				done++
			}
			if err := checkpoint(); err != nil {
				return err
			}
			continue
		}
		var rowIssue string
		if pctx.Target > 0 && relDiff(pctx.Actual, pctx.Target) > 0.01 {
			rowIssue = fmt.Sprintf("prompt has %d tokens, %d asked (more than 1%% off)", pctx.Actual, pctx.Target)
		}
		reqIndex := new(atomic.Int64)
		reqIndex.Store(1) // request 0 was the warm-up
		for _, cell := range pending {
			if ctx.Err() != nil {
				return interrupt()
			}
			step(fmt.Sprintf("decode %s × %d", FormatTokens(cell.Context), cell.Concurrency), duration)
			r.runCell(ctx, cell, pctx, reqIndex, doc.Config)
			if ctx.Err() != nil {
				cell.Status, cell.Reason = StatusInterrupted, "the run was stopped during this cell"
				cell.DecodeFigures, cell.WindowStats = nil, nil
				return interrupt()
			}
			if rowIssue != "" && cell.Status == StatusValid {
				cell.Status, cell.Reason = StatusInvalid, rowIssue
			}
			done++
			if r.Opts.Progress != nil {
				r.Opts.Progress.Log(cellLine(cell))
			}
			if err := checkpoint(); err != nil {
				return err
			}
		}
	}
	step("done", 0)
	return nil
}

func cellLine(c *DecodeCell) string {
	label := fmt.Sprintf("decode %5s × %-3d", FormatTokens(c.Context), c.Concurrency)
	if c.DecodeFigures == nil {
		return fmt.Sprintf("%s  %s: %s", label, c.Status, c.Reason)
	}
	s := fmt.Sprintf("%s  %8.1f tok/s  TTFT %6.0f ms  TBT %5.1f ms  %s", label, c.TotalTokS, c.TTFTMs, c.TBTMs, c.Status)
	if c.Reason != "" {
		s += ": " + c.Reason
	}
	return s
}

func relDiff(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return math.Abs(float64(a-b)) / float64(b)
}

// warmUp builds the row's shared context and sends its cold first request (one output
// token). Its TTFT is the prefill time.
func (r *Runner) warmUp(ctx context.Context, context int) (*prompt.Context, *openai.StreamResult, error) {
	nonce := r.nonce(context)
	var pctx *prompt.Context
	var err error
	if r.Server.Exact || context == 0 {
		pctx, err = r.builder.Build(ctx, context, nonce)
		if err != nil {
			return nil, nil, err
		}
	} else {
		if r.calPerWord == 0 {
			if r.calBase, r.calPerWord, err = r.builder.Calibrate(ctx); err != nil {
				return nil, nil, err
			}
		}
		pctx = r.builder.Estimate(context, nonce, r.calBase, r.calPerWord)
	}
	for attempt := 0; ; attempt++ {
		res := r.Server.stream(ctx, pctx.Payload(0), 1, nil)
		r.Opts.Events.Request(EventMeta{Phase: "warmup", Context: context, Concurrency: 1}, res)
		if res.Err != nil {
			return pctx, res, fmt.Errorf("cold request of %s tokens: %w", FormatTokens(context), res.Err)
		}
		if res.Cancelled {
			return pctx, res, ctx.Err()
		}
		if res.Usage != nil && res.Usage.PromptTokens > 0 {
			pctx.Actual = res.Usage.PromptTokens
		}
		// Without an exact counter the prompt was sized from a ratio; the server's own
		// count of this request corrects it. Retry (cold again, with a new nonce) when
		// it missed by more than 1%.
		if r.Server.Exact || context == 0 || relDiff(pctx.Actual, context) <= 0.01 || attempt >= 2 || res.Usage == nil {
			return pctx, res, nil
		}
		words := float64(context-r.calBase) / r.calPerWord
		perWord := float64(pctx.Actual-r.calBase) / words
		nonce = r.nonce(context)
		slog.Debug("prompt length corrected", "context", context, "got", pctx.Actual, "perWord", perWord)
		pctx = r.builder.Estimate(context, nonce, r.calBase, perWord)
	}
}

// nonce starts a shared context. Its first characters are random, so that no two
// contexts share a prefix past the chat template (engines that cache at token rather
// than block granularity, like llama.cpp, would reuse even a few common tokens).
func (r *Runner) nonce(context int) string {
	return fmt.Sprintf("[%08x %s %d]", rand.Uint32(), r.Opts.Nonce, context)
}

// coldCacheTolerance is how many cached prompt tokens a cold request may report: a chat
// template's fixed preamble can fill a cache block before the nonce.
const coldCacheTolerance = 64

func (r *Runner) recordPrefill(row *PrefillRow, context int, res *openai.StreamResult, err error) {
	row.Reason = ""
	if err != nil {
		row.Status, row.Reason = StatusFailed, err.Error()
		return
	}
	if res.FirstToken.IsZero() {
		row.Status, row.Reason = StatusFailed, "no token arrived"
		return
	}
	ttft := res.FirstToken.Sub(res.Sent)
	promptTokens := context
	fig := &PrefillFigures{TTFTMs: round(ms(ttft), 0), CompletedRequests: 0}
	if res.Finished() {
		fig.CompletedRequests = 1
	}
	if res.Usage != nil && res.Usage.PromptTokens > 0 {
		promptTokens = res.Usage.PromptTokens
		fig.PromptTokens = promptTokens
		if d := res.Usage.PromptTokensDetails; d != nil && d.CachedTokens != nil {
			fig.CachedTokens = openai.Ptr(*d.CachedTokens)
		}
	}
	fig.PromptTokS = round(float64(promptTokens)/ttft.Seconds(), 1)
	row.PrefillFigures = fig
	row.Status = StatusValid
	switch {
	case relDiff(promptTokens, context) > 0.01:
		row.Status, row.Reason = StatusInvalid, fmt.Sprintf("prompt has %d tokens, %d asked (more than 1%% off)", promptTokens, context)
	case fig.CachedTokens != nil && *fig.CachedTokens > coldCacheTolerance && *fig.CachedTokens > promptTokens/100:
		row.Status, row.Reason = StatusInvalid, fmt.Sprintf("the cold request found %d tokens already cached: prefill was not measured cold", *fig.CachedTokens)
	}
}

// cellObserver opens the window when every stream has its first token and feeds the
// live display.
type cellObserver struct {
	started  atomic.Int64 // streams that have had a first token
	n        int64
	opened   chan time.Time
	progress Progress
}

type streamObserver struct {
	cell  *cellObserver
	first *atomic.Bool // this stream has had its first token
}

func (o *streamObserver) FirstToken(at time.Time) {
	if o.first.CompareAndSwap(false, true) {
		if o.cell.started.Add(1) == o.cell.n {
			o.cell.opened <- at
		}
	}
}

func (o *streamObserver) Tokens(_ time.Time, n int) {
	if o.cell.progress != nil {
		o.cell.progress.Tokens(n)
	}
}

// runCell runs one sustained-decode cell: N streams in a closed loop, the window opening
// when all N have their first token and lasting the configured duration.
func (r *Runner) runCell(ctx context.Context, cell *DecodeCell, pctx *prompt.Context, reqIndex *atomic.Int64, cfg Config) {
	n := cell.Concurrency
	duration := cfg.Duration()
	maxOut := cfg.MaxOutputTokens
	startTimeout := r.Opts.StartTimeout
	if startTimeout == 0 {
		startTimeout = 5 * time.Minute
	}

	cellCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	obs := &cellObserver{n: int64(n), opened: make(chan time.Time, 1), progress: r.Opts.Progress}

	var (
		mu      sync.Mutex
		results []*openai.StreamResult
		gaveUp  atomic.Bool
		wg      sync.WaitGroup
	)
	var monitor Monitor
	if r.Opts.NewMonitor != nil {
		monitor = r.Opts.NewMonitor()
	}
	cpuStart := cpuTime()
	for s := 0; s < n; s++ {
		wg.Add(1)
		go func(stream int) {
			defer wg.Done()
			so := &streamObserver{cell: obs, first: new(atomic.Bool)}
			failures := 0
			for cellCtx.Err() == nil {
				i := int(reqIndex.Add(1) - 1)
				res := r.Server.stream(cellCtx, pctx.Payload(i), maxOut, so)
				mu.Lock()
				results = append(results, res)
				mu.Unlock()
				r.Opts.Events.Request(EventMeta{Phase: "decode", Context: cell.Context, Concurrency: n, Stream: stream, Index: i}, res)
				if res.Err == nil {
					failures = 0
					continue
				}
				failures++
				if failures >= 5 && !so.first.Load() {
					// This stream never got going, and the window needs all N streams:
					// the cell cannot measure. Stop it rather than wait for the timeout.
					gaveUp.Store(true)
					cancel()
					return
				}
				// Back off a little so a failing server is not hammered in a hot loop.
				backoff := time.Duration(50<<min(failures, 6)) * time.Millisecond
				select {
				case <-time.After(backoff):
				case <-cellCtx.Done():
				}
			}
		}(s)
	}

	var win Window
	status, reason := StatusValid, ""
	select {
	case win.Open = <-obs.opened:
		// The server's gauges are sampled inside the window only: the ramp-up, where
		// requests wait a step to be admitted, is not queueing.
		if monitor != nil {
			monitor.Start(cellCtx, 500*time.Millisecond)
		}
		timer := time.NewTimer(time.Until(win.Open.Add(duration)))
		select {
		case <-timer.C:
		case <-cellCtx.Done():
			timer.Stop()
		}
		win.Close = time.Now()
	case <-time.After(startTimeout):
		status, reason = StatusFailed, fmt.Sprintf("only %d of %d streams had a first token after %s", obs.started.Load(), n, startTimeout)
	case <-cellCtx.Done():
		status, reason = StatusFailed, "streams could not start"
		if gaveUp.Load() {
			reason = "a stream failed 5 times in a row before its first token"
		}
	}
	cancel()
	wg.Wait()
	cpu := cpuTime() - cpuStart
	var metrics *ServerMetrics
	if monitor != nil {
		metrics = monitor.Stop()
	}
	if ctx.Err() != nil {
		return // the caller marks the cell interrupted
	}

	mu.Lock()
	defer mu.Unlock()
	sort.SliceStable(results, func(i, j int) bool { return results[i].Sent.Before(results[j].Sent) })
	if win.Open.IsZero() {
		cell.Status, cell.Reason = status, reason
		if e := firstError(results); e != "" {
			cell.Reason += ": " + e
		}
		d := &CellDetail{Requests: len(results), Errors: countErrors(results), ErrorSamples: errorSamples(results), Server: metrics}
		cell.CellDetail = d
		return
	}
	r.Opts.Events.Window(EventMeta{Phase: "decode", Context: cell.Context, Concurrency: n}, win)
	estimated := spreadChunkRatio(results)
	fig, stats, detail := CellFigures(results, win)
	if estimated {
		detail.Flags = append(detail.Flags, "token_counts_estimated")
	}
	cell.DecodeFigures, cell.WindowStats, cell.CellDetail = &fig, &stats, &detail
	detail.ErrorSamples = errorSamples(results)
	detail.Server = metrics
	detail.PromptTokens = pctx.Actual
	r.scoreCell(cell, results, win, cfg, cpu)
	r.scoreCellEnergy(ctx, cell, win)
	// Servers that do not report cached tokens per request (vLLM without
	// --enable-prompt-tokens-details) still count prefix-cache hits in their metrics.
	if pc, ok := monitor.(prefixCacheReporter); ok {
		queries, hits, ok := pc.PrefixCache()
		if ok && detail.Server != nil {
			detail.Server.PrefixCacheQueries, detail.Server.PrefixCacheHits = &queries, &hits
		}
		if ok && queries > 0 && detail.CacheHitRatio == nil {
			ratio := round(hits/queries, 4)
			detail.CacheHitRatio = &ratio
			if cell.Context > 0 && ratio < 0.5 {
				detail.Flags = append(detail.Flags, "cache_not_warm")
				if cell.Status == StatusValid {
					cell.Status, cell.Reason = StatusInvalid, fmt.Sprintf("the shared context was not cached (prefix-cache hit ratio %.2f)", ratio)
				}
			}
		}
	}
}

// prefixCacheReporter is a Monitor that also counts the server's prefix-cache hits.
type prefixCacheReporter interface {
	PrefixCache() (queries, hits float64, ok bool)
}

// scoreCell runs the validity checks on a measured cell and records what the server said.
func (r *Runner) scoreCell(cell *DecodeCell, results []*openai.StreamResult, win Window, cfg Config, cpu time.Duration) {
	duration := cfg.Duration()
	d := cell.CellDetail
	n := cell.Concurrency
	var serverTokens, clientTokens, withUsage, cached, prompted int
	haveCached := false
	for _, res := range results {
		if res.FinishReason != "" && res.Err == nil && !res.Cancelled {
			if res.FinishReason != "length" {
				d.EndedEarly++
			}
		}
		if res.Usage != nil {
			if res.Finished() {
				serverTokens += res.Usage.CompletionTokens
				clientTokens += res.Tokens
				withUsage++
			}
			if det := res.Usage.PromptTokensDetails; det != nil && det.CachedTokens != nil && res.Usage.PromptTokens > 0 {
				haveCached = true
				cached += *det.CachedTokens
				prompted += res.Usage.PromptTokens
			}
		}
	}
	if withUsage > 0 {
		d.ServerOutputTokens = openai.Ptr(serverTokens)
	}
	if haveCached {
		d.CachedTokens = openai.Ptr(cached)
		ratio := round(float64(cached)/float64(prompted), 4)
		d.CacheHitRatio = &ratio
	}
	switch m := d.Server; {
	case m != nil && m.Waiting != nil:
		if m.Waiting.Max > 0 {
			d.Queueing = true
			d.Flags = append(d.Flags, "queueing")
		}
	case n > 1 && d.PeakStreaming > 0 && d.PeakStreaming < n:
		// No waiting gauge (Ollama, LM Studio, a metrics-less llama.cpp): the client
		// sees the queue instead, as requests that never stream at the same time.
		d.Queueing = true
		d.Flags = append(d.Flags, "queueing_inferred")
	}
	if m := d.Server; m != nil {
		if m.Preemptions != nil && *m.Preemptions > 0 {
			p := int(*m.Preemptions)
			d.Preemptions = &p
			d.Flags = append(d.Flags, "preemption")
		}
	}
	if d.Errors > 0 {
		d.Flags = append(d.Flags, "errors")
	}
	if d.EndedEarly > 0 {
		d.Flags = append(d.Flags, "ended_early")
	}
	// The client's own limit: if this process used nearly every CPU during the cell,
	// the numbers may be the client's, not the server's.
	if wall := win.Length(); wall > 0 && cpu > 0 {
		if float64(cpu)/float64(wall)/float64(runtime.NumCPU()) > 0.9 {
			d.ClientLimited = true
			d.Flags = append(d.Flags, "client_cpu_saturated")
		}
	}

	cell.Status = StatusValid
	fail := func(reason string) {
		if cell.Status == StatusValid {
			cell.Status, cell.Reason = StatusInvalid, reason
		}
	}
	if win.Length() < time.Duration(float64(duration)*0.99) {
		fail(fmt.Sprintf("window lasted %.1f s, %.1f s asked", win.Length().Seconds(), duration.Seconds()))
	}
	if cell.AvgActiveRequests < 0.9*float64(n) {
		reason := fmt.Sprintf("only %.2f of %d requests were in flight on average", cell.AvgActiveRequests, n)
		if e := firstError(results); e != "" {
			reason += " (" + e + ")"
		}
		fail(reason)
	}
	if r.Server.IgnoreEOSKnown && d.EndedEarly > 0 {
		fail(fmt.Sprintf("%d requests ended before max output despite ignore_eos", d.EndedEarly))
	}
	if withUsage > 0 && relDiff(clientTokens, serverTokens) > 0.01 {
		fail(fmt.Sprintf("client counted %d output tokens, the server %d", clientTokens, serverTokens))
	}
	if d.ClientLimited {
		fail("the measuring client used nearly all CPUs: the figure may be the client's limit")
	}
	if cell.Context > 0 && haveCached && d.CacheHitRatio != nil && *d.CacheHitRatio < 0.5 {
		d.Flags = append(d.Flags, "cache_not_warm")
		fail(fmt.Sprintf("the shared context was not cached (hit ratio %.2f)", *d.CacheHitRatio))
	}
}

func countErrors(results []*openai.StreamResult) int {
	n := 0
	for _, r := range results {
		if r.Err != nil {
			n++
		}
	}
	return n
}

func firstError(results []*openai.StreamResult) string {
	for _, r := range results {
		if r.Err != nil {
			return r.Err.Error()
		}
	}
	return ""
}

func errorSamples(results []*openai.StreamResult) []string {
	var out []string
	for _, r := range results {
		if r.Err == nil {
			continue
		}
		e := r.Err.Error()
		if !slices.Contains(out, e) {
			out = append(out, e)
			if len(out) == 3 {
				break
			}
		}
	}
	return out
}

// spreadChunkRatio handles servers that pack several tokens into a chunk without
// saying so per chunk: finished requests were corrected from their final usage (see
// openai.StreamResult.Estimated), and the requests that never finished (cancelled at
// the window's end, or broken) get the same tokens-per-chunk ratio. It reports whether
// it changed anything, so the cell can say its counts are partly estimated.
func spreadChunkRatio(results []*openai.StreamResult) bool {
	var tokens, chunks int
	for _, r := range results {
		if r.Estimated {
			tokens += r.Tokens
			chunks += len(r.Chunks)
		}
	}
	if chunks == 0 || tokens <= chunks {
		return false
	}
	ratio := float64(tokens) / float64(chunks)
	changed := false
	for _, r := range results {
		if r.Estimated || r.ChunkUsage || len(r.Chunks) == 0 || r.Finished() {
			continue
		}
		total := 0
		for i := range r.Chunks {
			n := int(math.Round(ratio*float64(i+1))) - int(math.Round(ratio*float64(i)))
			r.Chunks[i].N = n
			total += n
		}
		r.Tokens = total
		r.Estimated = true
		changed = true
	}
	return changed
}
