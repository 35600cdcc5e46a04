package store_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// seedWithout is the seed's document under id with figures taken out as another tool
// would write it: each decode cell's keys in drop[context×concurrency] left out, or
// null where null is true; each prefill row's in dropPrefill[context].
func seedWithout(t *testing.T, id string, null bool, drop map[[2]int][]string, dropPrefill map[int][]string) ([]byte, *rundoc.Run) {
	t.Helper()
	raw, _ := seed(t)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	m["id"] = id
	remove := func(cell map[string]any, keys []string) {
		for _, k := range keys {
			if null {
				cell[k] = nil
			} else {
				delete(cell, k)
			}
		}
	}
	for _, c := range m["decode"].([]any) {
		cell := c.(map[string]any)
		remove(cell, drop[[2]int{int(cell["context"].(float64)), int(cell["concurrency"].(float64))}])
	}
	for _, p := range m["prefill"].([]any) {
		row := p.(map[string]any)
		remove(row, dropPrefill[int(row["context"].(float64))])
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	r, err := rundoc.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return b, r
}

// TestAValidCellWithoutAFigureIsOffItsBoard: a valid cell whose document leaves
// ttft_ms out (or writes null, which reads as 0 too) is not ranked on the TTFT board
// — it ranked first at "0 ms" (issue 37 item 6) — nor counted in its picker, and
// keeps its place on the boards of the figures it has; a cell without total_tok_s is
// no single-stream decode or peak figure of its run, and a prefill row without
// prompt_tok_s none at 32K. Re-indexing reads stored documents the same way.
func TestAValidCellWithoutAFigureIsOffItsBoard(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		put := func(b []byte, r *rundoc.Run) {
			t.Helper()
			if _, err := s.PutRun(ctx, record(r, "@alice", ""), b); err != nil {
				t.Fatal(err)
			}
		}
		whole, wr := seed(t)
		put(whole, wr)
		put(seedWithout(t, "no-ttft", false, map[[2]int][]string{{0, 1}: {"ttft_ms"}}, nil))
		put(seedWithout(t, "null-ttft", true, map[[2]int][]string{{0, 1}: {"ttft_ms"}}, nil))
		put(seedWithout(t, "no-total", false, map[[2]int][]string{{0, 1}: {"total_tok_s"}}, map[int][]string{32 * rundoc.K: {"prompt_tok_s"}}))
		check := func(when string) {
			t.Helper()
			cell := func(metric string, ctxTokens int, level float64) store.CellQuery {
				return store.CellQuery{Metric: metric, Context: ctxTokens, Level: level}
			}
			for _, tc := range []struct {
				q    store.CellQuery
				want []string
			}{
				{cell("ttft_ms", 0, 1), []string{wr.ID, "no-total"}},
				{cell("total_tok_s", 0, 1), []string{"no-ttft", "null-ttft", wr.ID}},
				{cell("ttft_ms", 0, 2), []string{"no-total", "no-ttft", "null-ttft", wr.ID}},
				{cell("prompt_tok_s", 32*rundoc.K, 0), []string{"no-ttft", "null-ttft", wr.ID}},
			} {
				got := rankedIDs(t, s, tc.q)
				slices.Sort(got)
				want := slices.Sorted(slices.Values(tc.want))
				if !slices.Equal(got, want) {
					t.Errorf("%s: %s at %d × %g ranks %v; want %v", when, tc.q.Metric, tc.q.Context, tc.q.Level, got, want)
				}
			}
			if rs, err := s.RankByCell(ctx, cell("ttft_ms", 0, 1)); err != nil || len(rs) == 0 || rs[0].Value <= 0 {
				t.Errorf("%s: the TTFT board's first entry is %+v (%v); want a measured TTFT", when, rs, err)
			}
			cells, err := s.MetricCells(ctx, "ttft_ms")
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cells {
				if c.Context == 0 && c.Level == 1 && c.Runs != 2 {
					t.Errorf("%s: the picker counts %d runs with TTFT at 0 × 1; want 2", when, c.Runs)
				}
			}
			rec, _, err := s.Run(ctx, "no-total")
			if err != nil || rec.DecodeTokS != nil || rec.Prefill32KTokS != nil || rec.PeakTokS == nil {
				t.Errorf("%s: no-total's summary %+v (%v); want no single-stream decode or 32K prefill, a peak", when, rec.Summary, err)
			}
			if rs, err := s.ListRuns(ctx, store.Query{Sort: metric.MetricDecode}); err != nil || slices.ContainsFunc(rs, func(r store.RunRecord) bool { return r.ID == "no-total" }) {
				t.Errorf("%s: ranking by single-stream decode lists no-total (%v)", when, err)
			}
		}
		asStoredAndReindexed(t, s, check)
	})
}
