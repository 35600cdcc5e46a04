package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/history"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
	"github.com/llmbench/llmbench/internal/stats"
)

// historyRun is a measured run of the seed on H200 by engine at version, made on day
// (of December 2026), its single-stream decode figure decode with the interval ci
// (none when nil).
type historyRun struct {
	id, engine, version string
	day                 int
	decode              float64
	ci                  *stats.Interval
}

func putHistoryRun(t *testing.T, s *store.Store, h historyRun, model, quant string) {
	t.Helper()
	_, r := seed(t)
	r.ID, r.Model.ID, r.Hardware.GPUs[0].Name, r.Title = h.id, model, "H200", ""
	r.Engine.Name, r.Engine.Version, r.Engine.Quantization = h.engine, h.version, quant
	r.CreatedAt = time.Date(2026, 12, h.day, 12, 0, 0, 0, time.UTC)
	for i, c := range r.Decode {
		if c.Context == 0 && c.Concurrency == 1 {
			f := *c.DecodeFigures
			f.TotalTokS = h.decode
			r.Decode[i].DecodeFigures = &f
			r.Decode[i].CellIntervals = nil
			if h.ci != nil {
				r.Decode[i].CellIntervals = &rundoc.CellIntervals{TotalTokSCI: h.ci, CIMethod: rundoc.CIMethodWindow}
			}
		}
	}
	doc, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutRun(context.Background(), record(r, "@alice", ""), doc); err != nil {
		t.Fatal(err)
	}
}

// TestHistoryOrdersVersionsAsTheEngines (issue 39 item 2): a GPU × model's history
// reads its measured runs from either store and orders each engine's versions as the
// engine does — vLLM 0.10.1 < 0.10.1.1 < 0.10.2 < 0.11.0 though 0.10.1.1 was measured
// last and sorts after 0.10.2 by date; llama.cpp b6609 < b6700 < b10587 though
// "b10587" sorts first as text — with one release spelled two ways as one version, a
// version no rule reads after the others, each run's interval as the document gives
// it (as stored, and re-read from the documents), and the best per version.
func TestHistoryOrdersVersionsAsTheEngines(t *testing.T) {
	const model = "meta-llama/Llama-3.1-8B-Instruct"
	iv := &stats.Interval{Low: 95, High: 105}
	runs := []historyRun{
		{"v1", "vllm", "0.11.0", 3, 120, nil},
		{"v2", "vllm", "0.10.1", 1, 90, nil},
		{"v3", "vllm", "0.10.2", 2, 100, iv},
		{"v4", "vllm", "v0.10.2", 4, 98, nil},
		{"v5", "vllm", "0.10.1.1", 5, 91, nil},
		{"v6", "vllm", "main", 6, 130, nil},
		{"l1", "llamacpp", "b10587", 7, 60, nil},
		{"l2", "llamacpp", "b6700", 8, 55, nil},
		{"l3", "llamacpp", "b6609", 9, 50, nil},
	}
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for _, h := range runs {
			putHistoryRun(t, s, h, model, "FP8")
		}
		putHistoryRun(t, s, historyRun{"other-model", "vllm", "0.9.0", 1, 10, nil}, "org/other", "FP8")
		check := func(when string) {
			got, more, err := s.History(ctx, "h200", model, "", 0)
			if err != nil || more || len(got) != len(runs) {
				t.Fatalf("%s: History = %d runs, more %v, %v; want %d", when, len(got), more, err, len(runs))
			}
			series := history.Build(got)
			var order [][]string
			for _, se := range series {
				var vs []string
				for _, v := range se.Versions {
					vs = append(vs, v.Version+"@"+v.Best.RunID)
				}
				order = append(order, vs)
			}
			want := [][]string{{"b6609@l3", "b6700@l2", "b10587@l1"}, {"0.10.1@v2", "0.10.1.1@v5", "0.10.2@v3", "0.11.0@v1", "main@v6"}}
			if !cmp.Equal(order, want) {
				t.Errorf("%s: versions (best run) = %v, want %v", when, order, want)
			}
			if v := series[1].Versions[2]; len(v.Runs) != 2 || !cmp.Equal(v.Runs[0].CI, iv) || v.Runs[1].CI != nil || v.ByDate {
				t.Errorf("%s: 0.10.2's runs = %+v, want v3 with its interval %v, then v4 without", when, v.Runs, iv)
			}
			if !series[1].Versions[4].ByDate {
				t.Errorf("%s: %q is not marked as placed by date", when, "main")
			}
		}
		asStoredAndReindexed(t, s, check)
		some, more, err := s.History(ctx, "H200", model, "fp8", 3)
		if err != nil || !more || len(some) != 3 || some[0].ID != "l3" {
			t.Errorf("History with a limit of 3 = %v, more %v, %v; want the 3 newest (l3 first) and more", some, more, err)
		}
		gpus, err := s.HistoryPairs(ctx, "model", model, 10)
		if want := []store.HistoryPair{{"H200", model, len(runs)}}; err != nil || !cmp.Equal(gpus, want) {
			t.Errorf("HistoryPairs of the model = %v, %v; want %v", gpus, err, want)
		}
		models, err := s.HistoryPairs(ctx, "gpu", "H200", 10)
		if want := []store.HistoryPair{{"H200", model, len(runs)}, {"H200", "org/other", 1}}; err != nil || !cmp.Equal(models, want) {
			t.Errorf("HistoryPairs of the GPU = %v, %v; want %v", models, err, want)
		}
		none, _, err := s.History(ctx, "H200", model, "GGUF Q4_K_M", 0)
		if err != nil || len(none) != 0 {
			t.Errorf("History of another weight format = %v, %v; want none", none, err)
		}
	})
}
