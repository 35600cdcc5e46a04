package report

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
)

// TestBarChartDrawsTiesAsTies: a bar tied with the one above shares its rank, its
// value is marked ≈ and a note under the chart says what that means (issue 37 item
// 14: the best-GPU chart drew a tie as a ranking); an untied bar after a tie takes its
// place's rank.
func TestBarChartDrawsTiesAsTies(t *testing.T) {
	svg := string(BarChart("en", "b", "best", "tok/s", []Bar{
		{Label: "RTX 5090", Value: 48.2}, {Label: "RTX 4090", Value: 47.5, Tied: true}, {Label: "RTX 3080", Value: 46.0},
	}, 1))
	labels := regexp.MustCompile(`class="lb-tick lb-bar-label"[^>]*>([^<]*)`).FindAllStringSubmatch(svg, -1)
	var got []string
	for _, m := range labels {
		got = append(got, m[1])
	}
	if want := []string{"1  RTX 5090", "1  RTX 4090", "3  RTX 3080"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("bar labels %q, want %q", got, want)
	}
	if !strings.Contains(svg, ">≈ 47.5<") || strings.Contains(svg, ">≈ 46.0<") || !strings.Contains(svg, locale.T("en", "bar_tie_note")) {
		t.Errorf("the tie is not marked, or the untied bar is:\n%s", svg)
	}
	if plain := string(BarChart("en", "b", "best", "tok/s", []Bar{{Label: "a", Value: 2}, {Label: "b", Value: 1}}, 1)); strings.Contains(plain, "≈") {
		t.Errorf("a chart without ties says ≈:\n%s", plain)
	}
}

// TestBarChartLabelsStayInside (issue 37 item 16: "deepseek-ai/DeepSeek-R1-Dis…" was
// cut off at the chart's left edge): every label starts inside the chart, and one too
// long for its line at a phone's text size is shortened, whole on hover.
func TestBarChartLabelsStayInside(t *testing.T) {
	long := "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B-Instruct-with-a-name-longer-than-any-line"
	for _, lang := range []string{"en", "ja"} {
		svg := string(BarChart(lang, "b", "best", "tok/s", []Bar{{Label: long, Value: 12345.6}, {Label: "H200 の長い名前の GPU を表すテキストです。これはとても長いです", Value: 2}}, 1))
		for _, m := range regexp.MustCompile(`<text class="lb-tick lb-bar-label" x="([0-9.]+)" y="[0-9.]+">([^<]*)`).FindAllStringSubmatch(svg, -1) {
			x, _ := strconv.ParseFloat(m[1], 64)
			if x < 0 || x+textWidth(m[2], textFontMax) > chartW-barInset {
				t.Errorf("%s: label %q at x = %g runs into the value or off the chart", lang, m[2], x)
			}
		}
		if !strings.Contains(svg, "…<title>"+long+"</title>") {
			t.Errorf("%s: the long label is not shortened with its whole name on hover:\n%s", lang, svg)
		}
	}
}
