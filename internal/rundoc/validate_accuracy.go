package rundoc

import (
	"fmt"
	"math"

	"github.com/llmbench/llmbench/internal/stats"
)

// Accuracy fields of a submitted run (issue 38) must add up: the counts agree with
// the items, the score is Correct ÷ Scored, every share lies in [0, 1] and every
// item names itself once. A figure the items do not support is refused, so the site
// never shows a score that its own records contradict.

// Bounds of an accuracy entry, far beyond any real evaluation set.
const (
	maxEvalSets  = 16
	maxEvalItems = 20000 // GSM8K has 1,319 items, MMLU-Pro's test split 12,032
	maxItemText  = 1024  // an extracted answer or a reference answer
)

func (v *validator) accuracy(as []Accuracy) {
	if len(as) > maxEvalSets {
		v.fail("accuracy", "has %d sets; at most %d", len(as), maxEvalSets)
	}
	seen := map[string]bool{}
	for i, a := range as {
		f := fmt.Sprintf("accuracy[%d]", i)
		v.required(f+".set.name", a.Set.Name)
		v.name(f+".set.name", a.Set.Name)
		v.name(f+".set.revision", a.Set.Revision)
		v.name(f+".set.sha256", a.Set.SHA256)
		if seen[a.Set.Name] {
			v.fail(f+".set.name", "a second entry for set %q", a.Set.Name)
		}
		seen[a.Set.Name] = true
		switch a.Status {
		case AccuracyComplete:
		case AccuracyPending:
			v.fail(f+".status", "the evaluation is still in progress: finish it with llmbench eval --resume before submitting")
		default:
			v.fail(f+".status", "must be %q, not %q", AccuracyComplete, a.Status)
		}
		v.accuracyCounts(f, a)
		v.accuracyItems(f, a.Items)
	}
}

// accuracyCounts checks the entry's figures against its items.
func (v *validator) accuracyCounts(f string, a Accuracy) {
	if len(a.Items) > maxEvalItems {
		v.fail(f+".items", "has %d items; at most %d", len(a.Items), maxEvalItems)
		return
	}
	var scored, correct, errs int
	for _, it := range a.Items {
		switch {
		case it.Error != "":
			errs++
		case it.Correct:
			scored, correct = scored+1, correct+1
		default:
			scored++
		}
	}
	if a.Scored != scored || a.Correct != correct || a.Errors != errs {
		v.fail(f, "scored %d, correct %d, errors %d do not match its items (%d, %d, %d)", a.Scored, a.Correct, a.Errors, scored, correct, errs)
	}
	if a.Planned < len(a.Items) {
		v.fail(f+".planned", "%d is fewer than its %d items", a.Planned, len(a.Items))
	}
	if a.Score != nil && (scored == 0 || math.Abs(*a.Score-float64(correct)/float64(scored)) > 1e-9) {
		v.fail(f+".accuracy", "%v is not correct ÷ scored (%d ÷ %d)", *a.Score, correct, scored)
	}
	v.share(f+".accuracy_ci95", a.CI, a.Score)
	v.optNumber(f+".completion_tokens_mean", a.CompletionTokensMean, MaxTokens)
	for j, c := range a.Categories {
		cf := fmt.Sprintf("%s.categories[%d]", f, j)
		v.name(cf+".name", c.Name)
		if c.Correct < 0 || c.Correct > c.Scored || c.Scored > scored {
			v.fail(cf, "correct %d of %d scored is not possible", c.Correct, c.Scored)
		}
		s := c.Score
		v.share(cf+".accuracy_ci95", c.CI, &s)
	}
}

// share checks an interval of a share: inside [0, 1] and around the point.
func (v *validator) share(field string, iv *stats.Interval, point *float64) {
	if iv == nil {
		return
	}
	v.number(field+".low", iv.Low, 1)
	v.number(field+".high", iv.High, 1)
	if iv.Low > iv.High || (point != nil && !iv.Contains(*point)) {
		v.fail(field, "[%v, %v] does not hold the accuracy it belongs to", iv.Low, iv.High)
	}
}

// accuracyItems checks each item record.
func (v *validator) accuracyItems(f string, items []EvalItem) {
	ids := make(map[string]bool, len(items))
	for j, it := range items {
		itf := fmt.Sprintf("%s.items[%d]", f, j)
		v.required(itf+".id", it.ID)
		v.name(itf+".id", it.ID)
		if ids[it.ID] {
			v.fail(itf+".id", "%q is listed twice", it.ID)
		}
		ids[it.ID] = true
		v.name(itf+".category", it.Category)
		v.text(itf+".expected", it.Expected, maxItemText)
		v.text(itf+".answer", it.Answer, maxItemText)
		v.text(itf+".error", it.Error, maxReason)
		v.count(itf+".completion_tokens", it.CompletionTokens)
		if it.Error != "" && it.Correct {
			v.fail(itf+".correct", "a failed request cannot be correct")
		}
		if v.err != nil {
			return
		}
	}
}
