package site

import (
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
	"github.com/llmbench/llmbench/internal/site/ui"
)

// TestCompareTakesTheFirstFour (issue 37 item 18): five runs ticked compare the first
// four, and the page says which was left out and why, in both languages (it compared
// nothing, silently).
func TestCompareTakesTheFirstFour(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{RateBurst: 100})
		var ids []string
		for i := range 5 {
			id := fmt.Sprintf("run-%d", i+1)
			ts.mustSubmit(t, edited(t, func(r *rundoc.Run) { r.ID, r.Title = id, "Run number "+id }))
			ids = append(ids, "id="+id)
		}
		for _, lang := range []string{locale.EN, locale.JA} {
			code, body := ts.get(t, "/compare?"+strings.Join(ids, "&")+"&lang="+lang)
			if code != http.StatusOK {
				t.Fatalf("%s: %d", lang, code)
			}
			for i := range 4 {
				if !strings.Contains(body, fmt.Sprintf(`href="/runs/run-%d"`, i+1)) {
					t.Errorf("%s: run-%d is not compared", lang, i+1)
				}
			}
			if strings.Contains(body, `href="/runs/run-5"`) || !strings.Contains(body, `id="compare-dropped"`) ||
				!strings.Contains(body, html.EscapeString(locale.T(lang, "compare_dropped", 5, ui.MaxCompare, "run-5"))) {
				t.Errorf("%s: the fifth run is compared, or the page does not say it was left out", lang)
			}
		}
	})
}

// TestBoardMarksOverCapacityCells (issue 37 item 15): ranked by a cell, a run's row at
// a glance marks the cells it did not run because they were over capacity as such,
// not with the "—" of a cell it lacks.
func TestBoardMarksOverCapacityCells(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{})
		ts.mustSubmit(t, seedDoc(t)) // at 16K: 1 and 2 measured, 4–128 over capacity
		// A larger server that ran 16K × 4, so that the board has that column.
		ts.mustSubmit(t, edited(t, func(r *rundoc.Run) {
			r.ID, r.Title, r.Hardware.GPUs[0].Name = "bigger", "on a bigger GPU", "H100"
			c, two := r.Cell(16384, 4), r.Cell(16384, 2)
			c.Status, c.Reason, c.DecodeFigures = rundoc.StatusValid, "", two.DecodeFigures
		}))
		for _, lang := range []string{locale.EN, locale.JA} {
			_, body := ts.get(t, "/?metric=per_request_tok_s&context=16K&concurrency=1&lang="+lang)
			row := regexp.MustCompile(`(?s)<tr data-id="` + seedID + `">.*?</tr>`).FindString(body)
			over := strings.Count(row, `class="num glance over"`)
			if over == 0 || !strings.Contains(row, ">"+locale.T(lang, "over_capacity")+"<") {
				t.Errorf("%s: the seed's row at 16K marks %d cells over capacity:\n%s", lang, over, row)
			}
			if strings.Contains(row, ">—<") {
				t.Errorf("%s: an over-capacity cell still shows —:\n%s", lang, row)
			}
		}
	})
}

// TestBestChartDrawsTies (issue 37 item 14): the best-GPU chart ranks as the board
// does: a GPU whose best run's interval overlaps the one above shares its rank.
func TestBestChartDrawsTies(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{RateBurst: 100})
		ts.mustSubmit(t, tieDoc(t, "a-5090", "RTX 5090", 48.2, 47.6, 48.8))
		ts.mustSubmit(t, tieDoc(t, "b-4090", "RTX 4090", 47.5, 47.0, 48.0)) // overlaps a
		ts.mustSubmit(t, tieDoc(t, "c-3080", "RTX 3080", 46.0, 45.5, 46.5)) // clear of b
		_, body := ts.get(t, "/?metric=total_tok_s&context=32K&concurrency=1&family=qwen3.8-27b&lang=en")
		var labels []string
		for _, m := range regexp.MustCompile(`class="lb-tick lb-bar-label"[^>]*>([^<]*)`).FindAllStringSubmatch(body, -1) {
			labels = append(labels, html.UnescapeString(m[1]))
		}
		if got := strings.Join(labels, " | "); got != "1  RTX 5090 | 1  RTX 4090 | 3  RTX 3080" {
			t.Errorf("the best-GPU chart ranks %q, want the 4090 tied with the 5090", got)
		}
		if !strings.Contains(body, ">≈ 47.5<") {
			t.Error("the tied bar's value is not marked ≈")
		}
	})
}

// TestPageErrorsInTheirLanguage (issue 37 item 17): a query a page cannot use is
// refused in the page's language; the API's reason stays English.
func TestPageErrorsInTheirLanguage(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	for _, tc := range []struct{ path, en, ja string }{
		{"/?metric=bogus", "metric: must be one of", "metric：次のいずれかで指定してください"},
		{"/?context=lots", "context: must be a context length in tokens", "context：トークン数のコンテキスト長で指定してください"},
		{"/runs?size=huge", "size: must be one of", "size：次のいずれかで指定してください"},
		{"/?metric=goodput_rps&arrival=sometimes&slo=ttft:1s", "arrival: must be poisson", "arrival：poisson、constant、gamma:BURSTINESS"},
	} {
		_, en := ts.get(t, tc.path+"&lang=en")
		_, ja := ts.get(t, tc.path+"&lang=ja")
		if !strings.Contains(html.UnescapeString(en), tc.en) || !strings.Contains(html.UnescapeString(ja), tc.ja) || strings.Contains(ja, "must be") {
			t.Errorf("%s: the English page lacks %q or the Japanese page %q (or has English)", tc.path, tc.en, tc.ja)
		}
	}
	if _, body := ts.get(t, "/api/v1/leaderboard?metric=bogus"); !strings.Contains(body, `"reason": "must be one of total_tok_s`) {
		t.Errorf("the API's reason changed: %s", body)
	}
}
