package site

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/accuracy"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
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
		ts := newTestSite(t, st, Options{Report: reportBody{}})
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
