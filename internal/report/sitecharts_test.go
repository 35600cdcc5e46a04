package report

import (
	"strconv"
	"strings"
	"testing"
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
	if empty := string(LatencyThroughputChart("ja", "e", "t", "y", nil)); !strings.Contains(empty, T("ja", "no_data")) {
		t.Errorf("an empty chart does not say so: %s", empty)
	}
}
