package sim

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// openLoopResult is what an open-loop drive of the emulator saw: each request's TTFT
// from its scheduled send (in schedule order), and the engine's gauges sampled as
// requests arrived.
type openLoopResult struct {
	ttft                     []time.Duration
	maxRunning, maxWaiting   int64
	meanWaiting              float64
	maxUsedBlocks            int64
	preemptions              int64
	firstThird, lastThirdP50 time.Duration
}

// driveOpenLoop sends n streaming completions at a constant rate, each scheduled at
// i / rate whatever happened to the others, and samples the engine's own state.
func driveOpenLoop(t *testing.T, s *Server, base string, rate float64, n, promptLen, maxTokens int) openLoopResult {
	t.Helper()
	var res openLoopResult
	res.ttft = make([]time.Duration, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var samples []int64
	var sampler sync.WaitGroup
	sampler.Go(func() {
		for {
			st := &s.eng.stats
			res.maxRunning = max(res.maxRunning, st.running.Load())
			w := st.waiting.Load()
			res.maxWaiting = max(res.maxWaiting, w)
			samples = append(samples, w)
			res.maxUsedBlocks = max(res.maxUsedBlocks, st.usedBlocks.Load())
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	})
	start := time.Now().Add(20 * time.Millisecond)
	for i := range n {
		at := start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
		time.Sleep(time.Until(at))
		wg.Go(func() {
			body := map[string]any{"prompt": words(fmt.Sprintf("r%d-", i), promptLen), "max_tokens": maxTokens, "ignore_eos": true, "stream": true}
			_, err := readStream(context.Background(), base+"/v1/completions", body, func(ev streamEvent) bool {
				if res.ttft[i] == 0 && ev.data != "[DONE]" {
					res.ttft[i] = ev.at.Sub(at)
				}
				return true
			})
			errs[i] = err
		})
	}
	close(stop) // the gauges while requests arrive, as llmbench samples them
	sampler.Wait()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	for _, w := range samples {
		res.meanWaiting += float64(w) / float64(len(samples))
	}
	res.preemptions = s.eng.stats.preemptions.Load()
	third := func(d []time.Duration) time.Duration {
		d = slices.Clone(d)
		slices.Sort(d)
		return d[len(d)/2]
	}
	res.firstThird, res.lastThirdP50 = third(res.ttft[:n/3]), third(res.ttft[n-n/3:])
	return res
}

// TestOpenLoopQueuesAtMaxNumSeqs: the tiny engine runs at most 4 sequences. Under an
// open-loop rate far below what 4 sequences serve, nothing waits and TTFT stays flat;
// far above it, running stays at 4, requests wait in the engine's queue (its waiting
// gauge), and TTFT timed from the scheduled send grows through the schedule — as
// vLLM's scheduler queues beyond max_num_seqs.
func TestOpenLoopQueuesAtMaxNumSeqs(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.NumBlocks = 4096 // KV never binds here: only max_num_seqs does
	cfg.MaxModelLen = 512
	if raceEnabled {
		cfg.Speed = 0.25
	}
	s, base := testServer(t, cfg)
	// One request: 16 prompt + 40 output tokens, ~40 steps of ~2–3 ms: 4 sequences
	// serve roughly 30–40 requests/s.
	low := driveOpenLoop(t, s, base, 4, 12, 16, 40)
	if low.maxWaiting > 1 || low.lastThirdP50 > 3*low.firstThird+20*time.Millisecond {
		t.Errorf("at 4 req/s the engine queued: waiting max %d, TTFT %s → %s", low.maxWaiting, low.firstThird, low.lastThirdP50)
	}
	high := driveOpenLoop(t, s, base, 200, 60, 16, 40)
	t.Logf("200 req/s: running max %d, waiting max %d (mean %.1f), TTFT median %s over the first third → %s over the last", high.maxRunning, high.maxWaiting, high.meanWaiting, high.firstThird, high.lastThirdP50)
	if high.maxRunning != int64(cfg.MaxNumSeqs) {
		t.Errorf("running peaked at %d, want max_num_seqs %d", high.maxRunning, cfg.MaxNumSeqs)
	}
	if high.meanWaiting < 5 {
		t.Errorf("waiting gauge averaged %.1f while 200 req/s arrived at a 4-sequence engine", high.meanWaiting)
	}
	if high.lastThirdP50 < 3*high.firstThird {
		t.Errorf("TTFT did not grow with the queue: %s → %s", high.firstThird, high.lastThirdP50)
	}
}

// TestOpenLoopQueuesOnKVCache: with max_num_seqs out of the way, the KV cache binds:
// 64 blocks of 16 tokens hold four 250-token requests. Under an open-loop rate the
// engine admits requests while their prompts fit, preempts when decodes outgrow the
// cache, and keeps the rest waiting — never more blocks in use than exist.
func TestOpenLoopQueuesOnKVCache(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.MaxNumSeqs = 64
	if raceEnabled {
		cfg.Speed = 0.25
	}
	s, base := testServer(t, cfg)
	res := driveOpenLoop(t, s, base, 100, 30, 100, 150)
	t.Logf("KV-bound: running max %d, waiting max %d (mean %.1f), blocks used max %d of %d, preemptions %d, TTFT %s → %s",
		res.maxRunning, res.maxWaiting, res.meanWaiting, res.maxUsedBlocks, cfg.NumBlocks, res.preemptions, res.firstThird, res.lastThirdP50)
	if res.maxUsedBlocks > int64(cfg.NumBlocks) {
		t.Errorf("%d blocks in use, the cache has %d", res.maxUsedBlocks, cfg.NumBlocks)
	}
	// A 100-token prompt takes 7 blocks: at most 9 requests are ever admitted at once,
	// far below max_num_seqs.
	if res.maxRunning > int64(cfg.NumBlocks/7) || res.maxRunning >= int64(cfg.MaxNumSeqs) {
		t.Errorf("running peaked at %d: the KV cache (%d blocks) did not bind", res.maxRunning, cfg.NumBlocks)
	}
	if res.maxWaiting == 0 || res.lastThirdP50 < 2*res.firstThird {
		t.Errorf("no queue formed on the KV cache: waiting max %d, TTFT %s → %s", res.maxWaiting, res.firstThird, res.lastThirdP50)
	}
}
