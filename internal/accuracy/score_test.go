package accuracy

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// TestSummarizeHandComputedWilson: 140 of 200 right is 70.0%, and Wilson's 95%
// interval by hand (z = 1.959964, z² = 3.841459): centre (0.7 + z²/400)/(1 + z²/200)
// = 0.709604/1.019207 = 0.696231, half width z·√(0.7·0.3/200 + z²/160000)/1.019207 =
// 0.063022 → [0.6332, 0.7593].
func TestSummarizeHandComputedWilson(t *testing.T) {
	a := &rundoc.Accuracy{Planned: 200}
	for i := range 200 {
		it := rundoc.EvalItem{ID: fmt.Sprint(i), Expected: "7", Category: []string{"x", "y"}[i%2]}
		content := "#### 7"
		if i%10 >= 7 {
			content = "#### 8"
		}
		a.Items = append(a.Items, Score(it, Number, Response{Content: content, CompletionTokens: 10 + i%3}))
	}
	Summarize(a)
	if a.Status != rundoc.AccuracyComplete || a.Correct != 140 || a.Scored != 200 || *a.Score != 0.7 {
		t.Fatalf("got %s %d/%d %v", a.Status, a.Correct, a.Scored, *a.Score)
	}
	if math.Abs(a.CI.Low-0.6332) > 5e-5 || math.Abs(a.CI.High-0.7593) > 5e-5 {
		t.Errorf("Wilson interval %+v, want [0.6332, 0.7593]", *a.CI)
	}
	if len(a.Categories) != 2 || a.Categories[0].Name != "x" || a.Categories[0].Scored != 100 {
		t.Errorf("categories %+v", a.Categories)
	}
	if m := *a.CompletionTokensMean; math.Abs(m-(10*67+11*67+12*66)/200.0) > 1e-9 {
		t.Errorf("tokens per item %v", m)
	}
}

func TestSummarizeLeavesFailuresUnscored(t *testing.T) {
	a := &rundoc.Accuracy{Planned: 3, Items: []rundoc.EvalItem{
		Score(rundoc.EvalItem{ID: "1", Expected: "A"}, Choice, Response{Content: "The answer is (A)"}),
		Failed(rundoc.EvalItem{ID: "2", Expected: "B"}, "HTTP 500"),
	}}
	Summarize(a)
	if a.Status != rundoc.AccuracyPending || a.Scored != 1 || a.Errors != 1 || *a.Score != 1 {
		t.Errorf("%+v", a)
	}
}

// pairOf builds two runs over n items whose verdicts are given per item as "RW"
// strings (A's then B's).
func pairOf(verdicts []string) (*rundoc.Accuracy, *rundoc.Accuracy) {
	set := rundoc.EvalSet{Name: "t", Revision: "r", SHA256: "s", Prompt: "p"}
	a, b := &rundoc.Accuracy{Set: set, Planned: len(verdicts)}, &rundoc.Accuracy{Set: set, Planned: len(verdicts)}
	for i, v := range verdicts {
		a.Items = append(a.Items, rundoc.EvalItem{ID: fmt.Sprint(i), Expected: "1", Correct: v[0] == 'R'})
		b.Items = append(b.Items, rundoc.EvalItem{ID: fmt.Sprint(i), Expected: "1", Correct: v[1] == 'R'})
	}
	return a, b
}

// TestCompareMcNemar: 12 items only A got right and 3 only B got right (issue 38's
// case) give McNemar's exact p = 0.0352.
func TestCompareMcNemar(t *testing.T) {
	v := strings.Split(strings.Repeat("RW,", 12)+strings.Repeat("WR,", 3)+strings.Repeat("RR,", 60)+strings.Repeat("WW,", 25), ",")
	a, b := pairOf(v[:len(v)-1])
	c := Compare(a, b)
	if !c.Comparable || c.OnlyA != 12 || c.OnlyB != 3 || c.BothRight != 60 || c.BothWrong != 25 || c.Pairs != 100 {
		t.Fatalf("%+v", c)
	}
	if math.Round(c.P*1e4)/1e4 != 0.0352 {
		t.Errorf("p = %v, want 0.0352", c.P)
	}
	if math.Abs(c.Delta-(-0.09)) > 1e-12 || !c.DeltaCI.Contains(c.Delta) || c.DeltaCI.High >= 0 {
		t.Errorf("delta %v in %+v: B is worse, the interval should lie below 0", c.Delta, c.DeltaCI)
	}
}

func TestCompareRefusesDifferentRuns(t *testing.T) {
	a, b := pairOf([]string{"RR", "RW"})
	b.Set.Revision = "other"
	if c := Compare(a, b); c.Comparable || !strings.Contains(c.Why, "revisions") {
		t.Errorf("different revisions: %+v", c)
	}
	a, b = pairOf([]string{"RR", "RW"})
	b.Items[1].ID = "9"
	if c := Compare(a, b); c.Comparable || !strings.Contains(c.Why, "different items") {
		t.Errorf("different items: %+v", c)
	}
	a, b = pairOf([]string{"RR", "RW"})
	b.Items[0].Expected = "2"
	if c := Compare(a, b); c.Comparable || !strings.Contains(c.Why, "reference") {
		t.Errorf("different references: %+v", c)
	}
}
