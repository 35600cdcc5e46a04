package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// caseSite stores runs whose model, engine and weight format are written as tools and
// people write them: one model in two cases, one engine in two, and one format as
// Ollama reports it ("Q4_K_M") and as a prediction writes it ("GGUF Q4_K_M"), another
// as "AWQ" and "AWQ INT4 g128".
func caseSite(t *testing.T, s *store.Store) {
	t.Helper()
	for _, v := range []struct{ id, model, engine, quant string }{
		{"a", "Qwen/Qwen3-8B", "vllm", "AWQ"},
		{"b", "qwen/qwen3-8b", "vLLM", "AWQ INT4 g128"},
		{"c", "Qwen/Qwen3-8B", "ollama", "Q4_K_M"},
		{"d", "qwen3:8b", "Ollama", "GGUF Q4_K_M"},
		{"e", "qwen3:8b", "llama.cpp", "Q4_K_S"},
	} {
		_, r := variant(t, v.id, v.model, "RTX 4090", 1, rundoc.RunMeasured)
		r.Engine.Name, r.Engine.Quantization = v.engine, v.quant
		if _, err := s.PutRun(context.Background(), record(r, "@alice", ""), mustJSON(t, r)); err != nil {
			t.Fatalf("storing %s: %v", v.id, err)
		}
	}
}

// TestFiltersIgnoreCaseAndGroupFormats: the model, engine and quantization filters
// find a value in any case, on both stores, whichever way a page asks (the run list,
// a ranking by a cell, the picker's counts), and one weight format's labels are one
// quantization (issue 37 item 9: filters were case-sensitive, and "Q4_K_M" and "GGUF
// Q4_K_M", "AWQ" and "AWQ INT4 g128" were two each); the filter menus list each once.
func TestFiltersIgnoreCaseAndGroupFormats(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		caseSite(t, s)
		check := func(when string) {
			t.Helper()
			for _, c := range []struct {
				q    store.Query
				want []string
			}{
				{store.Query{Engine: "VLLM"}, []string{"a", "b"}},
				{store.Query{Engine: "vllm"}, []string{"a", "b"}},
				{store.Query{Engine: "OLLAMA", Quantization: "q4_k_m"}, []string{"c", "d"}},
				{store.Query{Quantization: "Q4_K_M"}, []string{"c", "d"}},
				{store.Query{Quantization: "gguf q4_k_m"}, []string{"c", "d"}},
				{store.Query{Quantization: "awq"}, []string{"a", "b"}},
				{store.Query{Quantization: "q4_k_s"}, []string{"e"}},
				{store.Query{Model: "QWEN/QWEN3-8B"}, []string{"a", "b", "c"}},
				{store.Query{Model: "qwen/qwen3-8b", Engine: "VLLM", Sort: metric.MetricPeak}, []string{"a", "b"}},
				{store.Query{Model: "qwen/qwen3-8b", Engine: "llama.cpp"}, nil},
			} {
				if got := listedIDs(t, s, c.q); !cmp.Equal(got, c.want) {
					t.Errorf("%s: ListRuns(%+v) = %v, want %v", when, c.q, got, c.want)
				}
				if n, err := s.CountRuns(ctx, c.q); err != nil || n != len(c.want) {
					t.Errorf("%s: CountRuns(%+v) = %d, %v; want %d", when, c.q, n, err, len(c.want))
				}
				cq := store.CellQuery{Metric: "total_tok_s", Context: 0, Level: 1, Query: c.q}
				if got := rankedIDs(t, s, cq); !cmp.Equal(sortedIDs(got), c.want) {
					t.Errorf("%s: RankByCell(%+v) = %v, want %v", when, c.q, got, c.want)
				}
				cells, err := s.MetricCellsOf(ctx, "total_tok_s", c.q)
				if err != nil {
					t.Fatal(err)
				}
				counted := 0
				if i := slices.IndexFunc(cells, func(m store.MetricCell) bool { return m.Context == 0 && m.Level == 1 }); i >= 0 {
					counted = cells[i].Runs
				}
				if counted != len(c.want) {
					t.Errorf("%s: the picker counts %d runs at 0 × 1 for %+v; want %d", when, counted, c.q, len(c.want))
				}
			}
			f, err := s.Facets(ctx)
			if err != nil {
				t.Fatal(err)
			}
			wantQ := []store.Facet{{Value: "AWQ INT4 g128", Runs: 2}, {Value: "GGUF Q4_K_M", Runs: 2}, {Value: "Q4_K_S", Runs: 1}}
			if d := cmp.Diff(wantQ, f.Quantizations); d != "" {
				t.Errorf("%s: quantizations (-want +got):\n%s", when, d)
			}
			wantE := []store.Facet{{Value: "Ollama", Runs: 2}, {Value: "llama.cpp", Runs: 1}, {Value: "vLLM", Runs: 2}}
			if d := cmp.Diff(wantE, f.Engines); d != "" {
				t.Errorf("%s: engines (-want +got):\n%s", when, d)
			}
			if m, err := s.Model(ctx, "qwen/qwen3-8b"); err != nil || m.Runs != 3 || m.Name != "Qwen/Qwen3-8B" {
				t.Errorf("%s: Model(qwen/qwen3-8b) = %+v, %v; want Qwen/Qwen3-8B's 3 runs", when, m, err)
			}
		}
		asStoredAndReindexed(t, s, check)
	})
}
