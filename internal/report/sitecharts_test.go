package report

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
)

// TestLatencyThroughputChart: one line per run in its own colour, points placed on a
// linear x from 0 (the largest achieved rate reaches the last tick), hover titles
// escaped, and the empty chart says so.
func TestLatencyThroughputChart(t *testing.T) {
	svg := string(LatencyThroughputChart("en", "c", "TTFT <vs> rate", "TTFT (ms)", []Line{
		{Name: "1", Points: []XY{{X: 1, Y: 250, Title: "a <b>"}, {X: 2, Y: 740}}},
		{Name: "2", Points: []XY{{X: 4, Y: 100}}},
		{Name: "3"},
	}))
	if n := strings.Count(svg, "<polyline"); n != 1 {
		t.Errorf("%d polylines, want 1 (the second run has one point, the third none)", n)
	}
	if n := strings.Count(svg, "<circle"); n != 3 {
		t.Errorf("%d points, want 3", n)
	}
	for _, want := range []string{ChartColor(0), ChartColor(1), "a &lt;b&gt;", "TTFT &lt;vs&gt; rate", "achieved requests/s", "TTFT (ms)"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart lacks %q", want)
		}
	}
	if strings.Contains(svg, "<b>") {
		t.Errorf("a title is not escaped")
	}
	// x runs linearly from 0: 4 req/s sits at the right end of the plot (ticks 0, 1, 2, 3, 4).
	right := padLeft + (chartW - padLeft - padRight)
	if !strings.Contains(svg, `cx="`+strconv.Itoa(right)+`.0"`) {
		t.Errorf("the 4 req/s point is not at the plot's right edge (x = %d):\n%s", right, svg)
	}
	if empty := string(LatencyThroughputChart("ja", "e", "t", "y", nil)); !strings.Contains(empty, locale.T("ja", "no_data")) {
		t.Errorf("an empty chart does not say so: %s", empty)
	}
}

// TestTradeoffChartAxisCoversItsPoints (issue 24 item 7): the x axis ends at a round
// value at or past the largest total, so that every point is inside the plot; it
// ended at 300 (400 on compare) with points at 329–557 drawn past it, over the legend.
func TestTradeoffChartAxisCoversItsPoints(t *testing.T) {
	circle := regexp.MustCompile(`<circle cx="([0-9.]+)"`)
	right := float64(padLeft + (chartW - padLeft - padRight))
	for _, tc := range []struct {
		maxX     float64
		lastTick string
	}{{329.4, "400"}, {557, "600"}, {300, "300"}, {1702.3, "2,000"}, {0.37, "0.4"}} {
		svg := string(TradeoffChart("en", "t", "trade-off", []Line{{Name: "1", Points: []XY{{X: tc.maxX / 8, Y: 40}, {X: tc.maxX, Y: 10}}}}))
		for _, m := range circle.FindAllStringSubmatch(svg, -1) {
			if x, _ := strconv.ParseFloat(m[1], 64); x > right+0.05 {
				t.Errorf("largest total %g: a point at x = %s, past the plot's right edge %g", tc.maxX, m[1], right)
			}
		}
		if !strings.Contains(svg, `text-anchor="middle">`+tc.lastTick+`</text>`) {
			t.Errorf("largest total %g: the axis does not end at %s", tc.maxX, tc.lastTick)
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
