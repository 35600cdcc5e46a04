package replay

import (
	"context"
	"testing"
)

// TestLlamaSlots: slots are given as llama-server's get_available_slot gives them —
// the named one, else one that holds the prompt, else the least recently used, unused
// first — and requests deferred while none is free are served in the order they came.
func TestLlamaSlots(t *testing.T) {
	ctx := context.Background()
	l := newLlamaSlots(2)
	none := func(int) {}
	a, _ := l.take(ctx, "A", nil, none)
	b, _ := l.take(ctx, "B", nil, none)
	if a.id == b.id || a.used || b.used {
		t.Fatalf("two first requests: slots %d and %d, used %v %v; want two fresh slots", a.id, b.id, a.used, b.used)
	}
	// Both busy: three requests wait, in this order.
	grants := map[string]chan llamaGrant{}
	deferred := make(chan struct{})
	for _, shared := range []string{"C", "B", "A"} {
		got := make(chan llamaGrant, 1)
		grants[shared] = got
		go func() {
			g, _ := l.take(ctx, shared, nil, func(d int) {
				if d > 0 {
					deferred <- struct{}{}
				}
			})
			got <- g
		}()
		<-deferred // deferred behind the ones before it
	}
	// Each slot freed goes to the first deferred request: C takes B's slot (it holds
	// no prompt of C's: read in full), then B takes A's, then A takes the one C held.
	l.release(b.id, "B")
	c := <-grants["C"]
	l.release(a.id, "A")
	bb := <-grants["B"]
	l.release(c.id, "C")
	aa := <-grants["A"]
	if c.id != b.id || c.hit || bb.id != a.id || aa.id != b.id {
		t.Errorf("grants C %+v, B %+v, A %+v; want in the order they came, slot by slot", c, bb, aa)
	}
	l.release(bb.id, "B")
	// The free slot that holds a request's prompt is its, whatever the LRU says.
	if g, _ := l.take(ctx, "B", nil, none); g.id != bb.id || !g.hit {
		t.Errorf("B again: %+v, want slot %d with its cache", g, bb.id)
	}
	// A slot named by id_slot, whatever it holds.
	l.release(aa.id, "A")
	if g, _ := l.take(ctx, "Z", &aa.id, none); g.id != aa.id || g.hit || !g.used {
		t.Errorf("id_slot %d: %+v", aa.id, g)
	}
}
