package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/llmbench/llmbench/internal/site/metric"
)

// The leaderboard's filter that hides runs far below the best accuracy of their model
// (llmbench eval, issue 38), over run_accuracy (the scores metric.Summarize reads).

// AccuracyFilter hides the runs whose accuracy on some evaluation set is more than
// WithinPoints percentage points below the best accuracy of a run of the same model
// family (names.Family: the base model whatever its name or weight format, so that a
// quantized checkpoint is held to its original) on the same set (accuracy.SetKey:
// name, revision, data, prompt, scorer and --limit). The best is taken over every run
// on the site, whatever a page's other filters, and only finished evaluations count;
// a run with no such evaluation is kept. Off unless On.
type AccuracyFilter struct {
	On           bool
	WithinPoints float64
}

// accuracySlack keeps a run exactly WithinPoints below the best (0.70 against 0.75 at
// 5 points) on the right side of the rounding of their difference.
const accuracySlack = 1e-9

// condition is the filter as a condition on a run of the outer query, whose runs
// table's id is the only "id" in reach.
func (f AccuracyFilter) condition() (string, []any) {
	return `NOT EXISTS (SELECT 1 FROM run_accuracy a WHERE a.run_id = id AND a.score < ` +
		`(SELECT MAX(b.score) FROM run_accuracy b WHERE b.family = a.family AND b.set_key = a.set_key) - ?)`, []any{f.WithinPoints/100 + accuracySlack}
}

// putAccuracy writes a run's scores, in the transaction that stores or re-reads it.
func (s *Store) putAccuracy(ctx context.Context, tx *sql.Tx, runID, family string, scores []metric.AccuracyScore) error {
	for _, a := range scores {
		if _, err := s.exec(ctx, tx, `INSERT INTO run_accuracy (run_id, set_key, family, score) VALUES (?, ?, ?, ?)`, runID, a.SetKey, family, a.Score); err != nil {
			return fmt.Errorf("storing the run's accuracy: %w", err)
		}
	}
	return nil
}
