package overlay

import (
	"testing"

	"github.com/llmbench/llmbench/internal/overlay/overlaytest"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// TestOfMarksExactlyThePairsDisjointFigures: over the shared pair (every case of the
// rule in one document, both documents valid for a site), the marked figures are
// exactly the ones the pair names, with their direction; and every case shows up.
func TestOfMarksExactlyThePairsDisjointFigures(t *testing.T) {
	mine, best, want := overlaytest.Pair()
	for _, r := range []*rundoc.Run{mine, best} {
		if err := rundoc.Validate(r); err != nil {
			t.Fatalf("%s does not validate: %v", r.ID, err)
		}
	}
	seen := map[Mark]int{}
	for _, r := range Of(mine, best).Rows {
		for _, f := range r.Figures {
			seen[f.Mark]++
			k := overlaytest.Key{Prefill: r.Prefill, Context: r.Context, Concurrency: r.Concurrency, Figure: f.Name}
			if got := string(f.Mark); f.Mark.Marked() != (want[k] != "") || (f.Mark.Marked() && got != want[k]) {
				t.Errorf("%+v: %s, want %q", k, f.Mark, want[k])
			}
		}
	}
	for _, m := range []Mark{Better, Worse, Noise, NoInterval, NotComparable, OnlyMine, OnlyBest} {
		if seen[m] == 0 {
			t.Errorf("no figure marked %s: the pair lost a case", m)
		}
	}
	if b, w := Of(mine, best).Marked(); b+w != len(want) {
		t.Errorf("%d marked, want %d", b+w, len(want))
	}
}
