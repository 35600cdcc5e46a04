package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc/rundoctest"
)

// TestAccuracyInHTML: "llmbench report --format html" shows a document's evaluation
// (its score, interval, costs and categories) and, given two documents that evaluated
// the same items, the page of the newest with their A/B — delta, flips, exact McNemar
// p — in both languages; stderr says which page it is. The A/B's figures are the ones
// text prints for the same two documents (a hand count of the fixtures: items 0, 5,
// …, 35 and the unfinished 39 wrong in A; B adds 3, 17, 24, 38 and 10 right).
func TestAccuracyInHTML(t *testing.T) {
	a, b := rundoctest.Path("eval-bf16-run.json"), rundoctest.Path("eval-fp8-run.json")
	for lang, want := range map[string]struct{ one, ab []string }{
		"en": {
			one: []string{"<h2>Accuracy — mmlu-pro</h2>", "<li>77.5% right (31 of 40), 95% CI 62.5%–87.7%</li>", `<th scope="row">history</th><td class="lb-num">10</td><td class="lb-num">70.0%</td>`, `<p class="lb-eyebrow">Accuracy</p>`},
			ab:  []string{"<h2>A/B on mmlu-pro</h2>", "<li>A 77.5% → B 67.5% over 40 paired items: -10.0 points (95% CI -22.6 to 2.7)</li>", "5 right → wrong, 1 wrong → right", "exact McNemar p = 0.2188", "<h1>Qwen3-8B FP8 · mmlu-pro</h1>"},
		},
		"ja": {
			one: []string{"<h2>正答率 — mmlu-pro</h2>", "<li>正答率 77.5%（31 / 40）、95% 信頼区間 62.5%–87.7%</li>", "カテゴリ"},
			ab:  []string{"<h2>mmlu-pro の A/B 比較</h2>", "正→誤 5 問、誤→正 1 問", "正確 McNemar 検定 p = 0.2188"},
		},
	} {
		var out, stderr bytes.Buffer
		if err := Render(&out, &stderr, []string{a}, "", Options{Format: "html", Lang: lang}); err != nil {
			t.Fatal(err)
		}
		for _, w := range want.one {
			if !strings.Contains(out.String(), w) {
				t.Errorf("html (%s) of one evaluation lacks %q", lang, w)
			}
		}
		out.Reset()
		if err := Render(&out, &stderr, []string{a, b}, "", Options{Format: "html", Lang: lang}); err != nil {
			t.Fatal(err)
		}
		page := out.String()
		for _, w := range append(want.ab, want.one[0]) {
			if !strings.Contains(page, w) {
				t.Errorf("html (%s) of two evaluations lacks %q", lang, w)
			}
		}
		if n := strings.Count(page, "<html"); n != 1 {
			t.Errorf("html (%s) of two evaluations is %d pages, want one", lang, n)
		}
		if !strings.Contains(stderr.String(), "with the A/B of their evaluations (A "+a+", B "+b+")") {
			t.Errorf("stderr does not say the page holds the A/B: %q", stderr.String())
		}
	}
	// Two documents with no evaluation in common: the newest alone, as before.
	var out, stderr bytes.Buffer
	if err := Render(&out, &stderr, []string{a, seedPath}, "", Options{Format: "html", Lang: "en"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "A/B on") || strings.Contains(stderr.String(), "A/B") {
		t.Errorf("an A/B of documents that share no set")
	}
}
