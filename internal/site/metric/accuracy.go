package metric

import (
	"github.com/llmbench/llmbench/internal/accuracy"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// A run's accuracy on the evaluation sets it finished (llmbench eval, issue 38), for
// the leaderboard's filter that hides runs far below the best of their model
// (store.AccuracyFilter).

// AccuracyScore is a run's accuracy on one set: the set's key (accuracy.SetKey) and
// the share right, in [0, 1].
type AccuracyScore struct {
	SetKey string
	Score  float64
}

// accuracyScores are the finished evaluations of r with a score.
func accuracyScores(r *rundoc.Run) []AccuracyScore {
	var out []AccuracyScore
	seen := map[string]bool{}
	for i := range r.Accuracy {
		a := &r.Accuracy[i]
		score, ok := accuracy.Scored(a)
		if key := accuracy.SetKey(a); ok && !seen[key] {
			seen[key] = true
			out = append(out, AccuracyScore{key, score})
		}
	}
	return out
}
