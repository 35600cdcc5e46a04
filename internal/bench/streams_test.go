package bench

import (
	"math"
	"testing"
	"time"
)

// TestTPOTSpan checks a stream's time per output token against the engine steps
// that made it: tokens generated every step, a chunk sent when its last token is.
func TestTPOTSpan(t *testing.T) {
	const step = int64(10 * time.Millisecond)
	// stream writes chunks of the given sizes, the first token generated at t0.
	stream := func(t0 int64, sizes ...int) streamView {
		var v streamView
		gen := 0
		for _, k := range sizes {
			gen += k
			v.arrivals = append(v.arrivals, arrival{at: t0 + int64(gen-1)*step, n: k})
		}
		v.end = v.arrivals[len(v.arrivals)-1].at
		return v
	}
	open := int64(time.Second)
	w := span{open, open + int64(10*time.Second)}

	// A stream inside the window whose first chunk held three tokens back (Ollama
	// with a character's bytes): vLLM's TPOT, so that TTFT + (tokens − 1) × TPOT is
	// the request's latency to the millisecond, however the first chunk was made.
	sent := open + int64(time.Millisecond)
	v := stream(sent+int64(50*time.Millisecond), 3, 1, 2, 1, 3, 2)
	ns, tokens, first, ok := tpotSpan(v, w)
	if !ok || first != 0 || tokens != 11 {
		t.Fatalf("inside: tokens %d from arrival %d (ok %v), want 11 = 12 − 1 from arrival 0", tokens, first, ok)
	}
	ttft, e2e := v.arrivals[0].at-sent, v.end-sent
	if got := ttft + int64(tokens)*(ns/int64(tokens)); math.Abs(float64(got-e2e)) > float64(tokens) {
		t.Errorf("TTFT %v + %d × TPOT %v = %v, the request's latency %v", time.Duration(ttft), tokens, time.Duration(ns/int64(tokens)), time.Duration(got), time.Duration(e2e))
	}

	// A stream the window's open cut into: from its last arrival before the window,
	// over the tokens inside, the engine's step exactly, whatever the cut chunk held.
	for _, before := range []int{1, 2, 3, 4} {
		sizes := []int{2, 1, before, 4, 1, 2, 3, 1}
		// The third chunk arrives at t0 + (2 + before) steps: open half a step later.
		t0 := open - int64(2+before)*step - step/2
		v := stream(t0, sizes...)
		ns, tokens, first, ok := tpotSpan(v, w)
		if !ok || first != 3 {
			t.Fatalf("cut, %d before: first inside %d (ok %v), want 3", before, first, ok)
		}
		if tokens != 4+1+2+3+1 || ns != int64(tokens)*step {
			t.Errorf("cut, %d before: %v over %d tokens, want the %v step over each of 11", before, time.Duration(ns), tokens, time.Duration(step))
		}
	}

	// One arrival inside, the first: no span to time.
	if _, _, _, ok := tpotSpan(stream(open+1, 5), w); ok {
		t.Error("a single first chunk has no time per output token")
	}
}
