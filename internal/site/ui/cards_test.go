package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/rundoc/rundoctest"
)

// TestRateCardsSaySessions: a run whose sessions arrive at its rates
// (config.rate.rate_of) says sessions/s on its run page's cards and chart axis, in
// both languages, and a run of requests keeps req/s.
func TestRateCardsSaySessions(t *testing.T) {
	for _, c := range []struct {
		doc      string
		sessions bool
	}{{"workload-rate-sessions-run.json", true}, {"rate-run.json", false}} {
		run, err := rundoc.ReadFile(rundoctest.Path(c.doc))
		if err != nil {
			t.Fatal(err)
		}
		if run.SessionRates() != c.sessions {
			t.Fatalf("%s: SessionRates %v, want %v", c.doc, run.SessionRates(), c.sessions)
		}
		for _, lang := range []string{"en", "ja"} {
			var cards []string
			for _, card := range rateCards(run, lang) {
				cards = append(cards, card.Value, card.Sub)
			}
			ch := rateRunChart(run, lang)
			if ch == nil {
				t.Fatalf("%s: no rate chart", c.doc)
			}
			titles := []string{locale.T(lang, report.SessionsKey("chart_rate_achieved", c.sessions)), locale.T(lang, report.SessionsKey("chart_rate_goodput", c.sessions))}
			if !slices.Contains(titles, ch.Title) {
				t.Errorf("%s (%s): chart titled %q, want one of %q", c.doc, lang, ch.Title, titles)
			}
			// The rates offered are sessions/s on the cards and the chart's axis; what
			// was achieved (the chart's points) is still requests.
			for key, text := range map[string]string{"n_rps": strings.Join(cards, "\n"), "axis_rate": string(ch.SVG)} {
				want, not := locale.T(lang, key+"_sessions", ""), locale.T(lang, key, "")
				if !c.sessions {
					want, not = not, want
				}
				if want, not = unit(want), unit(not); !strings.Contains(text, want) || (key == "n_rps" && strings.Contains(text, not)) {
					t.Errorf("%s (%s): want %q, not %q:\n%s", c.doc, lang, want, not, text)
				}
			}
		}
	}
}

// unit is a label without the number it was given: "sessions/s" of "%s sessions/s".
func unit(label string) string {
	label, _, _ = strings.Cut(label, "%!(EXTRA")
	return strings.TrimSpace(label)
}
