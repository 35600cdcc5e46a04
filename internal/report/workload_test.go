package report

import (
	"encoding/csv"
	"html"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// TestWorkloadSection: what the section must say of a sessions run — each turn's
// history and cache against the ideal, the achieved share, and the sessions'
// throughput — and that a run without a workload has no section.
func TestWorkloadSection(t *testing.T) {
	got := render(t, readFixture(t, "workload-sessions-run.json"), Options{Format: "text"})
	for _, want := range []string{
		"sessions of 5 turns (64-token user messages, think 0s)",
		"cache hits 68% of 8,945 prompt tokens, ideal 68% (100% of the ideal) from usage's cached_tokens",
		"4 of 8 sessions answered every turn, 0.67 sessions/s",
		"   5         8             445.0   368.0         368.0        83%          83%",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the sessions report lacks %q", want)
		}
	}
	rate := render(t, readFixture(t, "workload-rate-sessions-run.json"), Options{Format: "text"})
	if !strings.Contains(rate, "a rate is sessions a second, each of 5 turns") || strings.Contains(rate, "1,024 → 24 tokens") {
		t.Errorf("the rate plan line of a sessions run does not say its rates are sessions:\n%s", rate)
	}
	for _, f := range []string{"text", "md", "html"} {
		if plain := render(t, readFixture(t, "rate-run.json"), Options{Format: f}); strings.Contains(plain, locale.T("en", "workload_sub")) {
			t.Errorf("%s: a run of random words has a workload section", f)
		}
	}
}

// TestSessionRatesLabelled: a rate at which sessions arrive (--turns with --rate) is
// labelled sessions a second wherever a rate is shown — the table, the workload
// section, the charts' axis, both languages — and the csv says so in rate_of; a run of
// requests keeps its req/s labels and an empty rate_of.
func TestSessionRatesLabelled(t *testing.T) {
	for _, c := range []struct {
		run, rate string
		sessions  bool
	}{
		{"workload-rate-sessions-run.json", "4", true},
		{"rate-run.json", "4", false},
	} {
		run := readFixture(t, c.run)
		if run.SessionRates() != c.sessions {
			t.Fatalf("%s: SessionRates %v", c.run, run.SessionRates())
		}
		for _, lang := range []string{"en", "ja"} {
			want, not := locale.T(lang, "n_rps_sessions", c.rate), locale.T(lang, "n_rps", c.rate)
			axis, notAxis := locale.T(lang, "axis_rate_sessions"), locale.T(lang, "axis_rate")
			if !c.sessions {
				want, not, axis, notAxis = not, want, notAxis, axis
			}
			for _, f := range []string{"text", "md", "html"} {
				got := render(t, run, Options{Format: f, Lang: lang})
				if !strings.Contains(got, want) || strings.Contains(got, not) {
					t.Errorf("%s %s %s: want %q and no %q", c.run, lang, f, want, not)
				}
				if f == "html" && (!strings.Contains(got, axis) || strings.Contains(got, notAxis)) {
					t.Errorf("%s %s html: want the axis %q and no %q", c.run, lang, axis, notAxis)
				}
			}
		}
		recs, err := csv.NewReader(strings.NewReader(render(t, run, Options{Format: "csv"}))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		col := map[string]int{}
		for i, h := range recs[0] {
			col[h] = i
		}
		wantOf := ""
		if c.sessions {
			wantOf = "sessions"
		}
		for _, rec := range recs[1:] {
			if rec[col["status"]] == "capacity" {
				continue
			}
			if rec[col["rate_of"]] != wantOf {
				t.Errorf("%s csv: rate %s has rate_of %q, want %q", c.run, rec[col["rate_rps"]], rec[col["rate_of"]], wantOf)
			}
		}
	}
}

// TestTurnChartsShown: a sessions run's html report charts each turn's TTFT and TPOT
// p50, a line per cell, each point's hover naming the cell, the turn, the history it
// carried and the figure, in both languages (a rate of sessions named as one); a run
// without turns (random words, a replayed trace) has no such chart.
func TestTurnChartsShown(t *testing.T) {
	for _, c := range []struct {
		run  string
		cell func(lang string) string
	}{
		{"workload-sessions-run.json", func(string) string { return "0 × 4" }},
		{"workload-rate-sessions-run.json", func(lang string) string { return locale.T(lang, "n_rps_sessions", "4") }},
	} {
		run := readFixture(t, c.run)
		turns := run.Decode
		var t3 rundoc.TurnFigures
		if len(turns) > 0 && turns[0].Workload != nil {
			t3 = turns[0].Workload.Turns[2]
		} else {
			t3 = run.Rate[0].Workload.Turns[2]
		}
		for _, lang := range locale.Languages() {
			page := render(t, run, Options{Format: "html", Lang: lang})
			for _, want := range []string{`id="lb-chart-turn-ttft-t"`, `id="lb-chart-turn-tpot-t"`,
				html.EscapeString(locale.T(lang, "chart_turn_ttft")), html.EscapeString(locale.T(lang, "axis_turn")),
				html.EscapeString(locale.T(lang, "turn_point", c.cell(lang), 3, FormatNumber(lang, *t3.PromptTokensMean, 0), FormatMs(lang, *t3.TTFTMs.P50, 1))),
				html.EscapeString(locale.T(lang, "turn_point", c.cell(lang), 3, FormatNumber(lang, *t3.PromptTokensMean, 0), FormatMs(lang, *t3.TPOTMs.P50, 2)))} {
				if !strings.Contains(page, want) {
					t.Errorf("%s %s html: no %q", c.run, lang, want)
				}
			}
		}
	}
	for _, f := range []string{"rate-run.json", "workload-trace-run.json"} {
		if page := render(t, readFixture(t, f), Options{Format: "html"}); strings.Contains(page, "lb-chart-turn") {
			t.Errorf("%s: a run without turns has a chart by turn", f)
		}
	}
}
