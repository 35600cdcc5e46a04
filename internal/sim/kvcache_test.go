package sim

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBlockPoolPrefixCache(t *testing.T) {
	p := newBlockPool(4, true)
	a := p.allocate(nil, 2)
	p.commit(a[0], 100)
	p.commit(a[1], 101)
	if p.used() != 2 {
		t.Fatalf("used %d, want 2", p.used())
	}
	// Both blocks are found while held, and the hit takes a reference.
	hits := p.lookup([]uint64{100, 101, 102}, 3)
	if diff := cmp.Diff(a, hits); diff != "" {
		t.Fatalf("lookup (-want +got):\n%s", diff)
	}
	p.touch(hits)
	p.release(a)
	if p.used() != 2 {
		t.Fatalf("used %d after one of two owners freed, want 2", p.used())
	}
	p.release(hits)
	if p.used() != 0 {
		t.Fatalf("used %d after all owners freed, want 0", p.used())
	}
	// Freed cached blocks stay findable until their space is needed. The two fresh
	// blocks come first, then the tail block (101) is evicted before the prefix (100).
	if got := p.lookup([]uint64{100, 101}, 2); len(got) != 2 {
		t.Fatalf("freed blocks should stay cached, found %d", len(got))
	}
	p.allocate(nil, 3)
	if got := p.lookup([]uint64{100}, 1); len(got) != 1 {
		t.Errorf("the prefix block was evicted before the tail block")
	}
	if got := p.lookup([]uint64{100, 101}, 2); len(got) != 1 {
		t.Errorf("the tail block should have been evicted, found %d blocks", len(got))
	}
	// A cache hit on a free block takes it out of the pool's free count.
	hits = p.lookup([]uint64{100}, 1)
	if p.evictableAmong(hits) != 1 {
		t.Errorf("a freed cached block should count as evictable")
	}
	p.touch(hits)
	if p.numFree != 0 {
		t.Errorf("numFree %d after touching the last free block, want 0", p.numFree)
	}
}

func TestBlockPoolNoPrefixCaching(t *testing.T) {
	p := newBlockPool(2, false)
	a := p.allocate(nil, 1)
	p.commit(a[0], 7)
	p.release(a)
	if got := p.lookup([]uint64{7}, 1); len(got) != 0 {
		t.Errorf("prefix caching off: lookup found %v", got)
	}
}
