package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// cellRuns is how many runs MetricCellsOf counts at total tok/s 0 × 1.
func cellRuns(t *testing.T, s *store.Store, q store.Query) int {
	t.Helper()
	cells, err := s.MetricCellsOf(context.Background(), "total_tok_s", q)
	if err != nil {
		t.Fatalf("MetricCellsOf(%+v): %v", q, err)
	}
	for _, c := range cells {
		if c.Context == 0 && c.Level == 1 && c.Cond == "" {
			return c.Runs
		}
	}
	return 0
}

// TestMetricCellsCountTheRunsAQuerySelects (issue 24 item 8): the picker's counts are
// of the runs the ranking beside it takes — its kinds and filters — not of every run
// (the board said 3 runs have a cell it then ranked 1 for): from the counts kept per
// kind and per value of one filter, or from the values of the runs several filters
// (or a size, an organisation) keep.
func TestMetricCellsCountTheRunsAQuerySelects(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for _, r := range []struct{ id, gpu, kind string }{
			{"m-3090", "RTX 3090", rundoc.RunMeasured},
			{"m-4090", "RTX 4090", rundoc.RunMeasured},
			{"e-4090", "RTX 4090", rundoc.RunEmulated},
			{"p-3090", "RTX 3090", rundoc.RunPredicted},
		} {
			doc, run := variant(t, r.id, "RedHatAI/Qwen3.8-27B-INT4", r.gpu, 1, r.kind)
			if _, err := s.PutRun(ctx, record(run, "@alice", ""), doc); err != nil {
				t.Fatal(err)
			}
		}
		measured := []string{rundoc.RunMeasured}
		for _, tc := range []struct {
			name string
			q    store.Query
			want int
		}{
			{"every run", store.Query{}, 4},
			{"measured", store.Query{Kinds: measured}, 2},
			{"measured and emulated", store.Query{Kinds: []string{rundoc.RunMeasured, rundoc.RunEmulated}}, 3},
			{"one GPU, measured", store.Query{GPU: "RTX 4090", Kinds: measured}, 1},
			{"one GPU in another case, every kind", store.Query{GPU: "rtx 4090"}, 2},
			{"a GPU and a model", store.Query{GPU: "RTX 3090", Model: "RedHatAI/Qwen3.8-27B-INT4"}, 2},
			{"a model no run has", store.Query{Model: "nothing"}, 0},
			{"rate runs", store.Query{Mode: metric.ModeRate}, 0},
			{"matrix runs, measured", store.Query{Mode: metric.ModeMatrix, Kinds: measured}, 2},
			{"an engine, measured", store.Query{Engine: "vllm", Kinds: measured}, 2},
			{"a family", store.Query{Family: "qwen3.8-27b"}, 4},
			{"a size", store.Query{SizeMin: 20, SizeMax: 40, Kinds: measured}, 2},
			{"an organisation", store.Query{Org: "Acme Labs"}, 0},
		} {
			if got := cellRuns(t, s, tc.q); got != tc.want {
				t.Errorf("%s: %d runs at 0 × 1, want %d", tc.name, got, tc.want)
			}
		}
		// Re-counting (as Reindex does after a registry change) keeps the kinds apart.
		if err := s.ForgetIndexForTesting(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Reindex(ctx); err != nil {
			t.Fatal(err)
		}
		if got := cellRuns(t, s, store.Query{Kinds: measured}); got != 2 {
			t.Errorf("measured after a reindex: %d runs, want 2", got)
		}
	})
}

// TestMigrationCountsCellsByKind: a store made by the release before cells were
// counted per kind (schema 3) counts them per kind after the upgrade, from the values
// it holds.
func TestMigrationCountsCellsByKind(t *testing.T) {
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			ctx := context.Background()
			dsn := filepath.Join(t.TempDir(), "site.db")
			if db == "postgres" {
				dsn = storetest.PostgresURL(t)
			}
			old, err := store.OpenAtVersionForTesting(ctx, dsn, 3)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range []struct{ id, kind string }{{"a", rundoc.RunMeasured}, {"b", rundoc.RunEmulated}, {"c", rundoc.RunMeasured}} {
				_, run := variant(t, r.id, "m", "RTX 3090", 1, r.kind)
				err := old.ExecForTesting(ctx, `INSERT INTO runs (id, kind, title, model, gpu, gpu_count, engine, engine_version, quantization, profile,
					created_at, submitted_at, submitter, org) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
					r.id, r.kind, r.id, "m", "RTX 3090", 1, "vllm", "", "", "custom", run.CreatedAt.UTC(), run.CreatedAt.UTC(), "@alice", "")
				if err == nil {
					err = old.ExecForTesting(ctx, `INSERT INTO run_docs (id, doc_sha256, doc) VALUES (?, ?, ?)`, r.id, "x", string(mustJSON(t, run)))
				}
				if err == nil {
					err = old.ExecForTesting(ctx, `INSERT INTO run_metrics (run_id, metric, cond, context, level, value, rank_key) VALUES (?, 'total_tok_s', '', 0, 1, 48.2, -48.2)`, r.id)
				}
				if err != nil {
					t.Fatalf("storing %s under schema 3: %v", r.id, err)
				}
			}
			// Schema 3's count, and the index signature of the current registry, so
			// that opening re-reads nothing: the counts come from the migration alone.
			err = old.ExecForTesting(ctx, `INSERT INTO metric_cells (metric, cond, context, level, runs) VALUES ('total_tok_s', '', 0, 1, 3)`)
			if err == nil {
				err = old.ExecForTesting(ctx, `INSERT INTO site_meta (key, value) VALUES ('registry', ?)`, metric.Signature())
			}
			if err != nil {
				t.Fatal(err)
			}
			old.Close()
			s, err := store.Open(ctx, dsn)
			if err != nil {
				t.Fatalf("opening the older store: %v", err)
			}
			defer s.Close()
			if got := cellRuns(t, s, store.Query{}); got != 3 {
				t.Errorf("every run after the upgrade: %d, want 3", got)
			}
			if got := cellRuns(t, s, store.Query{Kinds: []string{rundoc.RunMeasured}}); got != 2 {
				t.Errorf("measured runs after the upgrade: %d, want 2", got)
			}
			if got := cellRuns(t, s, store.Query{GPU: "RTX 3090", Kinds: []string{rundoc.RunEmulated}}); got != 1 {
				t.Errorf("emulated runs on the RTX 3090 after the upgrade: %d, want 1", got)
			}
			if got := cellRuns(t, s, store.Query{GPU: "RTX 4090"}); got != 0 {
				t.Errorf("runs on the RTX 4090 after the upgrade: %d, want 0", got)
			}
		})
	}
}
