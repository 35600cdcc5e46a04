package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// putVariant stores a variant of the seed (decode figures scaled, TTFT divided by the
// same scale so that faster is also quicker) and returns its document.
func putVariant(t *testing.T, s *store.Store, id, model, gpu string, scale float64, kind string) *rundoc.Run {
	t.Helper()
	_, r := seed(t)
	r.ID, r.Model.ID, r.Hardware.GPUs[0].Name, r.Status, r.Title = id, model, gpu, kind, ""
	for i := range r.Decode {
		if f := r.Decode[i].DecodeFigures; f != nil {
			g := *f
			g.TotalTokS *= scale
			g.TTFTMs /= scale
			r.Decode[i].DecodeFigures = &g
		}
		if kind == rundoc.RunPredicted && r.Decode[i].Status == rundoc.StatusValid {
			r.Decode[i].Status = rundoc.StatusPredicted
		}
	}
	for i := range r.Prefill {
		if f := r.Prefill[i].PrefillFigures; f != nil {
			g := *f
			g.PromptTokS *= scale
			r.Prefill[i].PrefillFigures = &g
		}
		if kind == rundoc.RunPredicted {
			r.Prefill[i].Status = rundoc.StatusPredicted
		}
	}
	doc := mustJSON(t, r)
	if _, err := s.PutRun(context.Background(), record(r, "@alice", ""), doc); err != nil {
		t.Fatalf("storing %s: %v", id, err)
	}
	return r
}

// rankedIDs ranks q and returns the ids with their values.
func rankedIDs(t *testing.T, s *store.Store, q store.CellQuery) []string {
	t.Helper()
	rs, err := s.RankByCell(context.Background(), q)
	if err != nil {
		t.Fatalf("RankByCell(%+v): %v", q, err)
	}
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func TestRankByAnyCell(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		putVariant(t, s, "slow-3090", "RedHatAI/Qwen3.8-27B-INT4", "RTX 3090", 1, rundoc.RunMeasured)
		putVariant(t, s, "fast-5090", "Qwen/Qwen3.8-27B", "RTX 5090", 2, rundoc.RunMeasured)
		putVariant(t, s, "mid-4090", "Qwen/Qwen3-32B-AWQ", "RTX 4090", 1.5, rundoc.RunMeasured)
		putVariant(t, s, "dreamed", "RedHatAI/Qwen3.8-27B-INT4", "H100", 10, rundoc.RunPredicted)
		measured := []string{rundoc.RunMeasured}
		tests := []struct {
			name string
			q    store.CellQuery
			want []string
		}{
			{"total at 32K × 1", store.CellQuery{Metric: "total_tok_s", Context: 32 * rundoc.K, Level: 1, Query: store.Query{Kinds: measured}},
				[]string{"fast-5090", "mid-4090", "slow-3090"}},
			{"all kinds", store.CellQuery{Metric: "total_tok_s", Context: 32 * rundoc.K, Level: 1},
				[]string{"dreamed", "fast-5090", "mid-4090", "slow-3090"}},
			{"TTFT ranks ascending", store.CellQuery{Metric: "ttft_ms", Context: 0, Level: 8, Query: store.Query{Kinds: measured}},
				[]string{"fast-5090", "mid-4090", "slow-3090"}},
			{"a cell no run has", store.CellQuery{Metric: "total_tok_s", Context: 32 * rundoc.K, Level: 2}, nil},
			{"prefill at 32K", store.CellQuery{Metric: "prompt_tok_s", Context: 32 * rundoc.K, Query: store.Query{Kinds: measured}},
				[]string{"fast-5090", "mid-4090", "slow-3090"}},
			{"peak", store.CellQuery{Metric: "peak_tok_s", Query: store.Query{Kinds: measured}},
				[]string{"fast-5090", "mid-4090", "slow-3090"}},
			{"one family", store.CellQuery{Metric: "total_tok_s", Context: 0, Level: 1, Query: store.Query{Family: "qwen3.8-27b", Kinds: measured}},
				[]string{"fast-5090", "slow-3090"}},
			{"one GPU", store.CellQuery{Metric: "total_tok_s", Context: 0, Level: 1, Query: store.Query{GPU: "RTX 4090"}},
				[]string{"mid-4090"}},
			{"size 30B and up", store.CellQuery{Metric: "total_tok_s", Context: 0, Level: 1, Query: store.Query{SizeMin: 30}},
				[]string{"mid-4090"}},
			{"size under 30B", store.CellQuery{Metric: "total_tok_s", Context: 0, Level: 1, Query: store.Query{SizeMax: 30, Kinds: measured}},
				[]string{"fast-5090", "slow-3090"}},
			{"second page", store.CellQuery{Metric: "total_tok_s", Context: 0, Level: 1, Query: store.Query{Kinds: measured, Limit: 2, Offset: 1}},
				[]string{"mid-4090", "slow-3090"}},
		}
		for _, tt := range tests {
			if d := cmp.Diff(tt.want, rankedIDs(t, s, tt.q)); d != "" {
				t.Errorf("%s (-want +got):\n%s", tt.name, d)
			}
		}
		rs, err := s.RankByCell(ctx, store.CellQuery{Metric: "total_tok_s", Context: 32 * rundoc.K, Level: 1, Query: store.Query{GPU: "RTX 3090"}})
		if err != nil || len(rs) != 1 || rs[0].Value != 45.3 || rs[0].Family != "qwen3.8-27b" || rs[0].ParamsB != 27 || rs[0].Author != "@Sandberg" {
			t.Errorf("the seed's 32K × 1 cell = %+v, %v; want 45.3 tok/s, family qwen3.8-27b, 27B, author @Sandberg", rs, err)
		}
		if _, err := s.RankByCell(ctx, store.CellQuery{Metric: "nonsense"}); err == nil {
			t.Errorf("an unknown metric ranked without error")
		}

		cells, err := s.MetricCells(ctx, "total_tok_s")
		if err != nil {
			t.Fatal(err)
		}
		// The seed has 8 valid decode cells; every stored run has the same ones.
		if len(cells) != 8 || cells[0] != (store.MetricCell{Context: 0, Level: 1, Runs: 4}) {
			t.Errorf("cells of total_tok_s = %+v; want the seed's 8 valid cells, each in 4 runs", cells)
		}
		best, err := s.BestByGroup(ctx, store.CellQuery{Metric: "total_tok_s", Context: 0, Level: 1, Query: store.Query{Family: "qwen3.8-27b", Kinds: measured}}, "gpu", 10)
		if err != nil {
			t.Fatal(err)
		}
		want := []store.GroupBest{{Name: "RTX 5090", Value: 96.4, RunID: "fast-5090", Runs: 1}, {Name: "RTX 3090", Value: 48.2, RunID: "slow-3090", Runs: 1}}
		if d := cmp.Diff(want, best); d != "" {
			t.Errorf("best GPU per family at 0 × 1 (-want +got):\n%s", d)
		}
		vals, err := s.CellValues(ctx, []string{"slow-3090", "nobody"}, "total_tok_s")
		if err != nil || len(vals["slow-3090"]) != 8 || len(vals["nobody"]) != 0 {
			t.Errorf("CellValues = %v, %v; want the seed's 8 cells", vals, err)
		}
		fams, err := s.Families(ctx)
		if err != nil || len(fams) != 2 || fams[0].Name != "qwen3-32b" || fams[1].Name != "qwen3.8-27b" || fams[1].Runs != 3 {
			t.Errorf("Families = %+v, %v", fams, err)
		}
		models, err := s.FamilyModels(ctx, "qwen3.8-27b")
		if d := cmp.Diff([]store.Facet{{Value: "Qwen/Qwen3.8-27B", Runs: 1}, {Value: "RedHatAI/Qwen3.8-27B-INT4", Runs: 2}}, models); err != nil || d != "" {
			t.Errorf("FamilyModels (-want +got): %v\n%s", err, d)
		}
	})
}

// TestReindexRestoresEveryValue: a store whose runs were stored before the registry
// (no metric values, no families) gets them back when it is opened.
func TestReindexRestoresEveryValue(t *testing.T) {
	storetest.Pair(t, func(t *testing.T, a, b *store.Store) {
		ctx := context.Background()
		putVariant(t, a, "slow-3090", "RedHatAI/Qwen3.8-27B-INT4", "RTX 3090", 1, rundoc.RunMeasured)
		putVariant(t, a, "fast-5090", "Qwen/Qwen3.8-27B", "RTX 5090", 2, rundoc.RunMeasured)
		q := store.CellQuery{Metric: "ttft_ms", Context: 16 * rundoc.K, Level: 2, Query: store.Query{Family: "qwen3.8-27b"}}
		before := rankedIDs(t, a, q)
		if len(before) != 2 {
			t.Fatalf("ranked %v before forgetting", before)
		}
		if err := a.ForgetIndexForTesting(ctx); err != nil {
			t.Fatal(err)
		}
		if got := rankedIDs(t, a, q); len(got) != 0 {
			t.Fatalf("after forgetting the index the cell still ranks %v", got)
		}
		n, err := b.Reindex(ctx)
		if err != nil || n != 2 {
			t.Fatalf("Reindex = %d, %v; want 2 runs re-read", n, err)
		}
		if d := cmp.Diff(before, rankedIDs(t, a, q)); d != "" {
			t.Errorf("after Reindex (-before +after):\n%s", d)
		}
		if n, err := b.Reindex(ctx); err != nil || n != 0 {
			t.Errorf("a second Reindex re-read %d runs (%v); the index was current", n, err)
		}
		if f, err := a.FamilyStat(ctx, "qwen3.8-27b"); err != nil || f.Runs != 2 || f.BestDecode == nil || *f.BestDecode != 96.4 {
			t.Errorf("family counts after Reindex = %+v, %v", f, err)
		}
	})
}

// TestRateLimitIsShared: two stores on one database take from the same bucket.
func TestRateLimitIsShared(t *testing.T) {
	storetest.Pair(t, func(t *testing.T, a, b *store.Store) {
		ctx := context.Background()
		now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		take := func(s *store.Store, at time.Time) (bool, time.Duration) {
			ok, wait, err := s.TakeToken(ctx, "tok:x", 1, 3, at, true)
			if err != nil {
				t.Fatal(err)
			}
			return ok, wait
		}
		for i, s := range []*store.Store{a, b, a} {
			if ok, _ := take(s, now); !ok {
				t.Fatalf("request %d of a burst of 3 refused", i+1)
			}
		}
		ok, wait := take(b, now)
		if ok || wait != time.Second {
			t.Errorf("the 4th request at once = %v, wait %v; want refused, 1 s", ok, wait)
		}
		if ok, _, _ := a.TakeToken(ctx, "tok:x", 1, 3, now, false); ok {
			t.Errorf("peeking at an empty bucket says a request is left")
		}
		if ok, _ := take(a, now.Add(1500*time.Millisecond)); !ok {
			t.Errorf("1.5 s later (1 request refilled) refused")
		}
		if ok, _ := take(b, now.Add(1600*time.Millisecond)); ok {
			t.Errorf("a second request 1.6 s later allowed: 1.6 requests refilled, 1 taken")
		}
		// A clock behind the last update refills nothing and does not go back in time.
		if ok, _ := take(a, now); ok {
			t.Errorf("a request from a clock 1.6 s behind allowed")
		}
		if ok, _ := take(a, now.Add(time.Hour)); !ok {
			t.Errorf("an hour later refused")
		}
		if ok, _ := take(a, now.Add(time.Hour)); !ok {
			t.Errorf("the bucket did not refill to its burst")
		}
		if ok, _, _ := b.TakeToken(ctx, "tok:other", 1, 3, now, true); !ok {
			t.Errorf("another key shares the bucket")
		}
	})
}

func TestFullDiskIsErrFull(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		putVariant(t, s, "before", "m", "RTX 3090", 1, rundoc.RunMeasured)
		if err := s.SimulateFullDiskForTesting(ctx); err != nil {
			t.Fatal(err)
		}
		doc, r := variant(t, "after", "m", "RTX 3090", 1, rundoc.RunMeasured)
		_, err := s.PutRun(ctx, record(r, "@alice", ""), doc)
		if !errors.Is(err, store.ErrFull) {
			t.Fatalf("storing a run on a full disk: %v, want ErrFull", err)
		}
		if n, err := s.CountRuns(ctx, store.Query{}); err != nil || n != 1 {
			t.Errorf("after the failed write the store holds %d runs (%v), want 1", n, err)
		}
		if err := s.PutReport(ctx, store.Report{Slug: "r", Title: "t", BodyMD: strings.Repeat("x", 64<<10), Author: "@a", CreatedAt: time.Now()}); !errors.Is(err, store.ErrFull) {
			t.Errorf("storing a report on a full disk: %v, want ErrFull", err)
		}
	})
}

func mustJSON(t *testing.T, r *rundoc.Run) []byte {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAddingAMetricReindexesStoredRuns adds a metric to the registry as another
// engineer would (an entry, nothing else), reopens a store holding runs stored before
// it, and ranks those runs by the new metric.
func TestAddingAMetricReindexesStoredRuns(t *testing.T) {
	storetest.Pair(t, func(t *testing.T, a, _ *store.Store) {
		ctx := context.Background()
		putVariant(t, a, "slow-3090", "RedHatAI/Qwen3.8-27B-INT4", "RTX 3090", 1, rundoc.RunMeasured)
		putVariant(t, a, "fast-5090", "Qwen/Qwen3.8-27B", "RTX 5090", 2, rundoc.RunMeasured)
		saved := metric.CellMetrics
		t.Cleanup(func() { metric.CellMetrics = saved })
		metric.CellMetrics = append(append([]metric.CellMetric{}, saved...), metric.CellMetric{
			Name: "tbt_ms", Axis: metric.AxisConcurrency, LowerIsBetter: true, Unit: "ms",
			Values: metric.DecodeCells(func(c rundoc.DecodeCell) (float64, bool) {
				if c.DecodeFigures == nil {
					return 0, false
				}
				return c.TBTMs, true
			}),
		})
		q := store.CellQuery{Metric: "tbt_ms", Context: 0, Level: 8}
		if got := rankedIDs(t, a, q); len(got) != 0 {
			t.Fatalf("before the reindex the new metric ranks %v", got)
		}
		n, err := a.Reindex(ctx)
		if err != nil || n != 2 {
			t.Fatalf("Reindex after adding a metric = %d, %v; want 2 runs re-read", n, err)
		}
		// Both variants keep the seed's time between tokens (only total tok/s and TTFT
		// were scaled): a tie, broken by id.
		rs, err := a.RankByCell(ctx, q)
		if err != nil || len(rs) != 2 || rs[0].ID != "fast-5090" || rs[0].Value != rs[1].Value {
			t.Errorf("ranked by the new metric: %+v, %v", rs, err)
		}
	})
}

// TestEnergyMetricsRankMeteredCells: issue 18's per-cell energy and cost rank like any
// other cell; an estimated energy figure does not.
func TestEnergyMetricsRankMeteredCells(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		energy := func(id string, tokSPerW, usd float64, method string) {
			_, r := seed(t)
			r.ID = id
			for i := range r.Decode {
				if r.Decode[i].Status == rundoc.StatusValid {
					w, u := tokSPerW, usd
					r.Decode[i].CellEnergy = &rundoc.CellEnergy{PowerStats: rundoc.PowerStats{Method: method}, TokSPerW: &w, USDPerMTok: &u}
				}
			}
			if _, err := s.PutRun(ctx, record(r, "@alice", ""), mustJSON(t, r)); err != nil {
				t.Fatal(err)
			}
		}
		energy("metered-efficient", 0.5, 0.9, rundoc.MethodCounter)
		energy("metered-cheap", 0.2, 0.4, rundoc.MethodSamples)
		energy("estimated", 9, 0.1, rundoc.MethodEstimate)
		if d := cmp.Diff([]string{"metered-efficient", "metered-cheap"}, rankedIDs(t, s, store.CellQuery{Metric: "tok_s_per_w", Context: 0, Level: 1})); d != "" {
			t.Errorf("by tok/s per W (-want +got):\n%s", d)
		}
		// Cost is lower-better, and an estimated energy figure does not make a price
		// estimated: the price per token comes from the run's own time and price.
		if d := cmp.Diff([]string{"estimated", "metered-cheap", "metered-efficient"}, rankedIDs(t, s, store.CellQuery{Metric: "usd_per_mtok", Context: 0, Level: 8})); d != "" {
			t.Errorf("by USD per million tokens (-want +got):\n%s", d)
		}
	})
}
