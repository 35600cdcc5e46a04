package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// rateRun reads an open-loop fixture of the report package (llmbench run --quick
// --rate 1,4,inf --max-concurrency 8 --requests 20 --slo ttft=1s,tpot=60ms against
// the emulator; or its --find-max-rate twin) as a measured run under another id.
func rateRun(t *testing.T, file, id string) *rundoc.Run {
	t.Helper()
	b, err := os.ReadFile("../../report/testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	r, err := rundoc.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	r.ID, r.Status = id, rundoc.RunMeasured
	return r
}

func putRun(t *testing.T, s *store.Store, r *rundoc.Run) {
	t.Helper()
	if _, err := s.PutRun(context.Background(), record(r, "@alice", ""), mustJSON(t, r)); err != nil {
		t.Fatalf("storing %s: %v", r.ID, err)
	}
}

// scaleGoodput multiplies every cell's goodput (and its met share, capped at 1).
func scaleGoodput(r *rundoc.Run, k float64) {
	for i := range r.Rate {
		if f := r.Rate[i].RateFigures; f != nil && f.GoodputRPS != nil {
			g := *f
			v := *f.GoodputRPS * k
			g.GoodputRPS = &v
			r.Rate[i].RateFigures = &g
		}
	}
}

func ms(v float64) *float64 { return &v }

// fixtureCond is the conditions the fixture rate-run.json was measured under.
func fixtureCond(slo bool) metric.RateCond {
	c := metric.RateCond{OutputLen: 64, Arrival: "poisson", LenDist: "fixed", MaxConcurrency: 8, Requests: 20}
	if slo {
		c.SLO = &rundoc.SLO{TTFTMs: ms(1000), TPOTMs: ms(60)}
	}
	return c
}

// TestRateCellsRankUnderTheirConditions: goodput ranks only runs judged against the
// same SLO, with the same lengths and arrival pattern; latencies and achieved rate
// rank across SLOs (they do not depend on one); an inf cell ranks only with bursts of
// the same size; a search's highest rate ranks only when it bracketed the edge.
func TestRateCellsRankUnderTheirConditions(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		base := rateRun(t, "rate-run.json", "base")
		putRun(t, s, base)
		better := rateRun(t, "rate-run.json", "better")
		scaleGoodput(better, 1.2)
		putRun(t, s, better)
		strict := rateRun(t, "rate-run.json", "strict-slo")
		strict.Config.Rate.SLO.TTFTMs = ms(500)
		scaleGoodput(strict, 1.5) // higher, but against another SLO: never beside base
		putRun(t, s, strict)
		longer := rateRun(t, "rate-run.json", "longer-output")
		longer.Config.Rate.OutputLen = 256
		putRun(t, s, longer)
		shared := rateRun(t, "rate-run.json", "shared-prefix")
		shared.Config.Rate.PrefixShare = 0.5
		putRun(t, s, shared)
		burst := rateRun(t, "rate-run.json", "bigger-burst")
		for i := range burst.Rate {
			if burst.Rate[i].RateRPS.IsInf() {
				f := *burst.Rate[i].RateFigures
				f.Requests = 40
				burst.Rate[i].RateFigures = &f
			}
		}
		putRun(t, s, burst)
		more := rateRun(t, "rate-run.json", "more-requests") // cells of 40 requests; its inf cell still sent 20
		more.Config.Rate.Requests = 40
		putRun(t, s, more)
		search := rateRun(t, "rate-search-run.json", "search")
		putRun(t, s, search)
		searchLong := rateRun(t, "rate-search-run.json", "search-30s-cells")
		searchLong.Config.DurationS = 30
		putRun(t, s, searchLong)
		open := rateRun(t, "rate-search-run.json", "search-never-failed")
		open.MaxRate.FailedRPS, open.MaxRate.Stop = nil, "all_passed"
		putRun(t, s, open)
		putVariant(t, s, "matrix", "RedHatAI/Qwen3.8-27B-INT4", "RTX 3090", 1, rundoc.RunMeasured)

		slo, workload := fixtureCond(true).Key(), fixtureCond(false).Key()
		strictCond := fixtureCond(true)
		strictCond.SLO.TTFTMs = ms(500)
		target := fixtureCond(true) // the search: no client cap, 5 s cells
		target.MaxConcurrency, target.Requests, target.DurationS, target.Target = 0, 0, 5, 0.95
		longerCells := target
		longerCells.DurationS = 30
		tests := []struct {
			name string
			q    store.CellQuery
			want []string
		}{
			// rate-run.json's 4/s cell: goodput 1.538 req/s, TTFT p50 740.41 ms (the
			// same in every copy but better's goodput; ties rank by id).
			{"goodput at 4/s under the fixture's SLO", store.CellQuery{Metric: "goodput_rps", Context: 512, Level: 4, Cond: slo},
				[]string{"better", "base", "bigger-burst"}},
			{"goodput under the stricter SLO", store.CellQuery{Metric: "goodput_rps", Context: 512, Level: 4, Cond: strictCond.Key()},
				[]string{"strict-slo"}},
			{"goodput with no conditions ranks nothing", store.CellQuery{Metric: "goodput_rps", Context: 512, Level: 4}, nil},
			{"TTFT p50 does not depend on the SLO", store.CellQuery{Metric: "rate_ttft_p50_ms", Context: 512, Level: 4, Cond: workload},
				[]string{"base", "better", "bigger-burst", "strict-slo"}},
			{"another input length", store.CellQuery{Metric: "rate_ttft_p50_ms", Context: 1024, Level: 4, Cond: workload}, nil},
			// The fixture's plan sends 20 requests a cell, its inf cell 20 at once: one set of conditions.
			{"inf cells of 20 requests at once", store.CellQuery{Metric: "goodput_rps", Context: 512, Level: metric.RateInf, Cond: slo},
				[]string{"better", "base", "more-requests"}},
			{"a search's highest rate (5 s cells)", store.CellQuery{Metric: "max_rate_rps", Context: 512, Cond: target.Key()},
				[]string{"search"}},
			{"a search of 30 s cells", store.CellQuery{Metric: "max_rate_rps", Context: 512, Cond: longerCells.Key()},
				[]string{"search-30s-cells"}},
			{"the rate runs alone", store.CellQuery{Metric: "achieved_rps", Context: 512, Level: 1, Cond: workload, Query: store.Query{Mode: metric.ModeRate}},
				[]string{"base", "better", "bigger-burst", "strict-slo"}},
		}
		for _, tt := range tests {
			if d := cmp.Diff(tt.want, rankedIDs(t, s, tt.q)); d != "" {
				t.Errorf("%s (-want +got):\n%s", tt.name, d)
			}
		}
		rs, err := s.RankByCell(ctx, store.CellQuery{Metric: "goodput_rps", Context: 512, Level: 4, Cond: slo, Query: store.Query{Limit: 2}})
		if err != nil || len(rs) != 2 || rs[1].ID != "base" || rs[1].Value != 1.538 || rs[0].Value != 1.538*1.2 || rs[1].Mode != metric.ModeRate {
			t.Errorf("goodput at 4/s = %+v, %v; want better (1.538 × 1.2) then base (1.538 req/s, the fixture's), a rate run", rs, err)
		}
		if rs, err := s.RankByCell(ctx, store.CellQuery{Metric: "max_rate_rps", Context: 512, Cond: target.Key()}); err != nil || len(rs) != 1 || rs[0].Value != 1.31 {
			t.Errorf("the search's highest rate = %+v, %v; want 1.31 req/s", rs, err)
		}
		prefixed := fixtureCond(true)
		prefixed.PrefixShare = 0.5
		if got := rankedIDs(t, s, store.CellQuery{Metric: "goodput_rps", Context: 512, Level: 4, Cond: prefixed.Key()}); !cmp.Equal(got, []string{"shared-prefix"}) {
			t.Errorf("goodput with half the prompt shared ranks %v, want shared-prefix alone", got)
		}

		cells, err := s.MetricCells(ctx, "goodput_rps")
		if err != nil {
			t.Fatal(err)
		}
		at4 := 0
		for _, c := range cells {
			if c.Cond == slo && c.Context == 512 && c.Level == 4 {
				at4 = c.Runs
			}
			if c.Cond == "" {
				t.Errorf("a goodput cell without conditions: %+v", c)
			}
		}
		if at4 != 3 {
			t.Errorf("runs with goodput at 512, 4/s under the fixture's SLO = %d, want 3 (cells %+v)", at4, cells)
		}
		list, err := s.ListRuns(ctx, store.Query{Mode: metric.ModeMatrix})
		if err != nil || len(list) != 1 || list[0].ID != "matrix" || list[0].Mode != metric.ModeMatrix {
			t.Errorf("matrix runs = %+v, %v", list, err)
		}
		f, err := s.Facets(ctx)
		if d := cmp.Diff([]store.Facet{{Value: "matrix", Runs: 1}, {Value: "rate", Runs: 10}}, f.Modes); err != nil || d != "" {
			t.Errorf("mode facets (-want +got): %v\n%s", err, d)
		}
	})
}

// TestRateValuesComeBackOnReindex: a store whose rate runs were stored before the
// rate metrics (and the mode column) gets both when it is opened again.
func TestRateValuesComeBackOnReindex(t *testing.T) {
	storetest.Pair(t, func(t *testing.T, a, b *store.Store) {
		ctx := context.Background()
		putRun(t, a, rateRun(t, "rate-run.json", "base"))
		q := store.CellQuery{Metric: "goodput_rps", Context: 512, Level: 1, Cond: fixtureCond(true).Key(), Query: store.Query{Mode: metric.ModeRate}}
		if got := rankedIDs(t, a, q); !cmp.Equal(got, []string{"base"}) {
			t.Fatalf("before forgetting: %v", got)
		}
		if err := a.ForgetIndexForTesting(ctx); err != nil {
			t.Fatal(err)
		}
		if got := rankedIDs(t, a, q); len(got) != 0 {
			t.Fatalf("after forgetting the index the cell still ranks %v", got)
		}
		if n, err := b.Reindex(ctx); err != nil || n != 1 {
			t.Fatalf("Reindex = %d, %v", n, err)
		}
		if got := rankedIDs(t, a, q); !cmp.Equal(got, []string{"base"}) {
			t.Errorf("after Reindex: %v", got)
		}
	})
}

// TestRegistryConditionsMatchValues: every open-loop metric's values carry the
// conditions its entry says (an SLO exactly when it is ranked under one), so that a
// query built from the entry finds them.
func TestRegistryConditionsMatchValues(t *testing.T) {
	// The fixtures' cells have 20 requests, too few for a p90 (64): give one cell one.
	withP90 := rateRun(t, "rate-run.json", "c")
	f := *withP90.Rate[0].RateFigures
	f.TTFTMs.P90, f.TTFTMs.Samples = ms(400), 64
	withP90.Rate[0].RateFigures = &f
	runs := []*rundoc.Run{rateRun(t, "rate-run.json", "a"), rateRun(t, "rate-search-run.json", "b"), withP90}
	for _, m := range metric.CellMetrics {
		n := 0
		for _, r := range runs {
			for _, v := range m.Values(r) {
				n++
				if m.Under == metric.NoConditions {
					t.Errorf("%s: a matrix metric has a value in a rate run: %+v", m.Name, v)
					continue
				}
				c, err := metric.ParseCondKey(v.Cond)
				if err != nil {
					t.Errorf("%s: %v", m.Name, err)
					continue
				}
				if (c.SLO != nil) != (m.Under >= metric.UnderSLO) || (c.Target > 0) != (m.Under >= metric.UnderSLOTarget) {
					t.Errorf("%s (under %s) has a value under %q", m.Name, m.Under, v.Cond)
				}
			}
		}
		if m.Under != metric.NoConditions && n == 0 {
			t.Errorf("%s has no value in any fixture", m.Name)
		}
	}
}

// TestMigrationKeepsOlderRuns: a site that stored a matrix run and a rate run under
// the schema before open-loop metrics (version 2) ranks both after the upgrade, the
// rate run as a rate run.
func TestMigrationKeepsOlderRuns(t *testing.T) {
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			ctx := context.Background()
			dsn := filepath.Join(t.TempDir(), "site.db")
			if db == "postgres" {
				dsn = storetest.PostgresURL(t)
			}
			old, err := store.OpenAtVersionForTesting(ctx, dsn, 2)
			if err != nil {
				t.Fatal(err)
			}
			_, matrix := seed(t)
			rate := rateRun(t, "rate-run.json", "old-rate-run")
			for _, r := range []*rundoc.Run{matrix, rate} {
				sum := metric.Summarize(r)
				err := old.ExecForTesting(ctx, `INSERT INTO runs (id, kind, title, model, gpu, gpu_count, engine, engine_version, quantization, profile,
					created_at, submitted_at, submitter, org) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
					r.ID, sum.Kind, sum.Title, sum.Model, sum.GPU, sum.GPUCount, sum.Engine, sum.EngineVersion, sum.Quantization, sum.Profile,
					r.CreatedAt.UTC(), r.CreatedAt.UTC(), "@alice", "")
				if err == nil {
					err = old.ExecForTesting(ctx, `INSERT INTO run_docs (id, doc_sha256, doc) VALUES (?, ?, ?)`, r.ID, "x", string(mustJSON(t, r)))
				}
				if err != nil {
					t.Fatalf("storing %s under schema 2: %v", r.ID, err)
				}
			}
			// The matrix run's values as the older release stored them.
			if err := old.ExecForTesting(ctx, `INSERT INTO run_metrics (run_id, metric, context, level, value, rank_key) VALUES (?, 'total_tok_s', 0, 1, 48.2, -48.2)`, matrix.ID); err != nil {
				t.Fatal(err)
			}
			old.Close()
			s, err := store.Open(ctx, dsn)
			if err != nil {
				t.Fatalf("opening the older store: %v", err)
			}
			defer s.Close()
			if got := rankedIDs(t, s, store.CellQuery{Metric: "total_tok_s", Context: 0, Level: 1}); !cmp.Equal(got, []string{matrix.ID}) {
				t.Errorf("by total tok/s after the upgrade: %v", got)
			}
			rs, err := s.RankByCell(ctx, store.CellQuery{Metric: "goodput_rps", Context: 512, Level: 4, Cond: fixtureCond(true).Key()})
			if err != nil || len(rs) != 1 || rs[0].ID != "old-rate-run" || rs[0].Mode != metric.ModeRate || rs[0].Value != 1.538 {
				t.Errorf("by goodput after the upgrade: %+v, %v", rs, err)
			}
			if f, err := s.Facets(ctx); err != nil || !cmp.Equal(f.Modes, []store.Facet{{Value: "matrix", Runs: 1}, {Value: "rate", Runs: 1}}) {
				t.Errorf("modes after the upgrade: %+v, %v", f.Modes, err)
			}
		})
	}
}

// FuzzParseSLOText: whatever a URL's slo= holds, the targets read from it write back
// as text that reads as the same targets (so a link the site writes ranks the same
// runs as the request it came from), and the key of conditions holding them parses
// back to itself.
func FuzzParseSLOText(f *testing.F) {
	for _, s := range []string{"ttft:500ms,tpot:50ms", "ttft=1s,tpot=60ms", "e2e:12.5", "tpot:0.000001s", "ttft:1e3ms", ",,ttft:7ms,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		slo, err := metric.ParseSLOText(text)
		if err != nil {
			return
		}
		again, err := metric.ParseSLOText(metric.SLOText(slo))
		if err != nil || metric.SLOText(again) != metric.SLOText(slo) {
			t.Fatalf("%q reads as %q, which reads as %q (%v)", text, metric.SLOText(slo), metric.SLOText(again), err)
		}
		c := fixtureCond(false)
		c.SLO = slo
		back, err := metric.ParseCondKey(c.Key())
		if err != nil || back.Key() != c.Key() {
			t.Fatalf("the key %q parses back as %q (%v)", c.Key(), back.Key(), err)
		}
	})
}
