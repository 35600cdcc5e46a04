package store_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// TestCapacityValuesBackfilledOnReindex: runs stored before the capacity metrics
// existed get their values when the store next re-reads its documents (the registry's
// signature changed), on both stores; the values are internal/capacity's answers (the
// seed: 8, 2, 1 and 0 users at 0, 16K, 32K and 56K, at every table speed).
func TestCapacityValuesBackfilledOnReindex(t *testing.T) {
	storetest.Pair(t, func(t *testing.T, a, _ *store.Store) {
		ctx := context.Background()
		saved := metric.CellMetrics
		t.Cleanup(func() { metric.CellMetrics = saved })
		// A store as it was before: indexed under the registry without them.
		metric.CellMetrics = slices.DeleteFunc(slices.Clone(saved), func(m metric.CellMetric) bool { return strings.HasPrefix(m.Name, "users") })
		if _, err := a.Reindex(ctx); err != nil {
			t.Fatal(err)
		}
		putVariant(t, a, "slow-3090", "RedHatAI/Qwen3.8-27B-INT4", "RTX 3090", 1, rundoc.RunMeasured)
		q := store.CellQuery{Metric: "users", Context: 16 * rundoc.K, Level: metric.DefaultSpeed}
		metric.CellMetrics = saved
		if got := rankedIDs(t, a, q); len(got) != 0 {
			t.Fatalf("before the reindex the capacity metric ranks %v", got)
		}
		if n, err := a.Reindex(ctx); err != nil || n != 1 {
			t.Fatalf("Reindex = %d, %v; want 1 run re-read", n, err)
		}
		values, err := a.CellValues(ctx, []string{"slow-3090"}, "users")
		if err != nil {
			t.Fatal(err)
		}
		got := map[[2]float64]float64{}
		for _, v := range values["slow-3090"] {
			got[[2]float64{float64(v.Context), v.Level}] = v.Value
		}
		want := map[[2]float64]float64{}
		for _, speed := range []float64{10, 20, 40} {
			for ctx, users := range map[int]float64{0: 8, 16 * rundoc.K: 2, 32 * rundoc.K: 1, 56 * rundoc.K: 0} {
				want[[2]float64{float64(ctx), speed}] = users
			}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("the seed variant's users by (context, speed) after the reindex (-want +got):\n%s", d)
		}
	})
}
