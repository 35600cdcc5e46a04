package site

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/store"
)

// The leaderboard's accuracy filter (issue 38): accuracy_within=X hides the runs whose
// accuracy on an evaluation set is more than X points below the best run of their
// model family on that set (store.AccuracyFilter says how runs and sets are matched).
// Off when the parameter is absent; the page, its form and the API take it alike.

// accuracyFilter reads accuracy_within: percentage points, 0 to 100.
func accuracyFilter(v url.Values) (store.AccuracyFilter, *guard.FieldError) {
	s := strings.TrimSpace(v.Get("accuracy_within"))
	if s == "" {
		return store.AccuracyFilter{}, nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || !(x >= 0 && x <= 100) {
		return store.AccuracyFilter{}, guard.Refuse("accuracy_within", "qerr_accuracy_within")
	}
	return store.AccuracyFilter{On: true, WithinPoints: x}, nil
}
