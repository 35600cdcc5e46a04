package board

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
)

// The leaderboard's accuracy filter (issue 38): accuracy_within=X hides the runs whose
// accuracy on an evaluation set is more than X points below the best run of their
// model family on that set (store.AccuracyFilter says how runs and sets are matched).
// Off when the parameter is absent; the page, its form and the API take it alike.

// Filters reads the filters shared by the leaderboard, the run list and
// GET /api/v1/runs.
func Filters(v url.Values, maxLimit int) (store.Query, *guard.FieldError) {
	q := store.Query{Model: v.Get("model"), GPU: v.Get("gpu"), Engine: v.Get("engine"),
		Quantization: v.Get("quant"), Profile: v.Get("profile"), Org: v.Get("org"), Submitter: v.Get("submitter"),
		Family: v.Get("family"), Author: v.Get("author")}
	if sz := v.Get("size"); sz != "" {
		b, ok := store.SizeBucketByName(sz)
		if !ok {
			var names []string
			for _, b := range store.SizeBuckets {
				names = append(names, b.Name)
			}
			return q, guard.Refuse("size", "qerr_size", strings.Join(names, ", "))
		}
		q.SizeMin, q.SizeMax = b.Min, b.Max
	}
	switch m := v.Get("mode"); m {
	case "", metric.ModeMatrix, metric.ModeRate:
		q.Mode = m
	default:
		return q, guard.Refuse("mode", "qerr_mode")
	}
	if k := v.Get("kind"); k != "" && k != "all" {
		for _, kind := range strings.Split(k, ",") {
			switch kind {
			case "measured", "emulated", "predicted":
				q.Kinds = append(q.Kinds, kind)
			default:
				return q, guard.Refuse("kind", "qerr_kind")
			}
		}
	}
	if m := v.Get("sort"); m != "" && m != "newest" && v.Get("metric") == "" {
		q.Sort = metric.Metric(m)
		if !q.Sort.Valid() {
			return q, guard.Refuse("sort", "qerr_sort")
		}
	}
	var err error
	if l := v.Get("limit"); l != "" {
		if q.Limit, err = strconv.Atoi(l); err != nil || q.Limit < 1 || q.Limit > maxLimit {
			return q, guard.Refuse("limit", "qerr_limit", maxLimit)
		}
	}
	if o := v.Get("offset"); o != "" {
		if q.Offset, err = strconv.Atoi(o); err != nil || q.Offset < 0 || q.Offset > 1_000_000 {
			return q, guard.Refuse("offset", "qerr_offset")
		}
	}
	return q, nil
}

// AccuracyFilter reads accuracy_within: percentage points, 0 to 100.
func AccuracyFilter(v url.Values) (store.AccuracyFilter, *guard.FieldError) {
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

// Defaults completes a ranking's query alike on the page and in the API: 50 runs
// a page, and measured runs only unless kind says otherwise (emulated and predicted
// runs stay off the board); a ranking has its own order, so sort= does not apply.
func Defaults(q store.Query, v url.Values) store.Query {
	q.Sort = ""
	if q.Limit == 0 {
		q.Limit = 50
	}
	if len(q.Kinds) == 0 && v.Get("kind") != "all" {
		q.Kinds = []string{rundoc.RunMeasured}
	}
	return q
}

// Grouped says the ranking asks for one entry per setup (?group=setup).
func Grouped(v url.Values) bool { return v.Get("group") == "setup" }
