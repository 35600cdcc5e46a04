package store_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// bestSite stores 90 runs from 16 submitters at once, so that counting passes take
// several runs together: models of two families (one spelt two ways, "org/a-7B" and
// "Org/A-7B"), a model whose name states no size, GPUs "H100" and "h100", one GPU
// with a single run (MI300X), three kinds, two engines, three speeds (so that many
// runs tie, within a group, across groups and within one counting pass) and, on a
// third of the runs, an accuracy for accuracy_within.
func bestSite(t *testing.T, s *store.Store, rng *rand.Rand) {
	t.Helper()
	models := []string{"org/a-7B", "Org/A-7B", "other/a-7B", "org/b-32B", "other/b-32B", "org/c"}
	gpus := []string{"H100", "h100", "RTX 4090", "L40S"}
	kinds := []string{rundoc.RunMeasured, rundoc.RunMeasured, rundoc.RunEmulated, rundoc.RunPredicted}
	var docs [][]byte
	var recs []store.RunRecord
	for i := range 90 {
		gpu := gpus[rng.IntN(len(gpus))]
		if i == 45 {
			gpu = "MI300X"
		}
		_, r := variant(t, fmt.Sprintf("b%02d", i), models[rng.IntN(len(models))], gpu, []float64{1, 1.5, 2}[rng.IntN(3)], kinds[rng.IntN(len(kinds))])
		r.Engine.Name = []string{"vllm", "sglang"}[rng.IntN(2)]
		if i%3 == 0 {
			r.Accuracy = []rundoc.Accuracy{evaluated([]float64{0.5, 0.7, 0.8}[rng.IntN(3)], 100, false)}
		}
		doc, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		docs, recs = append(docs, doc), append(recs, record(r, "@alice", ""))
	}
	next := make(chan int, len(docs))
	for i := range docs {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := range next {
				if _, err := s.PutRun(context.Background(), recs[i], docs[i]); err != nil {
					t.Errorf("storing run %d: %v", i, err)
				}
			}
		})
	}
	wg.Wait()
}

// randomBestQuery is a best-per-group question the leaderboard or a group page could
// ask: a cell, some of model, GPU and family (in other spellings too, or unknown), and
// sometimes filters cell_best does not hold (an engine, a size, accuracy_within), kinds,
// what to group by and how many groups.
func randomBestQuery(rng *rand.Rand, cells []store.CellQuery) (store.CellQuery, string, int) {
	pick := func(vals ...string) string {
		if rng.IntN(3) > 0 {
			return ""
		}
		return vals[rng.IntN(len(vals))]
	}
	q := cells[rng.IntN(len(cells))]
	q.Query = store.Query{Model: pick("org/a-7B", "ORG/A-7B", "other/b-32B", "org/c", "nobody/z-1B"),
		GPU: pick("H100", "h100", "RTX 4090", "MI300X", "B200"), Family: pick("a-7b", "B-32B", "c", "zz")}
	switch rng.IntN(8) {
	case 0:
		q.Engine = "sglang"
	case 1:
		q.SizeMin, q.SizeMax = 20, 40
	case 2:
		q.Accuracy = store.AccuracyFilter{On: true, WithinPoints: []float64{0, 15}[rng.IntN(2)]}
	}
	q.Kinds = [][]string{nil, {rundoc.RunMeasured}, {rundoc.RunMeasured, rundoc.RunEmulated}, {rundoc.RunPredicted}}[rng.IntN(4)]
	return q, []string{"gpu", "model", "family"}[rng.IntN(3)], 1 + rng.IntN(8)
}

// TestBestByGroupFromCellBestIsTheScan (issue 39 item 4): BestByGroup read from
// cell_best gives the groups, values, run ids and counts that reading every run gave
// (the query before cell_best, kept as BestByGroupScanForTesting) and that the test
// works out itself from the listed runs and their values, for 300 random questions:
// runs stored many at a time with ties among them, kinds, spellings, unknown names, a
// GPU with one run, filters it does not hold (an engine, a size, accuracy_within) and
// cells no run has. As stored, re-indexed (cell_best rebuilt), and filled afresh; the
// kept rows are a recount's. On both stores.
func TestBestByGroupFromCellBestIsTheScan(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(39, 4))
		bestSite(t, s, rng)
		var cells []store.CellQuery
		for _, m := range []string{"total_tok_s", "ttft_ms"} {
			mc, err := s.MetricCells(ctx, m)
			if err != nil || len(mc) == 0 {
				t.Fatalf("MetricCells(%s) = %v, %v", m, mc, err)
			}
			for _, c := range mc {
				cells = append(cells, store.CellQuery{Metric: m, Context: c.Context, Level: c.Level, Cond: c.Cond})
			}
		}
		cells = append(cells, store.CellQuery{Metric: "total_tok_s", Context: 7, Level: 3}) // no run has it
		check := func(when string) {
			t.Helper()
			compared, nonEmpty := 0, 0
			for range 300 {
				q, by, limit := randomBestQuery(rng, cells)
				got, err := s.BestByGroup(ctx, q, by, limit)
				if err != nil {
					t.Fatal(err)
				}
				scan, err := s.BestByGroupScanForTesting(ctx, q, by, limit)
				if err != nil {
					t.Fatal(err)
				}
				want := bestWorkedOut(t, s, q, by, limit)
				if d := gocmp.Diff(want, scan, cmpopts.EquateEmpty()); d != "" {
					t.Fatalf("%s: the scan of %+v by %s differs from the runs' values (-worked out +scan):\n%s", when, q, by, d)
				}
				if d := gocmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
					t.Errorf("%s: BestByGroup(%+v by %s, %d) (-scan +got):\n%s", when, q, by, limit, d)
				}
				compared++
				if len(want) > 0 {
					nonEmpty++
				}
			}
			if nonEmpty < 100 {
				t.Errorf("%s: only %d of %d questions had an answer", when, nonEmpty, compared)
			}
		}
		recountMatches(t, s)
		asStoredAndReindexed(t, s, check)
		if err := s.ExecForTesting(ctx, `DELETE FROM cell_best`); err != nil {
			t.Fatal(err)
		}
		if err := s.FillBestForTesting(ctx); err != nil {
			t.Fatal(err)
		}
		check("filled afresh")
		recountMatches(t, s)
	})
}

// bestWorkedOut is BestByGroup worked out in Go from ListRuns (the runs q selects) and
// CellValues: per group the lowest rank key, ties by id, and how many have the cell;
// groups best first, ties by name; at most limit.
func bestWorkedOut(t *testing.T, s *store.Store, q store.CellQuery, by string, limit int) []store.GroupBest {
	t.Helper()
	ctx := context.Background()
	lq := q.Query
	lq.Limit = 500
	runs, err := s.ListRuns(ctx, lq)
	if err != nil || len(runs) == 500 {
		t.Fatalf("ListRuns(%+v) = %d runs, %v", lq, len(runs), err)
	}
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.ID
	}
	vals, err := s.CellValues(ctx, ids, q.Metric)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := metric.MetricByName(q.Metric)
	type best struct {
		store.GroupBest
		key float64
	}
	groups := map[string]*best{}
	for _, r := range runs {
		i := slices.IndexFunc(vals[r.ID], func(v metric.CellValue) bool {
			return v.Context == q.Context && v.Level == q.Level && v.Cond == q.Cond
		})
		if i < 0 {
			continue
		}
		v := vals[r.ID][i].Value
		name := map[string]string{"gpu": r.GPU, "model": r.Model, "family": r.Family}[by]
		g := groups[name]
		if g == nil {
			g = &best{GroupBest: store.GroupBest{Name: name, Value: v, RunID: r.ID}, key: m.RankKey(v)}
			groups[name] = g
		} else if k := m.RankKey(v); k < g.key || k == g.key && r.ID < g.RunID {
			g.Value, g.RunID, g.key = v, r.ID, k
		}
		g.Runs++
	}
	all := make([]*best, 0, len(groups))
	for _, g := range groups {
		all = append(all, g)
	}
	slices.SortFunc(all, func(a, b *best) int { return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.Name, b.Name)) })
	out := []store.GroupBest{}
	for _, g := range all[:min(limit, len(all))] {
		out = append(out, g.GroupBest)
	}
	return out
}
