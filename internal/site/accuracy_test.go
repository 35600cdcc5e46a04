package site

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/accuracy"
	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
	"github.com/llmbench/llmbench/internal/site/ui"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// evalEntry is a GSM8K evaluation of 100 items whose item i is right when right(i).
func evalEntry(right func(i int) bool) rundoc.Accuracy {
	a := rundoc.Accuracy{Set: rundoc.EvalSet{Name: "gsm8k", Revision: "3101c7d5072418e28b9008a6636bde82a006892c", SHA256: "3730d312", Size: 1319, Prompt: "gsm8k-0shot-v1", Scorer: accuracy.Number},
		Config: rundoc.EvalConfig{API: "chat", MaxTokens: 4096, Concurrency: 16, Limit: 100}, Planned: 100}
	for i := range 100 {
		content := "#### 1"
		if !right(i) {
			content = "#### 2"
		}
		a.Items = append(a.Items, accuracy.Score(rundoc.EvalItem{ID: fmt.Sprint(i), Category: []string{"even", "odd"}[i%2], Expected: "1"}, accuracy.Number, accuracy.Response{Content: content, CompletionTokens: 100}))
	}
	accuracy.Summarize(&a)
	return a
}

// TestAccuracyOnRunAndComparePages: a run document holding speed and accuracy is
// stored on both stores; its page shows the accuracy beside the speed figures (once:
// the report body below them leaves it out), and the compare page the A/B with its
// flips and exact McNemar p, in both languages; the API returns the accuracy block.
func TestAccuracyOnRunAndComparePages(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{Report: ui.HTMLReport{}})
		// Items 0–11 right only in A, 12–14 only in B, 15–74 in both: 72% against 63%.
		a := edited(t, func(r *rundoc.Run) {
			r.ID = "bf16"
			r.Accuracy = []rundoc.Accuracy{evalEntry(func(i int) bool { return i < 12 || i >= 15 && i < 75 })}
		})
		b := edited(t, func(r *rundoc.Run) {
			r.ID = "fp8"
			r.Accuracy = []rundoc.Accuracy{evalEntry(func(i int) bool { return i >= 12 && i < 75 })}
		})
		ts.mustSubmit(t, a)
		ts.mustSubmit(t, b)
		for lang, want := range map[string][]string{
			"en": {"Accuracy — gsm8k", "72.0% right (72 of 100), 95% CI 62.5%–79.9%", "id=\"fig-"},
			"ja": {"正答率 — gsm8k", "正答率 72.0%（72 / 100）", "カテゴリ"},
		} {
			code, page := ts.get(t, "/runs/bf16?lang="+lang)
			for _, w := range want {
				if code != http.StatusOK || !strings.Contains(page, w) {
					t.Errorf("run page (%s) = %d, says %q: %v", lang, code, w, strings.Contains(page, w))
				}
			}
			if n := strings.Count(page, want[0]); n != 1 || !strings.Contains(page, `class="report-body"`) {
				t.Errorf("run page (%s) with its report shows the accuracy %d times, want once", lang, n)
			}
		}
		for lang, want := range map[string][]string{
			"en": {"A/B on gsm8k", "12 right → wrong, 3 wrong → right", "exact McNemar p = 0.0352"},
			"ja": {"gsm8k の A/B 比較", "正→誤 12 問、誤→正 3 問", "正確 McNemar 検定 p = 0.0352"},
		} {
			code, page := ts.get(t, "/compare?id=bf16&id=fp8&lang="+lang)
			for _, w := range want {
				if code != http.StatusOK || !strings.Contains(page, w) {
					t.Errorf("compare (%s) = %d, says %q: %v", lang, code, w, strings.Contains(page, w))
				}
			}
		}
		if code, body := ts.get(t, "/api/v1/runs/fp8"); code != http.StatusOK || !strings.Contains(body, `"accuracy": 0.63`) && !strings.Contains(body, `"accuracy":0.63`) {
			t.Errorf("API = %d, carries the accuracy: %.200s", code, body)
		}
	})
}

// TestSubmittedAccuracyMustAddUp: a score its items do not support is refused.
func TestSubmittedAccuracyMustAddUp(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{})
		doc := edited(t, func(r *rundoc.Run) {
			r.ID = "inflated"
			e := evalEntry(func(i int) bool { return i < 50 })
			e.Correct = 90
			r.Accuracy = []rundoc.Accuracy{e}
		})
		if code, body := ts.submit(t, doc); code != http.StatusBadRequest && code != http.StatusUnprocessableEntity || !strings.Contains(body, "accuracy[0]") {
			t.Errorf("an inflated score: %d %s", code, body)
		}
	})
}

// TestLeaderboardAccuracyFilter: accuracy_within=X hides from the leaderboard (page
// and API) a run whose accuracy is more than X points below the best run of its model
// family on the same set — here an INT4 checkpoint 9 points below its BF16 original —
// keeps one without an evaluation, says so in the page's language, keeps the value in
// the form, and refuses a value outside 0–100; off by default; on both stores.
func TestLeaderboardAccuracyFilter(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{})
		for _, r := range []struct {
			id, model string
			right     func(i int) bool
		}{
			{"bf16", "Qwen/Qwen3.8-27B", func(i int) bool { return i < 72 }},
			{"int4", "RedHatAI/Qwen3.8-27B-INT4", func(i int) bool { return i < 63 }},
			{"noeval", "RedHatAI/Qwen3.8-27B-INT4", nil},
		} {
			ts.mustSubmit(t, edited(t, func(run *rundoc.Run) {
				run.ID, run.Title, run.Model.ID = r.id, r.id+" run", r.model
				if r.right != nil {
					run.Accuracy = []rundoc.Accuracy{evalEntry(r.right)}
				}
			}))
		}
		board := func(q string) []string {
			t.Helper()
			code, body := ts.get(t, "/api/v1/leaderboard?"+q)
			var out wire.Leaderboard
			if err := json.Unmarshal([]byte(body), &out); err != nil || code != http.StatusOK {
				t.Fatalf("?%s = %d %s", q, code, body)
			}
			var ids []string
			for _, e := range out.Entries {
				ids = append(ids, e.RunID)
			}
			slices.Sort(ids)
			if (out.AccuracyWithin != nil) != strings.Contains(q, "accuracy_within") {
				t.Errorf("?%s: the answer's accuracy_within is %v", q, out.AccuracyWithin)
			}
			return ids
		}
		for q, want := range map[string][]string{
			"":                    {"bf16", "int4", "noeval"},
			"accuracy_within=5":   {"bf16", "noeval"},
			"accuracy_within=9":   {"bf16", "int4", "noeval"},
			"accuracy_within=8.9": {"bf16", "noeval"},
		} {
			if got := board(q); !slices.Equal(got, want) {
				t.Errorf("?%s ranks %v, want %v", q, got, want)
			}
		}
		for lang, note := range map[string]string{locale.EN: "more than 5 points below the best run of their model family", locale.JA: "5 ポイントを超えて低い実行を隠しています"} {
			code, page := ts.get(t, "/?accuracy_within=5&lang="+lang)
			if code != http.StatusOK || strings.Contains(page, `href="/runs/int4"`) || !strings.Contains(page, `href="/runs/noeval"`) ||
				!strings.Contains(page, note) || !strings.Contains(page, `id="f-accuracy-within" value="5"`) {
				t.Errorf("leaderboard (%s) = %d: shows int4 %v, noeval %v, says %q %v, keeps 5 in the form %v", lang, code,
					strings.Contains(page, `href="/runs/int4"`), strings.Contains(page, `href="/runs/noeval"`), note, strings.Contains(page, note), strings.Contains(page, `value="5"`))
			}
			if _, page := ts.get(t, "/?lang="+lang); !strings.Contains(page, `href="/runs/int4"`) || strings.Contains(page, `id="accuracy-note"`) {
				t.Errorf("leaderboard (%s) without the filter hides a run or says it filters", lang)
			}
			if _, page := ts.get(t, "/?accuracy_within=200&lang="+lang); !strings.Contains(page, html.EscapeString(locale.T(lang, "qerr_accuracy_within"))) {
				t.Errorf("leaderboard (%s) does not refuse accuracy_within=200", lang)
			}
		}
		if code, body := ts.get(t, "/api/v1/leaderboard?accuracy_within=-1"); code != http.StatusBadRequest || !strings.Contains(body, `"accuracy_within"`) {
			t.Errorf("API accuracy_within=-1 = %d %s, want 400 on the field", code, body)
		}
	})
}
