package store_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// sizeSite stores five runs: two of a 7B model on H200 (every H200 run is 7B, as in
// the benchmark's million), a 32B and an unsized model on RTX 4090, and an emulated
// 70B on RTX 4090.
func sizeSite(t *testing.T, s *store.Store) {
	t.Helper()
	for _, v := range []struct{ id, model, gpu, kind string }{
		{"s1", "org/a-7B", "H200", rundoc.RunMeasured}, {"s2", "org/a-7B", "H200", rundoc.RunMeasured},
		{"s3", "org/b-32B", "RTX 4090", rundoc.RunMeasured}, {"s4", "org/c", "RTX 4090", rundoc.RunMeasured},
		{"s5", "org/d-70B", "RTX 4090", rundoc.RunEmulated},
	} {
		doc, r := variant(t, v.id, v.model, v.gpu, 1, v.kind)
		if _, err := s.PutRun(context.Background(), record(r, "@alice", ""), doc); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSizeCountsBoundWhatFiltersMatch (issue 39 item 4): run_sizes says at once how
// many runs of a value have a size a size filter keeps — none of the H200's in
// 20–40B — kept as runs are stored, filled for runs stored before it existed, and
// rebuilt on re-indexing; and a size that no run of the GPU has lists, ranks and
// counts nothing while one it has lists its runs.
func TestSizeCountsBoundWhatFiltersMatch(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		sizeSite(t, s)
		check := func(when string) {
			t.Helper()
			for _, c := range []struct {
				q    store.Query
				want int
			}{
				{store.Query{GPU: "H200", SizeMin: 20, SizeMax: 40}, 0},
				{store.Query{GPU: "h200", SizeMin: 20, SizeMax: 40}, 0},
				{store.Query{GPU: "H200", SizeMax: 10}, 2},
				{store.Query{GPU: "RTX 4090", SizeMin: 20, SizeMax: 40}, 1},
				{store.Query{GPU: "RTX 4090", SizeMin: 40}, 1},
				{store.Query{SizeMax: 10}, 2}, // an unsized model is in no range with an upper bound
				{store.Query{SizeMin: 100}, 0},
				{store.Query{GPU: "RTX 4090", Model: "org/b-32B", SizeMin: 20, SizeMax: 40}, 1},
				{store.Query{GPU: "H200", Model: "org/a-7B", SizeMin: 20, SizeMax: 40}, 0},
			} {
				n, known, err := s.FewestMatchingForTesting(ctx, c.q)
				if err != nil || !known || n != c.want {
					t.Errorf("%s: the counts bound %+v's runs at %d (known %v, %v), want %d", when, c.q, n, known, err, c.want)
				}
			}
			none := store.Query{GPU: "H200", SizeMin: 20, SizeMax: 40}
			some := store.Query{GPU: "H200", SizeMax: 10}
			for _, c := range []struct {
				q    store.Query
				want []string
			}{{none, nil}, {some, []string{"s1", "s2"}}, {store.Query{SizeMin: 100}, nil}} {
				if got := listedIDs(t, s, c.q); !cmp.Equal(got, c.want) {
					t.Errorf("%s: ListRuns(%+v) = %v, want %v", when, c.q, got, c.want)
				}
				ranked, err := s.RankByCell(ctx, store.CellQuery{Query: c.q, Metric: "total_tok_s", Context: 0, Level: 1})
				var ids []string
				for _, r := range ranked {
					ids = append(ids, r.ID)
				}
				if err != nil || !cmp.Equal(sortedIDs(ids), c.want) {
					t.Errorf("%s: RankByCell(%+v) = %v, %v; want %v", when, c.q, ids, err, c.want)
				}
				cells, err := s.MetricCellsOf(ctx, "total_tok_s", c.q)
				if err != nil || (len(cells) == 0) != (c.want == nil) {
					t.Errorf("%s: MetricCellsOf(%+v) = %d cells, %v; want cells exactly when it has runs", when, c.q, len(cells), err)
				}
			}
		}
		asStoredAndReindexed(t, s, check)
		if err := s.ExecForTesting(ctx, `DELETE FROM run_sizes`); err != nil {
			t.Fatal(err)
		}
		if err := s.FillSizesForTesting(ctx); err != nil {
			t.Fatal(err)
		}
		check("filled afterwards")
		recountMatches(t, s)
	})
}

// TestSizesFilledAtOpenCountAQueuedRunOnce: a store made before run_sizes and
// cell_best existed, with a run stored but not yet counted (its pass failed), is
// counted exactly as a recount counts it when next opened: the fills leave the queued
// run to its own count.
func TestSizesFilledAtOpenCountAQueuedRunOnce(t *testing.T) {
	storetest.EachDSN(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		sizeSite(t, s)
		doc, r := variant(t, "queued", "org/b-32B", "H200", 1, rundoc.RunMeasured)
		s.FailNextCountForTesting()
		if _, err := s.PutRun(ctx, record(r, "@alice", ""), doc); err == nil {
			t.Fatal("PutRun with its counting failing: no error")
		}
		for _, table := range []string{"run_sizes", "cell_best"} { // as before migrations 8 and 10
			if err := s.ExecForTesting(ctx, `DELETE FROM `+table); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		if s, err = store.Open(ctx, dsn); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		recountMatches(t, s)
		if n, _, err := s.FewestMatchingForTesting(ctx, store.Query{GPU: "H200", SizeMin: 20, SizeMax: 40}); err != nil || n != 1 {
			t.Errorf("H200 runs of 20–40B after Open: %d, %v; want the queued run", n, err)
		}
	})
}
