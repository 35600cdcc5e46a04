package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/overlay/overlaytest"
)

// TestOverlaySectionMarksWhatTheOverlayMarks: text, md and html, in en and ja, write
// the overlay section with a mark on exactly the figures overlaytest.Pair names, and
// the rule and the best run's address beside it.
func TestOverlaySectionMarksWhatTheOverlayMarks(t *testing.T) {
	mine, best, want := overlaytest.Pair()
	const url = "https://llmbench.example.org/runs/best-seed"
	for _, lang := range locale.Languages() {
		better, worse := locale.T(lang, "ov_better"), locale.T(lang, "ov_worse")
		for _, format := range []string{"text", "md", "html"} {
			var b bytes.Buffer
			if err := Write(&b, mine, Options{Format: format, Lang: lang, Against: &Baseline{Run: best, URL: url}}); err != nil {
				t.Fatalf("%s %s: %v", format, lang, err)
			}
			out := b.String()
			for _, s := range []string{locale.T(lang, "ov_title"), url, locale.T(lang, "ov_summary", 4, 2, 2, 0)[:8]} {
				if !strings.Contains(out, s) {
					t.Errorf("%s %s: no %q", format, lang, s)
				}
			}
			if format == "html" {
				if n := strings.Count(out, `data-mark="better"`) + strings.Count(out, `data-mark="worse"`); n != len(want) {
					t.Errorf("html %s: %d rows marked, want %d", lang, n, len(want))
				}
				continue
			}
			if n := strings.Count(out, better) + strings.Count(out, worse); n != len(want) {
				t.Errorf("%s %s: %d marks, want %d\n%s", format, lang, n, len(want), out)
			}
		}
	}
}

// TestOverlayTextRows: the text rows name the cell, both figures with their
// intervals and the difference, as a reader checks them.
func TestOverlayTextRows(t *testing.T) {
	mine, best, _ := overlaytest.Pair()
	ov := NewOverlayView("en", mine, Baseline{Run: best, URL: "u"})
	rows := map[string]OverlayRow{}
	for _, r := range ov.Rows {
		rows[strings.Join(r.Cells[:4], "|")] = r
	}
	for key, want := range map[string]string{
		"Sustained decode|0|4|Total tok/s":   "150.0 (148.0–152.0)|172.1 (170.3–173.9)|-12.8%|▼ worse",
		"Sustained decode|0|2|Total tok/s":   "92.0 (90.3–93.7)|89.4 (88.5–90.3)|+2.9%|within the noise",
		"Sustained decode|0|16|Total tok/s":  "400.0 (396.0–404.0)|Over capacity|—|not comparable",
		"Sustained decode|32K|1|Total tok/s": "45.3 (44.8–45.8)|—|—|this run only",
		"Sustained decode|56K|1|TTFT":        "—|",
		"Prefill|8K|—|Prompt tok/s":          "",
	} {
		r, ok := rows[key]
		if !ok {
			t.Errorf("no row %s; rows: %v", key, ov.Rows)
			continue
		}
		if got := strings.Join(r.Cells[4:], "|"); !strings.HasPrefix(got, want) {
			t.Errorf("%s: %s, want %s", key, got, want)
		}
	}
	if !regexp.MustCompile(`^4 figures beyond the noise \(2 better, 2 worse\), \d+ within it\.$`).MatchString(ov.Summary) {
		t.Errorf("summary %q", ov.Summary)
	}
}
