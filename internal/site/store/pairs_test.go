package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// pairSite stores four runs: two on RTX 4090 (model a, b), one on H100 (model a) and
// one emulated on H100 (model c); the engine is the seed's (vllm) for all.
func pairSite(t *testing.T, s *store.Store) {
	t.Helper()
	ctx := context.Background()
	for _, v := range []struct{ id, model, gpu, kind string }{
		{"p1", "org/a", "RTX 4090", "measured"}, {"p2", "org/b", "RTX 4090", "measured"},
		{"p3", "org/a", "H100", "measured"}, {"p4", "org/c", "H100", "emulated"},
	} {
		doc, r := variant(t, v.id, v.model, v.gpu, 1, v.kind)
		if _, err := s.PutRun(ctx, record(r, "@alice", ""), doc); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPairCountsAsStoredAreTheRecount: the pair counts kept as runs are stored are
// those a recount from the runs gives, and count what was stored.
func TestPairCountsAsStoredAreTheRecount(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		pairSite(t, s)
		kept, err := s.PairCountsForTesting(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for pair, want := range map[string]int{"model=org/a gpu=RTX 4090": 1, "model=org/a gpu=H100": 1, "gpu=RTX 4090 engine=vllm": 2, "gpu=H100 engine=vllm": 2} {
			if kept[pair] != want {
				t.Errorf("run_pairs[%s] = %d, want %d", pair, kept[pair], want)
			}
		}
		if _, ok := kept["model=org/b gpu=H100"]; ok {
			t.Error("a pair no run has is counted")
		}
		if err := s.RecountForTesting(ctx); err != nil {
			t.Fatal(err)
		}
		recounted, err := s.PairCountsForTesting(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(kept, recounted); diff != "" {
			t.Errorf("pair counts kept as stored differ from a recount (-kept +recounted):\n%s", diff)
		}
	})
}

// TestFiltersThatNeverMeet: two values that each have runs but none together list
// nothing, whether the pairs were counted as stored or filled afterwards (a store made
// before run_pairs existed); two that meet list their runs.
func TestFiltersThatNeverMeet(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		pairSite(t, s)
		check := func(when string) {
			t.Helper()
			for _, c := range []struct {
				q    store.Query
				want []string
			}{
				{store.Query{GPU: "H100", Model: "org/b"}, nil},
				{store.Query{GPU: "H100", Model: "org/b", Sort: "peak"}, nil},
				{store.Query{GPU: "H100", Model: "org/a", Sort: "peak"}, []string{"p3"}},
				{store.Query{GPU: "RTX 4090", Engine: "vllm", Sort: "peak"}, []string{"p1", "p2"}},
				{store.Query{GPU: "H100", Model: "org/c", Kinds: []string{"measured"}}, nil},
			} {
				if got := listedIDs(t, s, c.q); !cmp.Equal(got, c.want) {
					t.Errorf("%s: ListRuns(%+v) = %v, want %v", when, c.q, got, c.want)
				}
			}
		}
		check("counted as stored")
		if err := s.ExecForTesting(ctx, `DELETE FROM run_pairs`); err != nil {
			t.Fatal(err)
		}
		if err := s.FillPairsForTesting(ctx); err != nil {
			t.Fatal(err)
		}
		check("filled afterwards")
	})
}

// listedIDs is the ids of the runs ListRuns lists for q, sorted.
func listedIDs(t *testing.T, s *store.Store, q store.Query) []string {
	t.Helper()
	runs, err := s.ListRuns(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	return sortedIDs(ids)
}

// asStoredAndReindexed runs check on the runs as stored, then again after their
// index is forgotten and re-read from the documents (Reindex).
func asStoredAndReindexed(t *testing.T, s *store.Store, check func(when string)) {
	t.Helper()
	check("as stored")
	if err := s.ForgetIndexForTesting(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reindex(context.Background()); err != nil {
		t.Fatal(err)
	}
	check("re-indexed")
}

func sortedIDs(ids []string) []string {
	if len(ids) == 0 {
		return nil
	}
	return slices.Sorted(slices.Values(ids))
}
