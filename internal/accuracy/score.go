package accuracy

import (
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// Score fills item's answer, verdict, tokens and reasoning flag from the server's
// response (the item's ID, Category, Scorer and Expected are kept). scorer is the
// set's default, used where the item names none.
func Score(item rundoc.EvalItem, scorer string, r Response) rundoc.EvalItem {
	if item.Scorer != "" {
		scorer = item.Scorer
	}
	text, reasoning := Final(r)
	item.Answer = Extract(scorer, text, item.Expected)
	item.Correct = Correct(scorer, item.Expected, item.Answer)
	item.Reasoning = reasoning
	item.CompletionTokens = r.CompletionTokens
	item.Finish = r.Finish
	item.Error = ""
	return item
}

// Failed is item recorded as a request that failed with err: not scored.
func Failed(item rundoc.EvalItem, err string) rundoc.EvalItem {
	item.Answer, item.Correct, item.Reasoning, item.CompletionTokens, item.Finish = "", false, false, 0, ""
	item.Error = err
	return item
}

// Summarize computes a's figures from its items: the counts, the accuracy with its
// Wilson 95% interval, the completion tokens per scored item, the categories, and the
// status (complete when every one of a.Planned items is scored).
func Summarize(a *rundoc.Accuracy) {
	a.Scored, a.Correct, a.Errors, a.NoAnswer, a.Reasoning, a.Truncated = 0, 0, 0, 0, 0, 0
	a.Score, a.CI, a.CompletionTokensMean, a.Categories = nil, nil, nil, nil
	tokens := 0
	cats := map[string]*rundoc.CategoryAccuracy{}
	for _, it := range a.Items {
		if it.Error != "" {
			a.Errors++
			continue
		}
		a.Scored++
		tokens += it.CompletionTokens
		if it.Correct {
			a.Correct++
		}
		if it.Answer == "" {
			a.NoAnswer++
		}
		if it.Reasoning {
			a.Reasoning++
		}
		if it.Finish == "length" {
			a.Truncated++
		}
		if it.Category != "" {
			c := cats[it.Category]
			if c == nil {
				c = &rundoc.CategoryAccuracy{Name: it.Category}
				cats[it.Category] = c
			}
			c.Scored++
			if it.Correct {
				c.Correct++
			}
		}
	}
	if a.Scored > 0 {
		s := float64(a.Correct) / float64(a.Scored)
		a.Score, a.CI = &s, wilson(a.Correct, a.Scored)
		m := float64(tokens) / float64(a.Scored)
		a.CompletionTokensMean = &m
	}
	for _, c := range cats {
		c.Score = float64(c.Correct) / float64(c.Scored)
		c.CI = wilson(c.Correct, c.Scored)
		a.Categories = append(a.Categories, *c)
	}
	slices.SortFunc(a.Categories, func(x, y rundoc.CategoryAccuracy) int { return strings.Compare(x.Name, y.Name) })
	a.Status = rundoc.AccuracyPending
	if a.Scored == a.Planned && a.Errors == 0 {
		a.Status = rundoc.AccuracyComplete
	}
}

func wilson(k, n int) *stats.Interval {
	iv, ok := stats.Wilson(k, n)
	if !ok {
		return nil
	}
	return &iv
}

// Rescore scores a's items again from their raw responses (by item id) and
// summarizes the result; an item without a response is kept as it is. A live run and
// a re-score go through Score and Summarize alike, so a document re-scored from its
// own answers is the same document.
func Rescore(a rundoc.Accuracy, responses map[string]Response) rundoc.Accuracy {
	out := a
	out.Items = make([]rundoc.EvalItem, len(a.Items))
	for i, it := range a.Items {
		if r, ok := responses[it.ID]; ok && it.Error == "" {
			it = Score(it, a.Set.Scorer, r)
		}
		out.Items[i] = it
	}
	Summarize(&out)
	return out
}
