package report

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestHistoryChartDrawsRunsWithTheirIntervals: the best line through each version,
// every run a ring, a whisker exactly for the runs with an interval, the y axis up to
// the highest interval's end, hover texts escaped.
func TestHistoryChartDrawsRunsWithTheirIntervals(t *testing.T) {
	svg := string(HistoryChart("en", "h", "vLLM <FP8>", "version", "tok/s", []string{"0.10.1", "0.10.2", "0.11.0"},
		"best", []XY{{X: 0, Y: 90}, {X: 1, Y: 100}, {X: 2, Y: 120}},
		"runs", []Mark{{X: 0, Y: 90, Title: "r1 <a>"}, {X: 1, Y: 100, Low: 95, High: 160, HasInterval: true}, {X: 1, Y: 98}, {X: 2, Y: 120}}))
	if n := strings.Count(svg, "<polyline"); n != 1 {
		t.Errorf("%d lines, want 1 (the best per version)", n)
	}
	if n := strings.Count(svg, `class="lb-mark"`); n != 4 {
		t.Errorf("%d runs drawn, want 4", n)
	}
	if n := strings.Count(svg, `class="lb-whisker"`); n != 1 {
		t.Errorf("%d whiskers, want 1 (one run has an interval)", n)
	}
	if !strings.Contains(svg, "r1 &lt;a&gt;") || strings.Contains(svg, "<a>") || !strings.Contains(svg, "vLLM &lt;FP8&gt;") {
		t.Errorf("texts are not escaped:\n%s", svg)
	}
	// The axis reaches 160, the interval's high end, though no figure does.
	top := 0.0
	for _, m := range regexp.MustCompile(`class="lb-tick" x="[0-9.]+" y="[0-9.]+" text-anchor="end" dy="0.32em">([0-9,]+)<`).FindAllStringSubmatch(svg, -1) {
		v, _ := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
		top = max(top, v)
	}
	if top < 160 {
		t.Errorf("the y axis ends at %v, below the interval's 160", top)
	}
	// Two runs of one version stand apart.
	xs := regexp.MustCompile(`class="lb-mark" cx="([0-9.]+)"`).FindAllStringSubmatch(svg, -1)
	if len(xs) == 4 && xs[1][1] == xs[2][1] {
		t.Errorf("the two runs of 0.10.2 are drawn at one x (%s)", xs[1][1])
	}
}

// TestHistoryChartVersionLabelsDoNotOverlap: however many versions, the labels
// printed stand at least their width apart at a phone's tick size, the first and
// last among them.
func TestHistoryChartVersionLabelsDoNotOverlap(t *testing.T) {
	for _, n := range []int{1, 2, 5, 12, 40, 200} {
		var labels []string
		for i := range n {
			labels = append(labels, fmt.Sprintf("0.11.1rc%d", i))
		}
		shown := thinLabels(labels)
		if !shown[0] || !shown[n-1] {
			t.Errorf("%d versions: the first or last label is not shown", n)
		}
		plotW := float64(chartW-padRight-padLeft) - 40
		gap := plotW
		if n > 1 {
			gap = plotW / float64(n-1)
		}
		prev := -1
		for i, ok := range shown {
			if !ok {
				continue
			}
			if prev >= 0 && float64(i-prev)*gap < textWidth(labels[i], textFontMax) {
				t.Errorf("%d versions: labels %d and %d overlap (%.0f apart, %.0f wide)", n, prev, i, float64(i-prev)*gap, textWidth(labels[i], textFontMax))
			}
			prev = i
		}
	}
}
