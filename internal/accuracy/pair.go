package accuracy

import (
	"fmt"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// Comparison is the paired A/B of two runs over the same items: each item right or
// wrong in each run.
type Comparison struct {
	Set string
	// Comparable is false when the runs did not ask the same thing (Why says how they
	// differ); no other field is then filled.
	Comparable bool
	Why        string
	// Pairs is how many items both runs scored; Skipped how many items one of them
	// could not score (a failed request).
	Pairs, Skipped int
	// BothRight, OnlyA (A right, B wrong: a flip to wrong), OnlyB (a flip to right),
	// BothWrong: the 2×2 table of pairs.
	BothRight, OnlyA, OnlyB, BothWrong int
	// AccA and AccB are each run's accuracy over the pairs; Delta is AccB − AccA with
	// Newcombe's 95% interval; P the exact McNemar test's two-sided p-value.
	AccA, AccB, Delta float64
	DeltaCI           stats.Interval
	P                 float64
}

// Compare pairs a's and b's items. Runs are comparable when they asked the same set
// (name, revision, data checksum, prompt) and the same items with the same references.
func Compare(a, b *rundoc.Accuracy) Comparison {
	c := Comparison{Set: a.Set.Name}
	if why := differ(a, b); why != "" {
		c.Why = why
		return c
	}
	bi := make(map[string]rundoc.EvalItem, len(b.Items))
	for _, it := range b.Items {
		bi[it.ID] = it
	}
	for _, x := range a.Items {
		y := bi[x.ID]
		if x.Error != "" || y.Error != "" {
			c.Skipped++
			continue
		}
		switch {
		case x.Correct && y.Correct:
			c.BothRight++
		case x.Correct:
			c.OnlyA++
		case y.Correct:
			c.OnlyB++
		default:
			c.BothWrong++
		}
	}
	c.Pairs = c.BothRight + c.OnlyA + c.OnlyB + c.BothWrong
	if c.Pairs == 0 {
		c.Why = "no item was scored by both runs"
		return c
	}
	c.Comparable = true
	n := float64(c.Pairs)
	c.AccA, c.AccB = float64(c.BothRight+c.OnlyA)/n, float64(c.BothRight+c.OnlyB)/n
	c.Delta = c.AccB - c.AccA
	c.DeltaCI, _ = stats.PairedDifference(c.BothRight, c.OnlyA, c.OnlyB, c.BothWrong)
	c.P = stats.McNemarExact(c.OnlyA, c.OnlyB)
	return c
}

// differ says how two runs' sets or items differ, "" when they are the same.
func differ(a, b *rundoc.Accuracy) string {
	sa, sb := a.Set, b.Set
	switch {
	case sa.Name != sb.Name:
		return fmt.Sprintf("different sets (%s, %s)", sa.Name, sb.Name)
	case sa.Revision != sb.Revision || sa.SHA256 != sb.SHA256:
		return fmt.Sprintf("different revisions of %s (%s, %s)", sa.Name, short(sa.Revision), short(sb.Revision))
	case sa.Prompt != sb.Prompt:
		return fmt.Sprintf("different prompts (%s, %s)", sa.Prompt, sb.Prompt)
	}
	ref := make(map[string]string, len(b.Items))
	for _, it := range b.Items {
		ref[it.ID] = it.Expected
	}
	common := 0
	for _, it := range a.Items {
		e, ok := ref[it.ID]
		if !ok {
			continue
		}
		if e != it.Expected {
			return fmt.Sprintf("item %s has different reference answers (%q, %q)", it.ID, it.Expected, e)
		}
		common++
	}
	if common != len(a.Items) || common != len(b.Items) {
		return fmt.Sprintf("different items (%d and %d, %d in common)", len(a.Items), len(b.Items), common)
	}
	return ""
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
