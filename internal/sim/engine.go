package sim

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// errEngineStopped ends the requests still in flight when the server closes.
var errEngineStopped = errors.New("emulated engine stopped")

// maxLag bounds how far the step clock may fall behind the wall clock (on a loaded
// machine) before it gives up catching up: up to this much, steps run back to back so
// the average rate stays the modelled one; beyond it, the clock restarts from now.
const maxLag = 500 * time.Millisecond

// request is one generation request. Fields above the mutex belong to the engine
// goroutine; the outbox below it is shared with the HTTP handler.
type request struct {
	promptLen   int
	maxTokens   int
	minTokens   int
	ignoreEOS   bool
	rng         *rand.Rand
	blockSize   int
	blockHashes []uint64 // hashes of every full block of prompt+output so far
	partial     []int32  // tokens after the last full block
	numTokens   int      // prompt + output
	outputLen   int
	computed    int // tokens whose KV is computed
	blocks      []int32
	state       []int32 // recurrent-state blocks a hybrid model's running request holds
	numCommit   int     // blocks committed to the prefix cache
	admitted    bool
	cachedSet   bool // cached is fixed at the first admission, as vLLM's num_cached_tokens
	prefilled   bool
	finished    bool

	mu       sync.Mutex
	pending  []int32 // sampled tokens not yet taken by the handler
	finish   string  // "stop" or "length" once done
	cached   int     // prompt tokens found in the prefix cache at first admission
	err      error
	notify   chan struct{} // capacity 1: "the outbox changed"
	doneFlag bool
}

func newRequest(prompt []int, maxTokens, minTokens int, ignoreEOS bool, blockSize int, seed uint64) *request {
	r := &request{
		promptLen: len(prompt),
		maxTokens: maxTokens,
		minTokens: minTokens,
		ignoreEOS: ignoreEOS,
		rng:       rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		blockSize: blockSize,
		notify:    make(chan struct{}, 1),
	}
	for _, t := range prompt {
		r.appendToken(int32(t))
	}
	return r
}

// appendToken extends the sequence, hashing each block as it fills.
func (r *request) appendToken(t int32) {
	r.partial = append(r.partial, t)
	r.numTokens++
	if len(r.partial) == r.blockSize {
		var parent uint64
		if n := len(r.blockHashes); n > 0 {
			parent = r.blockHashes[n-1]
		}
		r.blockHashes = append(r.blockHashes, chainHash(parent, r.partial))
		r.partial = r.partial[:0]
	}
}

// take hands the handler what the engine produced since the last call.
func (r *request) take(buf []int32) (toks []int32, finish string, done bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	toks = append(buf[:0], r.pending...)
	r.pending = r.pending[:0]
	return toks, r.finish, r.doneFlag, r.err
}

func (r *request) cachedTokens() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cached
}

func (r *request) signal() {
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

// engineStats are read by /metrics while the engine runs.
type engineStats struct {
	running, waiting     atomic.Int64
	usedBlocks           atomic.Int64
	preemptions          atomic.Int64
	prefixQueries        atomic.Int64
	prefixHits           atomic.Int64
	promptTokens         atomic.Int64
	generationTokens     atomic.Int64
	steps                atomic.Int64
	requestsFinished     atomic.Int64
	requestsFinishedStop atomic.Int64
}

type engineMsg struct {
	submit *request
	abort  *request
}

// engine is the continuous-batching scheduler. All scheduling state is owned by the
// goroutine running loop; handlers talk to it through inbox.
type engine struct {
	cfg     Config
	pool    *blockPool
	running []*request
	waiting []*request
	inbox   chan engineMsg
	done    chan struct{}
	stats   engineStats
	clock   func() time.Time
}

type scheduled struct {
	r      *request
	tokens int
}

func newEngine(cfg Config) *engine {
	return &engine{
		cfg:   cfg,
		pool:  newBlockPool(cfg.NumBlocks, cfg.PrefixCaching),
		inbox: make(chan engineMsg, 256),
		done:  make(chan struct{}),
		clock: time.Now,
	}
}

// submit hands r to the engine.
func (e *engine) submit(ctx context.Context, r *request) error {
	select {
	case e.inbox <- engineMsg{submit: r}:
		return nil
	case <-e.done:
		return errEngineStopped
	case <-ctx.Done():
		return ctx.Err()
	}
}

// abort asks the engine to drop r and free its blocks; it does not wait.
func (e *engine) abort(r *request) {
	select {
	case e.inbox <- engineMsg{abort: r}:
	case <-e.done:
	}
}

func (e *engine) handle(m engineMsg) {
	switch {
	case m.submit != nil:
		e.waiting = append(e.waiting, m.submit)
	case m.abort != nil:
		r := m.abort
		if r.finished {
			return
		}
		r.finished = true
		if i := slices.Index(e.running, r); i >= 0 {
			e.running = slices.Delete(e.running, i, i+1)
		}
		if i := slices.Index(e.waiting, r); i >= 0 {
			e.waiting = slices.Delete(e.waiting, i, i+1)
		}
		e.releaseBlocks(r)
	}
	e.publish()
}

func (e *engine) publish() {
	e.stats.running.Store(int64(len(e.running)))
	e.stats.waiting.Store(int64(len(e.waiting)))
	e.stats.usedBlocks.Store(int64(e.pool.used()))
}

// loop runs steps until ctx ends. Each step's duration comes from the cost model;
// steps are laid end to end on an absolute clock (next = previous end + duration) so
// timer slack does not accumulate, and a step's tokens are emitted at its end.
func (e *engine) loop(ctx context.Context) {
	defer e.shutdown()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var stepEnd time.Time // end of the previous step; zero after idling
	for {
		e.drain()
		batch, step := e.schedule()
		e.publish()
		if len(batch) == 0 {
			stepEnd = time.Time{}
			select {
			case m := <-e.inbox:
				e.handle(m)
				continue
			case <-ctx.Done():
				return
			}
		}
		dur := time.Duration(float64(e.cfg.Cost.StepTime(step)) / e.cfg.Speed)
		now := e.clock()
		start := stepEnd
		if start.IsZero() || now.Sub(start) > maxLag {
			start = now
		}
		stepEnd = start.Add(dur)
		if wait := stepEnd.Sub(now); wait > 0 {
			timer.Reset(wait)
		waiting:
			for {
				select {
				case <-timer.C:
					break waiting
				case m := <-e.inbox:
					e.handle(m)
				case <-ctx.Done():
					timer.Stop()
					return
				}
			}
		}
		e.stats.steps.Add(1)
		e.complete(batch)
		e.publish()
	}
}

// drain takes every queued message without blocking.
func (e *engine) drain() {
	for {
		select {
		case m := <-e.inbox:
			e.handle(m)
		default:
			return
		}
	}
}

// schedule picks this step's work like vLLM V1: running requests first, in order, each
// taking what it needs from the token budget (a decode needs 1, a prefill the rest of
// its prompt, chunked); when the KV cache cannot hold a running request's next tokens,
// the newest running request is preempted (its blocks freed, to be recomputed later).
// Then, if nothing was preempted, waiting requests are admitted while there is budget,
// a free sequence slot and room in the cache.
func (e *engine) schedule() ([]scheduled, Step) {
	var batch []scheduled
	var step Step
	budget := e.cfg.MaxBatchedTokens
	preempted := false
	for i := 0; i < len(e.running) && budget > 0; {
		r := e.running[i]
		n := min(r.numTokens-r.computed, budget)
		if n <= 0 {
			i++
			continue
		}
		for !e.grow(r, n) {
			victim := e.running[len(e.running)-1]
			e.running = e.running[:len(e.running)-1]
			e.preempt(victim)
			preempted = true
			if victim == r {
				break
			}
		}
		if !r.admitted { // r preempted itself: nothing else can run
			break
		}
		batch = append(batch, scheduled{r, n})
		e.addToStep(&step, r, n)
		budget -= n
		i++
	}
	for !preempted && len(e.waiting) > 0 && budget > 0 && len(e.running) < e.cfg.MaxNumSeqs {
		r := e.waiting[0]
		maxHit := (r.numTokens - 1) / e.cfg.BlockSize
		hits := e.pool.lookup(r.blockHashes, maxHit)
		hitTokens := len(hits) * e.cfg.BlockSize
		n := min(r.numTokens-hitTokens, budget)
		need := e.blocksFor(hitTokens+n) - len(hits)
		if need+e.cfg.StateBlocksPerSeq > e.pool.numFree-e.pool.evictableAmong(hits) {
			break
		}
		e.pool.touch(hits)
		r.blocks = e.pool.allocate(append(r.blocks[:0], hits...), need)
		r.state = e.pool.allocate(r.state[:0], e.cfg.StateBlocksPerSeq)
		r.computed = hitTokens
		r.numCommit = len(hits)
		e.stats.prefixQueries.Add(int64(r.numTokens))
		e.stats.prefixHits.Add(int64(hitTokens))
		if !r.cachedSet {
			r.cachedSet = true
			r.mu.Lock()
			r.cached = hitTokens
			r.mu.Unlock()
		}
		r.admitted = true
		e.waiting = e.waiting[1:]
		e.running = append(e.running, r)
		batch = append(batch, scheduled{r, n})
		e.addToStep(&step, r, n)
		budget -= n
	}
	if len(e.waiting) == 0 {
		e.waiting = nil // let the backing array go
	}
	return batch, step
}

func (e *engine) blocksFor(tokens int) int {
	return (tokens + e.cfg.BlockSize - 1) / e.cfg.BlockSize
}

// grow gives r the blocks for n more tokens, if the pool has them.
func (e *engine) grow(r *request, n int) bool {
	need := e.blocksFor(r.computed+n) - len(r.blocks)
	if need <= 0 {
		return true
	}
	if need > e.pool.numFree {
		return false
	}
	r.blocks = e.pool.allocate(r.blocks, need)
	return true
}

// releaseBlocks gives r's token and state blocks back to the pool.
func (e *engine) releaseBlocks(r *request) {
	e.pool.release(r.state)
	e.pool.release(r.blocks)
	r.state, r.blocks = r.state[:0], r.blocks[:0]
}

// preempt frees r's blocks and puts it at the front of the waiting queue; it will
// recompute its prompt and output so far (from the prefix cache where it can).
func (e *engine) preempt(r *request) {
	e.releaseBlocks(r)
	r.computed = 0
	r.numCommit = 0
	r.admitted = false
	e.waiting = slices.Insert(e.waiting, 0, r)
	e.stats.preemptions.Add(1)
}

// addToStep classifies r's n tokens for the cost model: one token past the prompt is a
// decode; anything else (prompt chunks, recomputation after preemption) is prefill.
func (e *engine) addToStep(s *Step, r *request, n int) {
	if n == 1 && r.prefilled && r.computed == r.numTokens-1 {
		s.DecodeContexts = append(s.DecodeContexts, r.computed+1)
		return
	}
	s.PrefillChunks = append(s.PrefillChunks, PrefillChunk{Start: r.computed, Tokens: n})
}

// complete applies a finished step: advance each request, commit its full blocks to
// the prefix cache, sample a token for every request whose known tokens are all
// computed, and retire the finished ones.
func (e *engine) complete(batch []scheduled) {
	retired := false
	for _, s := range batch {
		r := s.r
		if r.finished || !r.admitted {
			continue // aborted during the step
		}
		r.computed += s.tokens
		full := min(r.computed/e.cfg.BlockSize, len(r.blockHashes))
		for ; r.numCommit < full; r.numCommit++ {
			e.pool.commit(r.blocks[r.numCommit], r.blockHashes[r.numCommit])
		}
		if r.computed < r.numTokens {
			continue // mid-prompt chunk
		}
		if !r.prefilled {
			r.prefilled = true
			e.stats.promptTokens.Add(int64(r.promptLen))
		}
		tok, finish := e.sample(r)
		r.appendToken(tok)
		r.outputLen++
		e.stats.generationTokens.Add(1)
		r.mu.Lock()
		r.pending = append(r.pending, tok)
		if finish != "" {
			r.finish = finish
			r.doneFlag = true
		}
		r.mu.Unlock()
		r.signal()
		if finish != "" {
			r.finished = true
			retired = true
			e.releaseBlocks(r)
			e.stats.requestsFinished.Add(1)
			if finish == "stop" {
				e.stats.requestsFinishedStop.Add(1)
			}
		}
	}
	if retired {
		e.running = slices.DeleteFunc(e.running, func(r *request) bool { return r.finished })
	}
}

// sample draws r's next token: EOS with probability EOSProbability once min_tokens are
// out (unless ignore_eos), otherwise an ordinary word; the request ends at max_tokens.
func (e *engine) sample(r *request) (int32, string) {
	if !r.ignoreEOS && r.outputLen >= r.minTokens && r.rng.Float64() < e.cfg.EOSProbability {
		return EOSToken, "stop"
	}
	tok := int32(firstWordToken + r.rng.IntN(VocabSize-firstWordToken))
	if r.outputLen+1 >= r.maxTokens {
		return tok, "length"
	}
	return tok, ""
}

// shutdown ends every request still known to the engine.
func (e *engine) shutdown() {
	close(e.done)
	fail := func(r *request) {
		r.mu.Lock()
		if !r.doneFlag {
			r.err = errEngineStopped
			r.doneFlag = true
		}
		r.mu.Unlock()
		r.signal()
	}
	for _, r := range e.running {
		fail(r)
	}
	for _, r := range e.waiting {
		fail(r)
	}
	for {
		select {
		case m := <-e.inbox:
			if m.submit != nil {
				fail(m.submit)
			}
		default:
			return
		}
	}
}
