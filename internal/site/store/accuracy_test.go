package store_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// evaluated is an evaluation of gsm8k's first limit items with the given score,
// finished unless pending.
func evaluated(score float64, limit int, pending bool) rundoc.Accuracy {
	a := rundoc.Accuracy{Set: rundoc.EvalSet{Name: "gsm8k", Revision: "3101c7d5", SHA256: "3730d312", Size: 1319, Prompt: "gsm8k-0shot-v1", Scorer: "number"},
		Config: rundoc.EvalConfig{Limit: limit}, Status: rundoc.AccuracyComplete, Score: &score}
	if pending {
		a.Status = rundoc.AccuracyPending
	}
	return a
}

// TestAccuracyFilter: with the filter on, a run whose finished accuracy on a set is
// more than X points below the best of its model family on that set (the BF16 run's
// 80% for its FP8 and AWQ checkpoints) is left out of the run list, the ranking, the
// picker's counts and the best-per-GPU answer; exactly X below is kept, and so are a
// run without an evaluation, one whose evaluation is unfinished, another family's
// run and a run of another --limit; a store that indexed its runs before the filter
// existed fills it on Reindex. On both stores.
func TestAccuracyFilter(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		for _, r := range []struct {
			id, model string
			acc       []rundoc.Accuracy
		}{
			{"bf16", "Qwen/Qwen3-8B", []rundoc.Accuracy{evaluated(0.80, 100, false)}},
			{"fp8", "Qwen/Qwen3-8B-FP8", []rundoc.Accuracy{evaluated(0.75, 100, false)}},
			{"awq", "Qwen/Qwen3-8B-AWQ", []rundoc.Accuracy{evaluated(0.60, 100, false), evaluated(0.95, 20, false)}},
			{"unevaluated", "Qwen/Qwen3-8B", nil},
			{"pending", "Qwen/Qwen3-8B", []rundoc.Accuracy{evaluated(0.10, 100, true)}},
			{"other-limit", "Qwen/Qwen3-8B", []rundoc.Accuracy{evaluated(0.30, 50, false)}},
			{"llama", "meta-llama/Llama-3.1-8B-Instruct", []rundoc.Accuracy{evaluated(0.50, 100, false)}},
		} {
			_, run := variant(t, r.id, r.model, "H100", 1, rundoc.RunMeasured)
			run.Accuracy = r.acc
			b, err := json.Marshal(run)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.PutRun(ctx, record(run, "@alice", ""), b); err != nil {
				t.Fatal(err)
			}
		}
		all := []string{"awq", "bf16", "fp8", "llama", "other-limit", "pending", "unevaluated"}
		check := func(when string) {
			t.Helper()
			for _, c := range []struct {
				f    store.AccuracyFilter
				want []string
			}{
				{store.AccuracyFilter{}, all},
				{store.AccuracyFilter{On: true, WithinPoints: 25}, all},
				{store.AccuracyFilter{On: true, WithinPoints: 5}, []string{"bf16", "fp8", "llama", "other-limit", "pending", "unevaluated"}},
				{store.AccuracyFilter{On: true, WithinPoints: 0}, []string{"bf16", "llama", "other-limit", "pending", "unevaluated"}},
			} {
				q := store.Query{Accuracy: c.f}
				listed, err := st.ListRuns(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				ranked, err := st.RankByCell(ctx, store.CellQuery{Query: q, Metric: "total_tok_s", Context: 0, Level: 1})
				if err != nil {
					t.Fatal(err)
				}
				cells, err := st.MetricCellsOf(ctx, "total_tok_s", q)
				if err != nil {
					t.Fatal(err)
				}
				best, err := st.BestByGroup(ctx, store.CellQuery{Query: store.Query{Accuracy: c.f, Family: "qwen3-8b"}, Metric: "total_tok_s", Context: 0, Level: 1}, "model", 10)
				if err != nil {
					t.Fatal(err)
				}
				var ids, rankedIDs []string
				for _, r := range listed {
					ids = append(ids, r.ID)
				}
				for _, r := range ranked {
					rankedIDs = append(rankedIDs, r.ID)
				}
				slices.Sort(ids)
				slices.Sort(rankedIDs)
				counted := 0
				for _, cell := range cells {
					if cell.Context == 0 && cell.Level == 1 {
						counted = cell.Runs
					}
				}
				awqBest := slices.ContainsFunc(best, func(g store.GroupBest) bool { return g.RunID == "awq" })
				if !slices.Equal(ids, c.want) || !slices.Equal(rankedIDs, c.want) || counted != len(c.want) || awqBest != slices.Contains(c.want, "awq") {
					t.Errorf("%s, %+v: listed %v, ranked %v, counted %d, awq best of its model %v; want %v", when, c.f, ids, rankedIDs, counted, awqBest, c.want)
				}
			}
		}
		check("as stored")
		if err := st.ForgetIndexForTesting(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Reindex(ctx); err != nil {
			t.Fatal(err)
		}
		check("reindexed")
	})
}
