package report

import (
	"html"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// withIntervals is the seed run with intervals on its 0 × 1 cell (three repeats,
// unstable) and its first prefill row, as a run with --repeat 3 writes them.
func withIntervals(t *testing.T) *rundoc.Run {
	t.Helper()
	run := readSeed(t)
	c := run.Cell(0, 1)
	if c == nil || c.DecodeFigures == nil {
		t.Fatal("the seed has no measured 0 × 1 cell")
	}
	c.CellDetail = &rundoc.CellDetail{Flags: []string{"unstable"}}
	c.CellIntervals = &rundoc.CellIntervals{
		TotalTokSCI: &stats.Interval{Low: c.TotalTokS - 0.6, High: c.TotalTokS + 0.4},
		TBTMsCI:     &stats.Interval{Low: c.TBTMs - 0.2, High: c.TBTMs + 0.2},
		CIMethod:    rundoc.CIMethodRepeats, Unstable: true,
		Repeats: []rundoc.CellRepeat{{Status: rundoc.StatusValid, DecodeFigures: c.DecodeFigures},
			{Status: rundoc.StatusValid, DecodeFigures: &rundoc.DecodeFigures{TotalTokS: 40}}, {Status: rundoc.StatusFailed}},
	}
	p := &run.Prefill[0]
	if p.PrefillFigures == nil {
		t.Fatal("the seed's first prefill row has no figures")
	}
	p.PrefillIntervals = &rundoc.PrefillIntervals{PromptTokSCI: &stats.Interval{Low: p.PromptTokS - 30, High: p.PromptTokS + 20}, CIMethod: rundoc.CIMethodRepeats,
		Repeats: []rundoc.PrefillRepeat{{Status: rundoc.StatusValid, PrefillFigures: &rundoc.PrefillFigures{PromptTokS: p.PromptTokS + 15}},
			{Status: rundoc.StatusValid, PrefillFigures: p.PrefillFigures}, {Status: rundoc.StatusValid, PrefillFigures: &rundoc.PrefillFigures{PromptTokS: p.PromptTokS - 25}}},
		PublishedRepeat: 2, PublishedWhy: rundoc.PublishedMedian}
	return run
}

// TestIntervalsShown: every format shows a cell's and a prefill row's intervals,
// in both languages (± in the All measurements table, the interval and the repeats
// in the cell's notes, low/high columns in CSV, the fields in JSON) and, in HTML, the
// prefill row's repeats and the one it publishes; the seed, which has none, shows no
// ± anywhere.
func TestIntervalsShown(t *testing.T) {
	run := withIntervals(t)
	c := run.Cell(0, 1)
	for _, lang := range locale.Languages() {
		for _, format := range []string{"text", "md", "html"} {
			got := render(t, run, Options{Format: format, Lang: lang})
			wants := []string{
				FormatNumber(lang, c.TotalTokS, 1) + " ± 0.6",
				FormatNumber(lang, run.Prefill[0].PromptTokS, 1) + " ± 30.0",
				locale.T(lang, "n_unstable_hint"),
			}
			if format == "html" {
				// The matrix cell's hover; text and md show notes only for cells with a
				// warning, and the All measurements table has the ±.
				wants = append(wants, ciSpan(lang, *c.TotalTokSCI, 1)+" tok/s")
			}
			for _, want := range wants {
				if !strings.Contains(got, want) {
					t.Errorf("%s %s: no %q", lang, format, want)
				}
			}
			if format == "html" && !strings.Contains(got, locale.T(lang, "n_repeats", 3, "")[:8]) {
				t.Errorf("%s html: the repeats are not in the cell's notes", lang)
			}
			// The prefill row's repeats and the one it publishes, in its row's hover.
			pr := run.Prefill[0].PromptTokS
			rates := strings.Join([]string{FormatNumber(lang, pr+15, 1), FormatNumber(lang, pr, 1), FormatNumber(lang, pr-25, 1)}, ", ")
			for _, want := range []string{locale.T(lang, "n_repeats_prompt", 3, rates), locale.T(lang, "n_published", 2, locale.T(lang, "pub_median"))} {
				if format == "html" && !strings.Contains(got, html.EscapeString(want)) {
					t.Errorf("%s html: the prefill row's details lack %q", lang, want)
				}
			}
			if seed := render(t, readSeed(t), Options{Format: format, Lang: lang}); strings.Contains(seed, "±") {
				t.Errorf("%s %s: the seed, without intervals, shows ±", lang, format)
			}
		}
	}
	rows := readCSV(t, render(t, run, Options{Format: "csv"}))
	r := rows["decode/0/1"]
	if r["total_tok_s_low"] != num(c.TotalTokSCI.Low) || r["total_tok_s_high"] != num(c.TotalTokSCI.High) ||
		r["tbt_ms_low"] == "" || r["ttft_ms_low"] != "" || r["repeats"] != "3" || r["unstable"] != "true" || r["ci_method"] != rundoc.CIMethodRepeats {
		t.Errorf("csv row of the cell with intervals: %v", r)
	}
	if p := rows["prefill/8192/1"]; p["prompt_tok_s_low"] == "" || p["prompt_tok_s_high"] == "" {
		t.Errorf("csv row of the prefill row with an interval: %v", p)
	}
	if o := rows["decode/0/2"]; o["total_tok_s_low"] != "" || o["ci_method"] != "" {
		t.Errorf("csv row of a cell without intervals: %v", o)
	}
	js := render(t, run, Options{Format: "json"})
	for _, want := range []string{`"total_tok_s_ci"`, `"ci_method": "repeats_t"`, `"unstable": true`, `"prompt_tok_s_ci"`} {
		if !strings.Contains(js, want) {
			t.Errorf("json: no %s", want)
		}
	}
}
