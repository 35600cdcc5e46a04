package site

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// TestTradeoffChartsHoldTheirPoints (issue 24 item 7): the trade-off charts of the
// hardware, model and compare pages end their x axis past their largest total, so no
// point is drawn beyond it, over the legend (the seed's 329.4 tok/s sat past an axis
// ending at 300, the energy run's 1,702.3 past one ending at 1,500).
func TestTradeoffChartsHoldTheirPoints(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{})
		ts.mustSubmit(t, seedDoc(t))
		ts.mustSubmit(t, energyDoc(t))
		// The charts are 640 wide with 64 on the left and 120 on the right for the legend.
		const right = 640 - 120
		cx := regexp.MustCompile(`<circle cx="([0-9.]+)"`)
		for _, c := range []struct{ path, id string }{
			{"/hardware/RTX%203090", "tradeoff-gpu-t"},
			{"/models/RedHatAI%2FQwen3.8-27B-INT4", "tradeoff-model-t"},
			{"/hardware/H200", "tradeoff-gpu-t"},
			{"/compare?id=" + seedID + "&id=fixture-energy", "cmp-tradeoff-t"},
		} {
			_, page := ts.get(t, c.path)
			svg := between(page, `id="`+c.id+`"`, "</svg>")
			points := cx.FindAllStringSubmatch(svg, -1)
			if len(points) == 0 {
				t.Errorf("%s: no trade-off chart %s", c.path, c.id)
			}
			for _, m := range points {
				if x, _ := strconv.ParseFloat(m[1], 64); x > right+0.05 {
					t.Errorf("%s: a point at x = %s, past the axis's end at %d", c.path, m[1], right)
				}
			}
		}
	})
}
