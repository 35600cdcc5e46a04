package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// put stores a variant of the seed as submitted by submitter of org.
func put(t *testing.T, s *store.Store, id, model, gpu, submitter, org string) {
	t.Helper()
	doc, r := variant(t, id, model, gpu, 1, rundoc.RunMeasured)
	if _, err := s.PutRun(context.Background(), record(r, submitter, org), doc); err != nil {
		t.Fatalf("storing %s: %v", id, err)
	}
}

func TestOrgAndSubmitterRunCounts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for _, u := range []struct{ user, org string }{{"@alice", "Acme Labs"}, {"@bob", "Acme Labs"}, {"@carol", ""}, {"@dave", "Quiet Co"}} {
			if _, err := s.CreateToken(ctx, u.user, u.org); err != nil {
				t.Fatal(err)
			}
		}
		put(t, s, "a1", "m", "RTX 3090", "@alice", "Acme Labs")
		put(t, s, "a2", "m", "RTX 3090", "@alice", "Acme Labs")
		put(t, s, "b1", "m", "RTX 4090", "@bob", "Acme Labs")
		put(t, s, "c1", "m", "RTX 4090", "@carol", "")

		orgs, err := s.Orgs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wantOrgs := []store.Org{
			{Name: "Acme Labs", Members: []string{"@alice", "@bob"}, Runs: 3},
			{Name: "Quiet Co", Members: []string{"@dave"}, Runs: 0},
		}
		if d := cmp.Diff(wantOrgs, orgs); d != "" {
			t.Errorf("Orgs (-want +got):\n%s", d)
		}
		subs, err := s.Submitters(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wantSubs := []store.Submitter{
			{Name: "@alice", Org: "Acme Labs", Runs: 2},
			{Name: "@bob", Org: "Acme Labs", Runs: 1},
			{Name: "@carol", Runs: 1},
			{Name: "@dave", Org: "Quiet Co", Runs: 0},
		}
		if d := cmp.Diff(wantSubs, subs); d != "" {
			t.Errorf("Submitters (-want +got):\n%s", d)
		}
	})
}

func TestOneGroup(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		put(t, s, "a1", "model-a", "RTX 3090", "@alice", "")
		put(t, s, "a2", "model-a", "RTX 4090", "@alice", "")
		gpus, err := s.GPUs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range gpus {
			got, err := s.GPU(ctx, want.Name)
			if err != nil {
				t.Fatalf("GPU(%q): %v", want.Name, err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("GPU(%q) disagrees with GPUs (-list +one):\n%s", want.Name, d)
			}
		}
		m, err := s.Model(ctx, "model-a")
		if err != nil || m.Runs != 2 {
			t.Errorf("Model(model-a) = %+v, %v; want 2 runs", m, err)
		}
		for _, name := range []string{"RTX 5090", "model-a' OR '1'='1"} {
			if _, err := s.GPU(ctx, name); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("GPU(%q): err = %v, want ErrNotFound", name, err)
			}
		}
		// Another case is the same GPU, as a filter by it is (issue 37 item 9).
		if g, err := s.GPU(ctx, "rtx 3090"); err != nil || g.Name != "RTX 3090" || g.Runs != 1 {
			t.Errorf("GPU(rtx 3090) = %+v, %v; want RTX 3090's one run", g, err)
		}
	})
}

// TestFilterValuesAreNeverSQL passes SQL in every filter: it must match nothing (the
// values are bound parameters) and leave the stored runs as they were.
func TestFilterValuesAreNeverSQL(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		put(t, s, "a1", "model-a", "RTX 3090", "@alice", "Acme Labs")
		for _, evil := range []string{
			`' OR '1'='1`,
			`x'; DELETE FROM runs; --`,
			`model-a" OR 1=1 --`,
			`?`, `$1`,
		} {
			for name, q := range map[string]store.Query{
				"model": {Model: evil}, "gpu": {GPU: evil}, "engine": {Engine: evil}, "quant": {Quantization: evil},
				"profile": {Profile: evil}, "org": {Org: evil}, "submitter": {Submitter: evil},
				"kind": {Kinds: []string{evil}}, "model+gpu": {Model: evil, GPU: "RTX 3090", Sort: metric.MetricPeak},
			} {
				rows, err := s.ListRuns(ctx, q)
				if err != nil || len(rows) != 0 {
					t.Errorf("ListRuns(%s=%q) = %d runs, %v; want none", name, evil, len(rows), err)
				}
				if n, err := s.CountRuns(ctx, q); err != nil || n != 0 {
					t.Errorf("CountRuns(%s=%q) = %d, %v; want 0", name, evil, n, err)
				}
			}
		}
		if n, err := s.CountRuns(ctx, store.Query{}); err != nil || n != 1 {
			t.Errorf("after the queries: %d runs, %v; want the 1 stored", n, err)
		}
	})
}

// TestConcurrentReportsOfOneSlug: of several reports racing for one slug, one is
// stored and every other gets ErrConflict (not a database error).
func TestConcurrentReportsOfOneSlug(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		errs := make(chan error, 8)
		for i := range 8 {
			go func() {
				errs <- s.PutReport(ctx, store.Report{Slug: "race", Title: fmt.Sprintf("take %d", i), BodyMD: "x",
					Author: "@alice", CreatedAt: time.Now()})
			}()
		}
		stored, conflicts := 0, 0
		for range 8 {
			switch err := <-errs; {
			case err == nil:
				stored++
			case errors.Is(err, store.ErrConflict):
				conflicts++
			default:
				t.Errorf("PutReport: %v", err)
			}
		}
		if stored != 1 || conflicts != 7 {
			t.Errorf("stored %d, conflicts %d; want 1 and 7", stored, conflicts)
		}
	})
}
