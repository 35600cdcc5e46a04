package site

import (
	"html"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
	"github.com/llmbench/llmbench/internal/site/ui"
)

// cardText is the visible text of the run page's card id (label, value and note).
func cardText(page, key string) string {
	c := between(page, `<div id="card-`+key+`">`, "</div>")
	return strings.Join(strings.Fields(html.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(c, " "))), " ")
}

// TestRateRunCardsAndCharts (issue 24 item 5): an open-loop run's page, compare and the
// leaderboard show its own figures — the highest rate meeting the SLO, the best
// goodput, p90 TTFT and TPOT at the highest valid rate — and a goodput chart, where
// they showed a matrix run's four cards as "—", "SPEED TEST MATRIX", a compare
// summary of "—" and no goodput chart.
func TestRateRunCardsAndCharts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := rateSite(t, st)
		// A copy whose 4 req/s cell had enough requests for its p90s.
		ts.mustSubmit(t, rateVariant(t, "rate-run.json", "rate-p90", "Rate run with p90s", func(r *rundoc.Run) {
			for i := range r.Rate {
				if f := r.Rate[i].RateFigures; f != nil && r.Rate[i].RateRPS == 4 {
					g := *f
					ttft, tpot := 912.0, 47.26
					g.TTFTMs.P90, g.TPOTMs.P90 = &ttft, &tpot
					r.Rate[i].RateFigures = &g
				}
			}
		}))

		_, page := ts.get(t, "/runs/rate-base?lang=en")
		for key, want := range map[string]string{
			"max_rate": "Highest rate meeting the SLO 1 req/s of the 3 rates measured, met without saturating",
			"goodput":  "Best goodput (req/s meeting the SLO) 1.54 at 4 req/s",
			"ttft_p90": "TTFT p90 at the highest valid rate — at 4 req/s · a p90 needs 64 requests, the cell had 20",
			"tpot_p90": "TPOT p90 at the highest valid rate — at 4 req/s · a p90 needs 64 requests, the cell had 20",
		} {
			if got := cardText(page, key); got != want {
				t.Errorf("the rate run's %s card: %q, want %q", key, got, want)
			}
		}
		for _, absent := range []string{`id="card-decode"`, `id="card-peak"`, "Speed test matrix"} {
			if strings.Contains(page, absent) {
				t.Errorf("the rate run's page shows %s", absent)
			}
		}
		if !strings.Contains(page, "Request-rate test (open loop)") {
			t.Errorf("the rate run's page is not headed as a request-rate test")
		}
		chart := between(page, `id="run-rate-goodput-t"`, "</svg>")
		if n := strings.Count(chart, "<polyline"); n != 2 || !strings.Contains(chart, "goodput") || !strings.Contains(chart, ">inf<") {
			t.Errorf("the run's goodput chart draws %d lines (want achieved and goodput, up to inf):\n%.600s", n, chart)
		}
		_, page = ts.get(t, "/runs/rate-p90?lang=en")
		if got := cardText(page, "ttft_p90"); got != "TTFT p90 at the highest valid rate 912 ms at 4 req/s" {
			t.Errorf("the TTFT p90 card with a p90: %q", got)
		}
		if got := cardText(page, "tpot_p90"); got != "TPOT p90 at the highest valid rate 47.3 ms at 4 req/s" {
			t.Errorf("the TPOT p90 card with a p90: %q", got)
		}
		_, page = ts.get(t, "/runs/rate-search?lang=en")
		if got := cardText(page, "max_rate"); got != "Highest rate meeting the SLO 1.31 req/s found by --find-max-rate in 6 steps; 1.38 req/s did not" {
			t.Errorf("the search's max rate card: %q", got)
		}
		_, page = ts.get(t, "/runs/rate-base?lang=ja")
		if got := cardText(page, "goodput"); got != "最大グッドプット（SLO を満たした req/秒） 1.54 4 req/秒 のとき" {
			t.Errorf("the Japanese goodput card: %q", got)
		}
		// A matrix run keeps its four cards.
		_, page = ts.get(t, "/runs/"+seedID+"?lang=en")
		if !strings.Contains(page, `id="card-decode"`) || strings.Contains(page, `id="card-max_rate"`) {
			t.Errorf("the matrix run's cards changed")
		}

		// Compare: the summary's rows are each run's own figures.
		_, page = ts.get(t, "/compare?lang=en&id=rate-base&id=rate-search")
		summary := html.UnescapeString(between(page, `class="compare-summary"`, "</table>"))
		for _, want := range []string{"<th>Highest rate meeting the SLO</th>", `data-card="max_rate">1 req/s`, `data-card="max_rate">1.31 req/s`, `data-card="goodput">1.54`, `data-card="goodput">1.44`} {
			if !strings.Contains(summary, want) {
				t.Errorf("the compare summary of two rate runs lacks %q", want)
			}
		}
		if strings.Contains(summary, "Single-stream decode") {
			t.Errorf("the compare summary of two rate runs has the matrix rows (all —)")
		}
		if n := strings.Count(between(page, `id="cmp-rate-goodput-t"`, "</svg>"), "<polyline"); n != 2 {
			t.Errorf("the compare goodput chart draws %d lines, want 2", n)
		}
		_, page = ts.get(t, "/compare?lang=en&id="+seedID+"&id=rate-base")
		summary = between(page, `class="compare-summary"`, "</table>")
		if !strings.Contains(summary, `data-card="decode">48.2`) || !strings.Contains(summary, `data-card="max_rate">1 req/s`) {
			t.Errorf("a matrix and a rate run: the summary lacks one's figures:\n%s", summary)
		}

		// The leaderboard ranked by goodput charts it by rate for the runs it ranks.
		_, page = ts.get(t, "/?lang=en&metric=goodput_rps&context=512&rate=4&"+fixtureSLO)
		chart = between(page, `id="lb-rate-chart-t"`, "</svg>")
		if n := strings.Count(chart, "<polyline"); n != 3 {
			t.Errorf("the goodput board's chart draws %d lines, want the 3 runs ranked", n)
		}
		if !strings.Contains(page, `id="board-rate-chart"`) || !strings.Contains(html.UnescapeString(page), "Goodput (requests/s meeting the SLO) by request rate, at 512 input tokens") {
			t.Errorf("the goodput board has no chart by rate")
		}
	})
}

// energyDoc is the report package's metered run (2× H200, nvidia-smi, a RunPod price).
func energyDoc(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("../report/testdata/energy-run.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEnergyRunCards (issue 24 item 6): a metered run's page shows its lowest J/token
// and $/Mtok as cards, with the cell each is at, in both languages and on compare,
// where they sat only at the far end of a table that scrolls sideways.
func TestEnergyRunCards(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{Report: ui.HTMLReport{}})
		ts.mustSubmit(t, seedDoc(t))
		ts.mustSubmit(t, energyDoc(t))
		_, page := ts.get(t, "/runs/fixture-energy?lang=en")
		// The fixture's cells: 18.249, 3.034, 19.252, 3.333 J/token; 80.52, 10.69,
		// 1.82, 84.01, 11.46 $/Mtok (0 × 64 has a price but no energy figure).
		if got := cardText(page, "j_per_token"); got != "Lowest J/token 3.034 at 0 × 8" {
			t.Errorf("the J/token card: %q", got)
		}
		if got := cardText(page, "usd_per_mtok"); got != "Lowest $/Mtok 1.82 at 0 × 64" {
			t.Errorf("the $/Mtok card: %q", got)
		}
		_, page = ts.get(t, "/runs/fixture-energy?lang=ja")
		if got := cardText(page, "j_per_token"); got != "最小 J/トークン 3.034 0 × 8" {
			t.Errorf("the Japanese J/token card: %q", got)
		}
		// The seed has no energy figures: no such cards.
		_, page = ts.get(t, "/runs/"+seedID)
		if strings.Contains(page, `id="card-j_per_token"`) {
			t.Errorf("a run without energy figures has a J/token card")
		}
		_, page = ts.get(t, "/compare?lang=en&id="+seedID+"&id=fixture-energy")
		summary := between(page, `class="compare-summary"`, "</table>")
		if !strings.Contains(summary, `data-card="j_per_token">—`) || !strings.Contains(summary, `data-card="j_per_token">3.034`) || !strings.Contains(summary, `data-card="usd_per_mtok">1.82`) {
			t.Errorf("compare lacks the energy rows:\n%s", summary)
		}
	})
}
