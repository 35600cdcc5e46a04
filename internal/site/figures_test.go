package site

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// TestNoFakeFirstOnTheTTFTBoard: a submitted run whose valid 0 × 1 cell has no
// ttft_ms (another tool's document) is accepted, ranks by the figures it has, and is
// not on the TTFT board of that cell — it ranked first at "0 ms" (issue 37 item 6) —
// in the API or on the page in either language; a page that shows its matrix shows
// "—" for the TTFT it lacks, not 0 ms.
func TestNoFakeFirstOnTheTTFTBoard(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{RateBurst: 100})
		ts.mustSubmit(t, seedDoc(t))
		ts.mustSubmit(t, rawEdit(t, func(m map[string]any) {
			m["id"], m["title"] = "no-ttft", "No TTFT"
			delete(m["decode"].([]any)[0].(map[string]any), "ttft_ms")
		}))
		board := func(metric string) []string {
			t.Helper()
			code, body := ts.get(t, "/api/v1/leaderboard?metric="+metric+"&context=0&concurrency=1")
			if code != http.StatusOK {
				t.Fatalf("%s board: %d %s", metric, code, body)
			}
			var a boardAnswer
			if err := json.Unmarshal([]byte(body), &a); err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, e := range a.Entries {
				if e.Value <= 0 {
					t.Errorf("%s board: %s at %g", metric, e.RunID, e.Value)
				}
				ids = append(ids, e.RunID)
			}
			return ids
		}
		if ids := board("ttft_ms"); len(ids) != 1 || ids[0] != seedID {
			t.Errorf("TTFT board at 0 × 1 ranks %v; want the seed alone", ids)
		}
		if ids := board("total_tok_s"); len(ids) != 2 {
			t.Errorf("total tok/s board at 0 × 1 ranks %v; want both runs", ids)
		}
		for _, lang := range []string{"en", "ja"} {
			_, page := ts.get(t, "/?metric=ttft_ms&context=0&concurrency=1&lang="+lang)
			if strings.Contains(page, "/runs/no-ttft") {
				t.Errorf("%s: the TTFT board's page lists no-ttft", lang)
			}
			_, cmp := ts.get(t, "/compare?id="+seedID+"&id=no-ttft&lang="+lang)
			if !strings.Contains(cmp, "— "+locale.T(lang, "ttft")) {
				t.Errorf("%s: compare shows no \"— %s\" for the TTFT no-ttft lacks", lang, locale.T(lang, "ttft"))
			}
		}
	})
}
