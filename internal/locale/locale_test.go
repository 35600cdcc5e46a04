package locale

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// TestCatalogueLoads: both tables read, and the loader refuses a key given twice, a
// text that is empty and what is not an object of texts.
func TestCatalogueLoads(t *testing.T) {
	for _, lang := range Languages() {
		tab, err := load(lang)
		if err != nil {
			t.Fatal(err)
		}
		if len(tab) < 600 {
			t.Errorf("the %s table has %d texts: not the whole catalogue", lang, len(tab))
		}
	}
	for _, bad := range []string{`{"a": "x", "b": "y", "a": "z"}`, `{"a": ""}`, `{"a": 1}`, `["a"]`, `{"a": "x"`} {
		if _, err := decodeTable(strings.NewReader(bad)); err == nil {
			t.Errorf("decodeTable(%s) took it", bad)
		}
	}
	if tab, err := decodeTable(strings.NewReader(`{"a": "x", "b": "%s y"}`)); err != nil || tab["b"] != "%s y" {
		t.Errorf("decodeTable of a good table: %v %v", tab, err)
	}
}

// TestEveryKeyInBothLanguages: each language's table has every key of the other (the
// English of rundoc's sentences counted, which is theirs), so no text falls back to
// its key in one language.
func TestEveryKeyInBothLanguages(t *testing.T) {
	en, ja := Texts(EN), Texts(JA)
	for k := range en {
		if _, ok := ja[k]; !ok {
			t.Errorf("%s has no Japanese (translations/ja.json)", k)
		}
	}
	for k := range ja {
		if _, ok := en[k]; !ok {
			t.Errorf("%s has no English (translations/en.json, or rundoc.Sentences for sent_*)", k)
		}
	}
}

// keptInEnglish are the texts whose Japanese is the English: names and formats, and
// the menu entries the seed site's Japanese pages keep in English.
var keptInEnglish = []string{"calc_field_gpu", "cpu", "filter_gpu", "gpu", "ms", "n_p90", "nav_api", "nav_calculator",
	"nav_orgs", "nav_reports", "nav_runs", "on", "os", "plan", "site_name", "spec_hf", "spec_vram", "ttft", "vram", "wl_format_sharegpt"}

// TestJapaneseIsTranslated: a Japanese text is not a copy of the English one unless
// it is one of keptInEnglish; the site's menu is translated where the seed's is.
func TestJapaneseIsTranslated(t *testing.T) {
	en, ja := Texts(EN), Texts(JA)
	for k, e := range en {
		if ja[k] == e && !slices.Contains(keptInEnglish, k) {
			t.Errorf("%s is not translated: %q", k, e)
		}
	}
	for _, k := range keptInEnglish {
		if ja[k] != en[k] {
			t.Errorf("%s is listed as kept in English, but reads %q in Japanese", k, ja[k])
		}
	}
	if got := T("ja", "nav_home"); got != "はじめに" {
		t.Errorf("T(ja, nav_home) = %q", got)
	}
	if got := T("ja-JP", "nav_calculator"); got != "Decode calculator" {
		t.Errorf("T(ja-JP, nav_calculator) = %q: the seed keeps the menu entry in English", got)
	}
	if got := T("en", "no such key"); got != "no such key" {
		t.Errorf("an unknown key reads %q, not itself", got)
	}
}

// TestEverySentenceInJapanese: every sentence llmbench writes from a few parts
// (rundoc.Sentences: energy and open-loop reasons, price notes, why an SLO cannot be
// read) has its Japanese, which keeps every part and none of the English's words; in
// English it is shown as written. An SLO's wrapped error is said in Japanese too.
func TestEverySentenceInJapanese(t *testing.T) {
	parts := []string{"p1x", "p2y", "p3z", "p4w", "p5v"}
	for _, s := range rundoc.Sentences() {
		n := strings.Count(s.English, "%s")
		text := s.Write(parts[:n]...)
		ja := SentenceIn("ja", text)
		if SentenceIn("en", text) != text {
			t.Errorf("%s in English: %q", s.Key, SentenceIn("en", text))
		}
		for _, p := range parts[:n] {
			if strings.Count(ja, p) != 1 {
				t.Errorf("%s in Japanese %q does not keep the part %q once", s.Key, ja, p)
			}
		}
		for _, w := range strings.Fields(strings.ReplaceAll(s.English, "%s", " ")) {
			w = strings.Trim(w, ":;,.()")
			if len(w) > 3 && strings.ContainsAny(w, "abcdefghijklmnopqrstuvwxyz") && strings.Contains(ja, w) && !strings.Contains("SLO ttft tpot e2e 500ms ttft=500ms name=duration", w) {
				t.Errorf("%s in Japanese %q keeps the English %q", s.Key, ja, w)
			}
		}
	}
	_, err := rundoc.ParseSLO("ttft=soon", 0.9)
	if got, want := SentenceIn("ja", err.Error()), `SLO "ttft=soon"："soon" は時間ではありません（500ms、2s のように書きます）`; got != want {
		t.Errorf("the wrapped SLO error in Japanese: %q, want %q", got, want)
	}
}
