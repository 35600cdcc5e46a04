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

// TestCoincidentLinesAreBothVisible (issue 37 item 14: in a 4-run compare two tied
// runs drew one line): a line on the same values as an earlier one is drawn dashed
// with rings for points and its legend names the line it lies on; lines apart by more
// than a pixel or two are drawn as usual.
func TestCoincidentLinesAreBothVisible(t *testing.T) {
	a := []XY{{X: 1, Y: 48.2}, {X: 2, Y: 89.4}, {X: 4, Y: 172.1}}
	b := []XY{{X: 1, Y: 48.3}, {X: 2, Y: 89.4}, {X: 4, Y: 172.0}}
	c := []XY{{X: 1, Y: 96.4}, {X: 2, Y: 178.8}, {X: 4, Y: 344.2}}
	lines := []Line{{Name: "1", Points: a}, {Name: "2", Points: c}, {Name: "3", Points: b}, {Name: "4", Points: a}}
	if got := Coincident(lines, true); strings.Join(intsToStrings(got), ",") != "-1,-1,0,0" {
		t.Errorf("Coincident = %v, want [-1 -1 0 0]", got)
	}
	svg := string(CategoryChart("en", "c", "decode", "x", "y", []float64{1, 2, 4}, func(x float64) string { return strconv.Itoa(int(x)) }, lines))
	if n := strings.Count(svg, "stroke-dasharray"); n != 4 { // two lines and their two legend swatches
		t.Errorf("%d dashed strokes, want 4 (lines 3 and 4 and their legend rows):\n%s", n, svg)
	}
	if !strings.Contains(svg, ">3 ≈ 1<") || !strings.Contains(svg, ">4 ≈ 1<") || strings.Contains(svg, ">2 ≈") {
		t.Errorf("the legend does not say which lines lie on which:\n%s", svg)
	}
	if n := len(regexp.MustCompile(`<circle[^>]*fill="none"`).FindAllString(svg, -1)); n != 6 {
		t.Errorf("%d ringed points, want 6 (three each for lines 3 and 4)", n)
	}
	// Apart by 3% of the axis: two lines, drawn as usual.
	if got := Coincident([]Line{{Points: a}, {Points: []XY{{X: 1, Y: 53}, {X: 2, Y: 94}, {X: 4, Y: 177}}}}, true); got[1] != -1 {
		t.Errorf("lines 5 apart on a 172 axis coincide: %v", got)
	}
}

func intsToStrings(xs []int) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Itoa(x)
	}
	return out
}
