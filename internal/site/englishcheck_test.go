package site_test

import (
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/site"
	"github.com/llmbench/llmbench/internal/site/calc"
)

// needle is an English text that a Japanese page must not show, and the key it is
// the text of.
type needle struct{ key, text string }

type needleSet []needle

// englishNeedles is every English text of the catalogue the pages draw on — the
// site's own table and the report package's labels the site uses, where their
// Japanese differs, the API reference's summaries and the catalog's spec labels —
// as the parts worth looking for: a text without arguments whole, if it is a word or
// more of text; one with arguments ("The %s cannot be used: %s") by each part
// between them that is a few words long.
func englishNeedles(t *testing.T) needleSet {
	t.Helper()
	labels, err := site.EnglishLabels()
	if err != nil {
		t.Fatal(err)
	}
	// The API reference's descriptions, each of which has its Japanese.
	ops, err := site.APISummaries()
	if err != nil {
		t.Fatal(err)
	}
	for op, text := range ops {
		if text[1] == "" || text[1] == text[0] {
			t.Errorf("%s has no Japanese summary (x-summary-ja in openapi.json)", op)
		}
		labels["api:"+op] = text[0]
	}
	perfCalc, err := calc.NewPerf()
	if err != nil {
		t.Fatal(err)
	}
	specs, _ := perfCalc.GPUSpecs("RTX 3090")
	mspecs, _ := perfCalc.ModelSpecs("RedHatAI/Qwen3.8-27B-INT4")
	for _, s := range append(specs, mspecs...) {
		if locale.T("ja", "spec_"+s.Key) != s.Label { // not a name kept in Japanese (Hugging Face)
			labels["spec:"+s.Label] = s.Label
		}
	}
	// What is looked for: a text without arguments whole, if it is a word or more of
	// text; one with arguments by each part between them that is a few words long.
	var needles needleSet
	for key, en := range labels {
		if !strings.Contains(en, "%") {
			if len(en) >= 4 && strings.ContainsAny(en, " abcdefghijklmnopqrstuvwxyz") {
				needles = append(needles, needle{key, en})
			}
			continue
		}
		for _, part := range formatVerb.Split(en, -1) {
			if part = strings.TrimSpace(part); len(part) >= 12 && strings.Count(part, " ") >= 2 {
				needles = append(needles, needle{key, part})
			}
		}
	}
	return needles
}

// in is the needles that text shows: a text of several words anywhere in it, a
// single word only where it is the whole of one of lines (a heading, a cell).
func (ns needleSet) in(text string, lines []string) []needle {
	whole := map[string]bool{}
	for _, l := range lines {
		whole[strings.TrimRight(strings.TrimSpace(l), ":：·")] = true
	}
	var out []needle
	for _, n := range ns {
		if strings.Contains(n.text, " ") && strings.Contains(text, n.text) || whole[n.text] {
			out = append(out, n)
		}
	}
	return out
}
