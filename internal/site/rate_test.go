package site

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
	"github.com/llmbench/llmbench/internal/site/ui"
)

// rateDoc is an open-loop run document (the report package's fixture, written by
// llmbench run --quick --rate against the emulator).
func rateDoc(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("../report/testdata/rate-run.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRateRunStoredAndShown: the site accepts an open-loop run (no matrix, a rate[]
// section), keeps it verbatim, lists it, and shows its rate table on the run page.
func TestRateRunStoredAndShown(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{Report: ui.HTMLReport{}})
		ts.mustSubmit(t, seedDoc(t))
		doc := rateDoc(t)
		run, err := rundoc.Decode(doc)
		if err != nil {
			t.Fatal(err)
		}
		ts.mustSubmit(t, doc)
		if code, got := ts.get(t, "/api/v1/runs/"+run.ID); code != http.StatusOK || got != string(doc) {
			t.Errorf("GET the rate run = %d, identical to the submitted bytes: %v", code, got == string(doc))
		}
		if code, body := ts.get(t, "/runs"); code != http.StatusOK || !strings.Contains(body, run.ID) {
			t.Errorf("/runs = %d, lists the rate run: %v", code, strings.Contains(body, run.ID))
		}
		// Every page that shows runs renders beside a rate run (it has no matrix).
		for _, p := range []string{"/", "/leaderboard", "/hardware", "/models", "/compare?id=seed-rtx3090-qwen3.8-27b-int4&id=" + run.ID, "/api/v1/runs"} {
			if code, body := ts.get(t, p); code != http.StatusOK {
				t.Errorf("%s = %d: %.300s", p, code, body)
			}
		}
		code, page := ts.get(t, "/runs/"+run.ID)
		if code != http.StatusOK || !strings.Contains(page, "lb-rate-table") || !strings.Contains(page, "Request rates") {
			t.Errorf("run page = %d, shows the rate table: %v", code, strings.Contains(page, "lb-rate-table"))
		}
	})
}

func TestValidateRateCells(t *testing.T) {
	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(rateDoc(t), &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	cell := func(m map[string]any) map[string]any { return m["rate"].([]any)[0].(map[string]any) }
	if _, err := guard.ValidateRun(rateDoc(t)); err != nil {
		t.Fatalf("a rate run was refused: %v", err)
	}
	for _, tc := range []struct {
		name  string
		doc   []byte
		field string
	}{
		{"ratio above 1", edit(func(m map[string]any) { cell(m)["slo_met_ratio"] = 1.5 }), "rate[0].slo_met_ratio"},
		{"negative percentile", edit(func(m map[string]any) { cell(m)["ttft_ms"].(map[string]any)["p50"] = -3 }), "rate[0].ttft_ms.p50"},
		{"zero rate", edit(func(m map[string]any) { cell(m)["rate_rps"] = 0 }), "rate[0].rate_rps"},
		{"more done than sent", edit(func(m map[string]any) { cell(m)["completed_requests"] = 1000 }), "rate[0].completed_requests"},
		{"pending", edit(func(m map[string]any) { cell(m)["status"] = "pending" }), "rate[0].status"},
		{"negative energy per token", edit(func(m map[string]any) { cell(m)["energy"] = map[string]any{"joules_per_token": -0.5} }), "rate[0].energy.joules_per_token"},
		{"a power mean past any GPU", edit(func(m map[string]any) { cell(m)["energy"] = map[string]any{"power_w_mean": 1e12} }), "rate[0].energy.power_w_mean"},
		{"a cell with another arrival than its plan", edit(func(m map[string]any) { cell(m)["arrival"] = "constant" }), "rate[0].arrival"},
		{"a cell with another client cap than its plan", edit(func(m map[string]any) { cell(m)["max_concurrency"] = 4 }), "rate[0].max_concurrency"},
		{"an arrival llmbench does not write", edit(func(m map[string]any) { m["config"].(map[string]any)["rate"].(map[string]any)["arrival"] = "bursty" }), "config.rate.arrival"},
		{"a length spread llmbench does not write", edit(func(m map[string]any) { m["config"].(map[string]any)["rate"].(map[string]any)["len_dist"] = "wide" }), "config.rate.len_dist"},
		{"a matrix run still needs its axes", edit(func(m map[string]any) {
			delete(m["config"].(map[string]any), "rate")
			delete(m, "rate")
		}), "config.contexts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ferr := guard.ValidateRun(tc.doc)
			if ferr == nil || ferr.Field != tc.field {
				t.Errorf("error %v, want one on %s", ferr, tc.field)
			}
		})
	}
}
