package sim

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// stepEngine drives the scheduler by hand, without its clock.
func stepEngine(t *testing.T, cfg Config) *engine {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return newEngine(cfg)
}

func promptOf(tag string, n int) []int { return Tokenize(nil, words(tag, n)) }

func (e *engine) add(r *request) { e.handle(engineMsg{submit: r}) }

func (e *engine) step() Step {
	batch, s := e.schedule()
	e.complete(batch)
	return s
}

// TestChunkedPrefillSharesSteps: a long prompt is prefilled in budget-sized chunks,
// and a running decode keeps its token in every step, ahead of the chunk.
func TestChunkedPrefillSharesSteps(t *testing.T) {
	cfg := tinyConfig(t) // budget 128
	e := stepEngine(t, cfg)
	short := newRequest(promptOf("s", 10), 50, 0, true, cfg.BlockSize, 1)
	e.add(short)
	if got := e.step(); !cmp.Equal(got, Step{PrefillChunks: []PrefillChunk{{0, 10}}}) {
		t.Fatalf("first step %+v", got)
	}
	long := newRequest(promptOf("l", 300), 5, 0, true, cfg.BlockSize, 2)
	e.add(long)
	want := []Step{
		{PrefillChunks: []PrefillChunk{{0, 127}}, DecodeContexts: []int{11}},
		{PrefillChunks: []PrefillChunk{{127, 127}}, DecodeContexts: []int{12}},
		{PrefillChunks: []PrefillChunk{{254, 46}}, DecodeContexts: []int{13}},
		{DecodeContexts: []int{14, 301}},
	}
	for i, w := range want {
		if diff := cmp.Diff(w, e.step()); diff != "" {
			t.Errorf("step %d (-want +got):\n%s", i, diff)
		}
	}
	if long.outputLen != 2 || short.outputLen != 5 {
		t.Errorf("outputs: long %d (want 2), short %d (want 5)", long.outputLen, short.outputLen)
	}
}

// TestPreemptsNewest: when a decode needs a block and none is free, the most recently
// admitted request loses its blocks, waits at the head of the queue, and recomputes.
func TestPreemptsNewest(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.NumBlocks = 32 // 512 tokens = max_model_len
	e := stepEngine(t, cfg)
	older := newRequest(promptOf("o", 112), 300, 0, true, cfg.BlockSize, 1)
	newer := newRequest(promptOf("n", 112), 300, 0, true, cfg.BlockSize, 2)
	e.add(older)
	e.add(newer)
	for i := 0; e.stats.preemptions.Load() == 0; i++ {
		if i > 1000 {
			t.Fatal("no preemption after 1000 steps")
		}
		e.step()
	}
	if len(e.running) != 1 || e.running[0] != older || len(e.waiting) != 1 || e.waiting[0] != newer {
		t.Fatalf("after preemption: running %v, waiting %v; want the older running, the newer waiting", e.running, e.waiting)
	}
	if newer.computed != 0 || len(newer.blocks) != 0 {
		t.Errorf("preempted request keeps computed %d, %d blocks", newer.computed, len(newer.blocks))
	}
	// Both finish, the newer one after recomputing.
	for i := 0; !(older.finished && newer.finished); i++ {
		if i > 5000 {
			t.Fatal("requests did not finish")
		}
		e.step()
	}
	if older.outputLen != 300 || newer.outputLen != 300 {
		t.Errorf("outputs %d and %d, want 300 each", older.outputLen, newer.outputLen)
	}
	if e.pool.used() != 0 {
		t.Errorf("%d blocks still used after both finished", e.pool.used())
	}
}

// TestMaxNumSeqs: no more than max_num_seqs requests run; the rest wait in order.
func TestMaxNumSeqs(t *testing.T) {
	cfg := tinyConfig(t) // max_num_seqs 4
	e := stepEngine(t, cfg)
	var reqs []*request
	for i := range 6 {
		r := newRequest(promptOf(string(rune('a'+i)), 8), 3, 0, true, cfg.BlockSize, uint64(i))
		reqs = append(reqs, r)
		e.add(r)
	}
	e.step()
	if len(e.running) != 4 || len(e.waiting) != 2 || e.waiting[0] != reqs[4] {
		t.Fatalf("running %d, waiting %d; want 4 and 2 (in arrival order)", len(e.running), len(e.waiting))
	}
	for range 10 {
		e.step()
	}
	for i, r := range reqs {
		if !r.finished {
			t.Errorf("request %d not finished", i)
		}
	}
}

// TestRecurrentStateBlocks: with a hybrid model's layout every running request holds
// its recurrent state's blocks besides its tokens', so fewer requests fit; the state
// blocks come back when a request finishes or is preempted; and the reported capacity
// counts max_model_len requests the way vLLM does.
func TestRecurrentStateBlocks(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.NumBlocks, cfg.StateBlocksPerSeq, cfg.MaxModelLen = 12, 3, 64 // a 64-token request: 4 + 3 blocks
	if got, want := cfg.KVCacheTokens(), 12*64/7; got != want {
		t.Errorf("reported capacity %d tokens, want vLLM's %d (12 blocks / 7 per request × 64)", got, want)
	}
	e := stepEngine(t, cfg)
	for i := range 3 {
		e.add(newRequest(promptOf(string(rune('a'+i)), 10), 4, 0, true, cfg.BlockSize, uint64(i)))
	}
	e.step()
	// Each takes 1 token block + 3 state blocks: two fit in 12 (8), a third (12) does
	// too, a fourth would not; with 3 requests all run and the pool is full.
	if len(e.running) != 3 || e.pool.used() != 12 {
		t.Fatalf("running %d, %d blocks used; want 3 and 12 (1 + 3 each)", len(e.running), e.pool.used())
	}
	late := newRequest(promptOf("z", 10), 4, 0, true, cfg.BlockSize, 9)
	e.add(late)
	e.step()
	if len(e.waiting) != 1 || e.waiting[0] != late {
		t.Errorf("a fourth request was admitted with no room for its state blocks: waiting %d", len(e.waiting))
	}
	for i := 0; !late.finished; i++ {
		if i > 100 {
			t.Fatal("the late request never ran")
		}
		e.step()
	}
	if e.pool.used() != 0 {
		t.Errorf("%d blocks still used after every request finished", e.pool.used())
	}
	bad := cfg
	bad.NumBlocks = 6 // < 7 blocks for one max_model_len request
	if err := bad.Validate(); err == nil {
		t.Error("a pool too small for one max_model_len request with its state validated")
	}
}
