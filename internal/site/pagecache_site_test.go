package site

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// TestPagesShowWhatWasJustStored: with the page cache on (the default), pages read
// before a run or a report was stored show it at once after, on both stores.
func TestPagesShowWhatWasJustStored(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{PageTTL: time.Hour})
		// What each page shows of the seed run: its id, or its GPU or model.
		const runID = "seed-rtx3090-qwen3.8-27b-int4"
		pages := map[string]string{"/runs": runID, "/api/v1/runs": runID, "/?kind=all": runID,
			"/hardware": "RTX 3090", "/models": "Qwen3.8-27B"}
		for p, shown := range pages {
			if code, body := ts.get(t, p); code != http.StatusOK || strings.Contains(body, shown) {
				t.Fatalf("GET %s before storing: %d, run shown: %v", p, code, strings.Contains(body, shown))
			}
		}
		ts.mustSubmit(t, seedDoc(t))
		for p, shown := range pages {
			if _, body := ts.get(t, p); !strings.Contains(body, shown) {
				t.Errorf("GET %s right after the run was stored does not show %q", p, shown)
			}
		}
		if _, body := ts.get(t, "/reports"); strings.Contains(body, "cache-report") {
			t.Fatal("the report is listed before it was stored")
		}
		rep := store.Report{Slug: "cache-report", Title: "Cache report", BodyMD: "text", Author: "@a", CreatedAt: time.Now()}
		if err := st.PutReport(context.Background(), rep); err != nil {
			t.Fatal(err)
		}
		if _, body := ts.get(t, "/reports"); !strings.Contains(body, "cache-report") {
			t.Error("/reports right after a report was stored does not list it")
		}
	})
}
