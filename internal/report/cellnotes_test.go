package report

import (
	"html"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

func ptr[T any](v T) *T { return &v }

// withWorkloadFigures is the seed run whose 0 × 1 cell measured a reasoning model
// drafting speculatively, slowed in its window (rate_drift, a series with the step)
// and was measured twice; and the rate fixture whose first cell has a series, TTFO,
// draft counters and a stream rate that drifted.
func withWorkloadFigures(t *testing.T) (*rundoc.Run, *rundoc.Run) {
	t.Helper()
	run := readSeed(t)
	c := run.Cell(0, 1)
	spec := &rundoc.SpecDecode{Source: "vllm", Drafts: 1000, DraftTokens: 3000, AcceptedTokens: 1620, AcceptanceRate: ptr(0.54), MeanAcceptedLength: ptr(2.62)}
	c.CellDetail = &rundoc.CellDetail{Flags: []string{rundoc.FlagSpecRandomWords, rundoc.FlagRateDrift},
		TTFOMs: ptr(412.0), ReasoningTokens: ptr(200), AnswerTokens: ptr(280), Server: &rundoc.ServerMetrics{SpecDecode: spec},
		RateDrift: &rundoc.Drift{AtS: 4, BeforeTokS: 190, AfterTokS: 126.7, T: ptr(40.0)},
		Series: &rundoc.Series{SliceS: 1, TokS: []float64{190, 189, 191, 190, 127, 126, 127, 126}, Producing: []float64{4, 4, 4, 4, 4, 4, 4, 4},
			TTFTMs: []*float64{ptr(30.0), nil, nil, nil, nil, nil, nil, nil}}}
	c.CellIntervals = &rundoc.CellIntervals{TotalTokSCI: &stats.Interval{Low: c.TotalTokS - 1, High: c.TotalTokS + 2}, CIMethod: rundoc.CIMethodTwoRepeats,
		PublishedRepeat: 2, PublishedWhy: rundoc.PublishedSlowerMid,
		Repeats: []rundoc.CellRepeat{{Status: rundoc.StatusValid, DecodeFigures: &rundoc.DecodeFigures{TotalTokS: c.TotalTokS + 1}}, {Status: rundoc.StatusValid, DecodeFigures: c.DecodeFigures}}}
	rate := readFixture(t, "rate-run.json")
	f := rate.Rate[0].RateFigures
	f.TTFOMs, f.ReasoningTokens, f.AnswerTokens = &rundoc.LatencyStats{P50: ptr(321.0)}, ptr(20), ptr(28)
	f.Server = &rundoc.ServerMetrics{SpecDecode: spec}
	f.Series = &rundoc.Series{SliceS: 0.5, TokS: []float64{100, 120, 110}, Producing: []float64{1, 2, 1.5}, TTFTMs: []*float64{ptr(25.0), ptr(27.0), nil}}
	f.Flags = append(f.Flags, rundoc.FlagRateDrift)
	f.RateDrift = &rundoc.Drift{AtS: 5, BeforeTokS: 48.5, AfterTokS: 32.3, T: ptr(21.0)}
	return run, rate
}

// TestWorkloadFiguresShown: in both languages, a matrix cell's notes say where its
// rate drifted and by how much, its time to first answer token with its tokens by
// kind, its draft acceptance, that its prompts were random words, and which repeat
// it publishes and why (text and HTML); the HTML report charts its series, one
// chart per context, and a rate cell's, with each slice's figures on hover; a
// document without series (the seed) has no such chart. A rate cell's drift is said
// as the rate a streaming request got (text and HTML).
func TestWorkloadFiguresShown(t *testing.T) {
	run, rate := withWorkloadFigures(t)
	for _, lang := range locale.Languages() {
		notes := []string{
			locale.T(lang, "n_rate_drift", FormatNumber(lang, 4, 1), FormatNumber(lang, 190, 1), FormatNumber(lang, 126.7, 1)),
			locale.T(lang, "n_ttfo", FormatMs(lang, 412, 0)) + " (" + locale.T(lang, "n_reasoning_split", "200", "280") + ")",
			locale.T(lang, "n_spec", locale.T(lang, "n_spec_rate", "54%")+", "+locale.T(lang, "n_spec_length", FormatNumber(lang, 2.62, 2))),
			locale.T(lang, "n_spec_random"),
			locale.T(lang, "n_published", 2, locale.T(lang, "pub_slower")),
			locale.T(lang, "ci_two_repeats"),
		}
		for _, format := range []string{"text", "html"} {
			got := render(t, run, Options{Format: format, Lang: lang})
			for _, want := range notes {
				if !strings.Contains(got, want) && !strings.Contains(got, html.EscapeString(want)) {
					t.Errorf("%s %s: no %q", lang, format, want)
				}
			}
		}
		page := render(t, run, Options{Format: "html", Lang: lang})
		point := locale.T(lang, "series_point", "0 × 1", "4", "5", FormatNumber(lang, 127, 1), FormatNumber(lang, 4, 1), dash)
		if !strings.Contains(page, `id="lb-chart-series-0-t"`) {
			t.Errorf("%s html: no series chart", lang)
		}
		for _, want := range []string{locale.T(lang, "chart_series", "0"), point} {
			if !strings.Contains(page, html.EscapeString(want)) {
				t.Errorf("%s html: no %q", lang, want)
			}
		}
		if seed := render(t, readSeed(t), Options{Format: "html", Lang: lang}); strings.Contains(seed, "lb-chart-series") {
			t.Errorf("%s: the seed, without series, has a series chart", lang)
		}
		drift := locale.T(lang, "n_rate_drift_stream", FormatNumber(lang, 5, 1), FormatNumber(lang, 48.5, 1), FormatNumber(lang, 32.3, 1))
		for _, format := range []string{"text", "html"} {
			if got := render(t, rate, Options{Format: format, Lang: lang}); !strings.Contains(got, drift) && !strings.Contains(got, html.EscapeString(drift)) {
				t.Errorf("%s rate %s: no %q", lang, format, drift)
			}
		}
		rhtml := render(t, rate, Options{Format: "html", Lang: lang})
		rpoint := locale.T(lang, "series_point", RateLabel(lang, false, rate.Rate[0].RateRPS), "0.5", "1", FormatNumber(lang, 120, 1), FormatNumber(lang, 2, 1), FormatMs(lang, 27, 0))
		if !strings.Contains(rhtml, `id="lb-chart-rate-series-t"`) {
			t.Errorf("%s rate html: no series chart", lang)
		}
		for _, want := range []string{rpoint,
			locale.T(lang, "n_ttfo_p50", FormatMs(lang, 321, 0)) + " (" + locale.T(lang, "n_reasoning_split", "20", "28") + ")",
			locale.T(lang, "n_spec", locale.T(lang, "n_spec_rate", "54%")+", "+locale.T(lang, "n_spec_length", FormatNumber(lang, 2.62, 2)))} {
			if !strings.Contains(rhtml, html.EscapeString(want)) {
				t.Errorf("%s rate html: no %q", lang, want)
			}
		}
	}
}
