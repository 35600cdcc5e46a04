package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// countSite stores n runs at once from 16 goroutines: models (of three sizes, and one
// whose name states none), GPUs and kinds spread so that runs share some count rows
// (the profile's, the mode's, a GPU's, a size's) and not others.
func countSite(t *testing.T, s *store.Store, n int) {
	t.Helper()
	kinds := []string{rundoc.RunMeasured, rundoc.RunMeasured, rundoc.RunEmulated}
	docs := make([][]byte, n)
	recs := make([]store.RunRecord, n)
	for i := range n {
		doc, r := variant(t, fmt.Sprintf("c%03d", i), fmt.Sprintf("org/m%d%s", i%5, []string{"-7B", "-32B", "-70B", ""}[i%4]), []string{"RTX 4090", "H100", "L40S"}[i%3], 1+float64(i)/10, kinds[i%len(kinds)])
		docs[i], recs[i] = doc, record(r, "@alice", "")
	}
	var wg sync.WaitGroup
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	for range 16 {
		wg.Go(func() {
			for i := range next {
				if created, err := s.PutRun(context.Background(), recs[i], docs[i]); err != nil || !created {
					t.Errorf("storing run %d: created %v, %v", i, created, err)
				}
			}
		})
	}
	wg.Wait()
}

// recountMatches checks that the counts s holds are those a recount from the runs
// gives, with no run left to count.
func recountMatches(t *testing.T, s *store.Store) {
	t.Helper()
	ctx := context.Background()
	kept, queued, err := s.CountsForTesting(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(queued) > 0 {
		t.Errorf("runs left uncounted: %v", queued)
	}
	if err := s.RecountForTesting(ctx); err != nil {
		t.Fatal(err)
	}
	recounted, _, err := s.CountsForTesting(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(recounted) == 0 {
		t.Fatal("a recount of the stored runs counts nothing")
	}
	if d := cmp.Diff(recounted, kept); d != "" {
		t.Errorf("counts kept as runs were stored differ from a recount (-recount +kept):\n%s", d)
	}
}

// TestCountsOfRunsStoredAtOnceAreTheRecount: runs stored by 16 submitters at once are
// each counted once, in run_groups, metric_cells, run_pairs and run_sizes, whichever
// pass counts them.
func TestCountsOfRunsStoredAtOnceAreTheRecount(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		countSite(t, s, 48)
		recountMatches(t, s)
		g, err := s.GPU(context.Background(), "H100")
		if err != nil || g.Runs != 16 {
			t.Errorf("GPU(H100) = %+v, %v; want 16 runs", g, err)
		}
	})
}

// TestAFailedCountIsMadeUpByTheNext: when adding a stored run to the counts fails, the
// run stays stored, PutRun says it is not counted, and the next run's counting counts
// it too.
func TestAFailedCountIsMadeUpByTheNext(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		doc, r := variant(t, "f1", "org/a", "H100", 1, rundoc.RunMeasured)
		s.FailNextCountForTesting()
		created, err := s.PutRun(ctx, record(r, "@alice", ""), doc)
		if !created || !errors.Is(err, store.ErrNotCounted) {
			t.Fatalf("PutRun with its counting failing: created %v, %v; want created and ErrNotCounted", created, err)
		}
		if _, queued, _ := s.CountsForTesting(ctx); len(queued) != 1 {
			t.Fatalf("queued to count: %v, want f1", queued)
		}
		doc, r = variant(t, "f2", "org/b", "H100", 1, rundoc.RunMeasured)
		if _, err := s.PutRun(ctx, record(r, "@alice", ""), doc); err != nil {
			t.Fatal(err)
		}
		recountMatches(t, s)
		if g, err := s.GPU(ctx, "H100"); err != nil || g.Runs != 2 {
			t.Errorf("GPU(H100) = %+v, %v; want 2 runs", g, err)
		}
	})
}

// TestRunsLeftUncountedAreCountedAtOpen: runs stored but never counted (the site
// stopped between the two) are counted when the store is next opened.
func TestRunsLeftUncountedAreCountedAtOpen(t *testing.T) {
	storetest.EachDSN(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		countSite(t, s, 6)
		want, _, err := s.CountsForTesting(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// As a crash after each run's own transaction leaves them.
		for _, q := range []string{`DELETE FROM run_groups`, `DELETE FROM metric_cells`, `DELETE FROM run_pairs`, `DELETE FROM run_sizes`, `DELETE FROM cell_best`,
			`INSERT INTO run_count_queue (run_id) SELECT id FROM runs`} {
			if err := s.ExecForTesting(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		s, err = store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got, queued, err := s.CountsForTesting(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(queued) > 0 {
			t.Errorf("runs left uncounted after Open: %v", queued)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("counts after Open differ from those kept as stored (-kept +after Open):\n%s", d)
		}
	})
}
