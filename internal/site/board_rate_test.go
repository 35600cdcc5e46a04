package site

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// rateVariant is the report package's open-loop fixture (llmbench run --quick --rate
// 1,4,inf --max-concurrency 8 --requests 20 --slo ttft=1s,tpot=60ms against the
// emulator, or its --find-max-rate twin) as a measured run under another id, edited.
func rateVariant(t testing.TB, file, id, title string, edit func(r *rundoc.Run)) []byte {
	t.Helper()
	b, err := os.ReadFile("../report/testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	r, err := rundoc.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	// As if measured on a real server (the fixture ran against llmbench's emulator).
	r.ID, r.Title, r.Status = id, title, rundoc.RunMeasured
	r.Engine = rundoc.Engine{Name: "vllm", Version: "0.11.0", Quantization: "INT4 W4A16 g128"}
	r.Model.ID = "RedHatAI/Qwen3.8-27B-INT4"
	r.Hardware = rundoc.Hardware{GPUs: []rundoc.GPU{{Name: "RTX 4090", VRAMBytes: 24 << 30, Count: 1}}}
	if edit != nil {
		edit(r)
	}
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// scaleRateGoodput multiplies every cell's goodput.
func scaleRateGoodput(k float64) func(r *rundoc.Run) {
	return func(r *rundoc.Run) {
		for i := range r.Rate {
			if f := r.Rate[i].RateFigures; f != nil && f.GoodputRPS != nil {
				g := *f
				v := *f.GoodputRPS * k
				g.GoodputRPS = &v
				r.Rate[i].RateFigures = &g
			}
		}
	}
}

// rateSite holds the seed (a matrix run) and open-loop runs: the fixture, a copy
// with 1.2 × its goodput, one judged against a stricter TTFT target, one with longer
// outputs, and a --find-max-rate search.
func rateSite(t *testing.T, st *store.Store) *testSite {
	t.Helper()
	ts := newTestSite(t, st, Options{RateBurst: 100})
	ts.mustSubmit(t, seedDoc(t))
	ts.mustSubmit(t, rateVariant(t, "rate-run.json", "rate-base", "Base rate run", nil))
	ts.mustSubmit(t, rateVariant(t, "rate-run.json", "rate-better", "Better rate run", scaleRateGoodput(1.2)))
	ts.mustSubmit(t, rateVariant(t, "rate-run.json", "rate-strict", "Strict SLO run", func(r *rundoc.Run) {
		v := 500.0
		r.Config.Rate.SLO.TTFTMs = &v
	}))
	ts.mustSubmit(t, rateVariant(t, "rate-run.json", "rate-long", "Long output run", func(r *rundoc.Run) { r.Config.Rate.OutputLen = 256 }))
	ts.mustSubmit(t, rateVariant(t, "rate-search-run.json", "rate-search", "Search run", nil))
	return ts
}

// fixtureSLO is the URL of the fixture's conditions, less the cell.
const fixtureSLO = "output=64&max_concurrency=8&requests=20&slo=ttft:1000ms,tpot:60ms"

func TestLeaderboardAPIRanksRateCellsAtAStatedSLO(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := rateSite(t, st)
		get := func(q string) boardAnswer {
			t.Helper()
			code, body := ts.get(t, "/api/v1/leaderboard?"+q)
			if code != http.StatusOK {
				t.Fatalf("GET ?%s: %d %s", q, code, body)
			}
			var a boardAnswer
			if err := json.Unmarshal([]byte(body), &a); err != nil {
				t.Fatal(err)
			}
			return a
		}
		// The fixture's cells: goodput 0.942 at 1/s, 1.538 at 4/s, 0.994 at inf (20
		// requests at once); achieved 0.942/s at 1/s; TTFT p50 740.41 ms at 4/s.
		better := func(v float64) float64 { return v * 1.2 }
		tests := []struct {
			query string
			want  [][2]any
		}{
			{"metric=goodput_rps&context=512&rate=4&" + fixtureSLO, [][2]any{{"rate-better", better(1.538)}, {"rate-base", 1.538}}},
			// The SLO as llmbench run --slo writes it, in other units: the same targets.
			{"metric=goodput_rps&context=512&rate=4&output=64&max_concurrency=8&requests=20&slo=" + url.QueryEscape("ttft=1s,tpot=60ms"), [][2]any{{"rate-better", better(1.538)}, {"rate-base", 1.538}}},
			{"metric=goodput_rps&context=512&rate=4&output=64&max_concurrency=8&requests=20&slo=ttft:500ms,tpot:60ms", [][2]any{{"rate-strict", 1.538}}},
			{"metric=goodput_rps&context=512&rate=4&output=64&max_concurrency=8&requests=20&slo=ttft:1000ms", nil},
			{"metric=goodput_rps&context=512&rate=4&output=64&requests=20&slo=ttft:1000ms,tpot:60ms", nil},       // no client cap: not these runs
			{"metric=goodput_rps&context=512&rate=4&output=64&max_concurrency=8&slo=ttft:1000ms,tpot:60ms", nil}, // 30 s cells: not these runs' 20 requests
			{"metric=goodput_rps&context=512&rate=inf&" + fixtureSLO, [][2]any{{"rate-better", better(0.994)}, {"rate-base", 0.994}}},
			{"metric=goodput_rps&context=512&rate=inf&output=64&max_concurrency=8&requests=21&slo=ttft:1000ms,tpot:60ms", nil},
			// Latencies and the rate achieved do not depend on an SLO: every run of the workload.
			{"metric=achieved_rps&context=512&rate=1&output=64&max_concurrency=8&requests=20", [][2]any{{"rate-base", 0.942}, {"rate-better", 0.942}, {"rate-strict", 0.942}}},
			{"metric=rate_ttft_p50_ms&context=512&rate=4&output=256&max_concurrency=8&requests=20", [][2]any{{"rate-long", 740.41}}},
			{"metric=rate_ttft_p50_ms&context=512&rate=4&output=64&max_concurrency=8&requests=20&gpu=nothing", nil},
			// The search's highest passing rate (1.31/s; 1.38/s failed), under its SLO and target, in 5 s cells.
			{"metric=max_rate_rps&context=512&output=64&duration=5&slo=ttft:1000ms,tpot:60ms", [][2]any{{"rate-search", 1.31}}},
			{"metric=max_rate_rps&context=512&output=64&duration=5&slo=ttft:1000ms,tpot:60ms&target=0.9", nil},
			{"metric=max_rate_rps&context=512&output=64&slo=ttft:1000ms,tpot:60ms", nil},
			// A matrix metric never ranks a rate run.
			{"metric=total_tok_s&context=0&concurrency=1", [][2]any{{seedID, 48.2}}},
		}
		for _, tt := range tests {
			if d := cmp.Diff(tt.want, get(tt.query).ranked()); d != "" {
				t.Errorf("?%s (-want +got):\n%s", tt.query, d)
			}
		}
		a := get("metric=goodput_rps&context=512&rate=4&" + fixtureSLO)
		c := a.Conditions
		if a.Rate == nil || *a.Rate != 4 || a.Context == nil || *a.Context != 512 || c == nil || c.InputLen != 512 || c.OutputLen != 64 || c.Arrival != "poisson" ||
			c.LenDist != "fixed" || c.MaxConcurrency != 8 || c.SLO == nil || *c.SLO.TTFTMs != 1000 || *c.SLO.TPOTMs != 60 || c.SLO.Target != 0 {
			t.Errorf("the answer's cell: rate %v, context %v, conditions %+v", a.Rate, a.Context, c)
		}
		if a.Entries[0].Mode != metric.ModeRate {
			t.Errorf("a rate run's entry has mode %q", a.Entries[0].Mode)
		}
		if inf := get("metric=goodput_rps&context=512&rate=inf&" + fixtureSLO); inf.Rate == nil || *inf.Rate != wire.RateInf || inf.Conditions.Requests != 20 {
			t.Errorf("rate inf answers rate %v, requests %d", inf.Rate, inf.Conditions.Requests)
		}
		if m := get("metric=max_rate_rps&context=512&output=64&duration=5&slo=ttft:1000ms,tpot:60ms"); m.Conditions.SLO.Target != 0.95 || m.Conditions.DurationS != 5 {
			t.Errorf("a search's ranking states target %v, want the default 0.95", m.Conditions.SLO.Target)
		}
		under := map[string]string{}
		for _, m := range a.Metrics {
			under[m.Name] = m.Conditions
		}
		if under["goodput_rps"] != "slo" || under["achieved_rps"] != "workload" || under["max_rate_rps"] != "slo_target" || under["total_tok_s"] != "" {
			t.Errorf("the metrics' conditions: %v", under)
		}
		for _, bad := range []struct{ q, field, says string }{
			{"metric=goodput_rps&context=512&rate=4&output=64", "slo", "slo=ttft:1000ms,tpot:60ms"},
			{"metric=slo_met_ratio", "slo", "judged against an SLO"},
			{"metric=max_rate_rps&context=512", "slo", "judged against an SLO"},
			{"metric=goodput_rps&rate=4&slo=ttft:soon", "slo", "latency targets"},
			{"metric=goodput_rps&rate=4&slo=speed:1s", "slo", "latency targets"},
			{"metric=goodput_rps&rate=0&slo=ttft:1s", "rate", "request rate"},
			{"metric=goodput_rps&rate=inf&slo=ttft:1s", "requests", "requests=N"},
			{"metric=achieved_rps&rate=4&output=0", "output", "whole number"},
			{"metric=achieved_rps&rate=4&arrival=bursty", "arrival", "poisson"},
			{"metric=achieved_rps&rate=4&prefix_share=1", "prefix_share", "[0, 1)"},
			{"metric=achieved_rps&rate=4&duration=0", "duration", "--duration"},
			{"metric=max_rate_rps&slo=ttft:1s&target=2", "target", "(0, 1]"},
			{"metric=achieved_rps&mode=open", "mode", "matrix"},
		} {
			code, body := ts.get(t, "/api/v1/leaderboard?"+bad.q)
			var e struct{ Field, Reason string }
			json.Unmarshal([]byte(body), &e)
			if code != http.StatusBadRequest || e.Field != bad.field || !strings.Contains(e.Reason, bad.says) {
				t.Errorf("?%s = %d %s; want 400 on %s saying %q", bad.q, code, body, bad.field, bad.says)
			}
		}
	})
}

func TestLeaderboardPageRanksRateCells(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := rateSite(t, st)
		code, page := ts.get(t, "/?lang=en&metric=goodput_rps&context=512&rate=4&"+fixtureSLO)
		if code != http.StatusOK {
			t.Fatalf("the goodput board = %d", code)
		}
		page = html.UnescapeString(page)
		for _, want := range []string{"Goodput (requests/s meeting the SLO) at 512 input tokens, 4 req/s",
			"Measured under: 64 output tokens · Poisson arrivals · at most 8 in flight", "SLO: TTFT ≤ 1,000 ms, TPOT ≤ 60 ms",
			`id="conds"`, "Request rates", `<optgroup label="Request-rate cells (open loop)">`, `id="f-slo" value="ttft:1000ms,tpot:60ms"`} {
			if !strings.Contains(page, want) {
				t.Errorf("the goodput board lacks %q", want)
			}
		}
		rows := boardRowIDs(page)
		if d := cmp.Diff([]string{"rate-better", "rate-base"}, rows); d != "" {
			t.Errorf("the goodput board's rows (-want +got):\n%s", d)
		}
		// The conditions list links to each set runs were measured under, the stricter SLO among them.
		if !strings.Contains(page, "requests=20&slo=ttft%3A500ms%2Ctpot%3A60ms") {
			t.Errorf("the conditions list has no link to the stricter SLO's ranking")
		}
		// The picker's cells keep the conditions: its 1/s cell ranks the same runs.
		if !strings.Contains(page, "rate=1&requests=20&slo=ttft") {
			t.Errorf("the picker's cells do not carry the SLO")
		}
		// Asked without an SLO: 400, saying why, with the SLOs to pick from.
		code, page = ts.get(t, "/?lang=en&metric=goodput_rps")
		page = html.UnescapeString(page)
		if code != http.StatusBadRequest || !strings.Contains(page, "is judged against an SLO") || !strings.Contains(page, "SLO: TTFT ≤ 1,000 ms, TPOT ≤ 60 ms") || len(boardRowIDs(page)) != 0 {
			t.Errorf("goodput without an SLO = %d, explains and offers the SLOs: %v", code, strings.Contains(page, "is judged against an SLO"))
		}
		code, page = ts.get(t, "/?lang=ja&metric=goodput_rps&context=512&rate=4&"+fixtureSLO)
		if code != http.StatusOK || !strings.Contains(page, "グッドプット") || !strings.Contains(page, "測定条件") || !strings.Contains(page, "リクエストレート") {
			t.Errorf("the Japanese goodput board = %d", code)
		}
		// The run list marks rate runs and filters by mode.
		code, page = ts.get(t, "/runs?mode=rate&lang=en")
		if code != http.StatusOK || strings.Contains(page, seedID) || !strings.Contains(page, "rate-search") || !strings.Contains(page, `badge mode-rate`) {
			t.Errorf("/runs?mode=rate = %d: lists the seed %v, the search %v", code, strings.Contains(page, seedID), strings.Contains(page, "rate-search"))
		}
		code, page = ts.get(t, "/runs?mode=matrix")
		if code != http.StatusOK || !strings.Contains(page, seedID) || strings.Contains(page, "rate-base") || strings.Contains(page, `badge mode-rate`) {
			t.Errorf("/runs?mode=matrix = %d", code)
		}
		code, body := ts.get(t, "/api/v1/runs?mode=rate")
		var list wire.RunList
		json.Unmarshal([]byte(body), &list)
		if code != http.StatusOK || len(list.Runs) != 5 || list.Runs[0].Mode != metric.ModeRate {
			t.Errorf("GET /api/v1/runs?mode=rate = %d, %d runs", code, len(list.Runs))
		}
	})
}

// boardRowIDs are the run ids of the leaderboard's rows, in order.
func boardRowIDs(page string) []string {
	i := strings.Index(page, `id="board"`)
	if i < 0 {
		return nil
	}
	var ids []string
	for _, part := range strings.Split(page[i:], `<tr data-id="`)[1:] {
		ids = append(ids, part[:strings.Index(part, `"`)])
	}
	return ids
}

func TestCompareRateRuns(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := rateSite(t, st)
		code, page := ts.get(t, "/compare?lang=en&id=rate-base&id=rate-better&id=rate-search")
		if code != http.StatusOK {
			t.Fatalf("compare = %d", code)
		}
		page = html.UnescapeString(page)
		table := between(page, `id="rate-compare"`, "</table>")
		// Rates of the three: 1, 1.25, 1.31, 1.38, 1.5, 2, 4 and inf, one row each.
		if n := strings.Count(table, "<tr><th>"); n != 8 {
			t.Errorf("the rate table has %d rows, want 8:\n%s", n, table)
		}
		// At 4/s the fixture's cell (achieved 2.20/s, TTFT p50 740 ms, goodput 1.54) is
		// marked saturated; the search has no 4/s cell.
		row := between(table, "<tr><th>4</th>", "</tr>")
		for _, want := range []string{"2.20", "740", "1.54", "1.85", "saturated", `colspan="5">—`} {
			if !strings.Contains(row, want) {
				t.Errorf("the 4/s row lacks %q: %s", want, row)
			}
		}
		// The search was not capped at 8 in flight: a warning says run 3's workload differs.
		if !strings.Contains(page, "Run 3 was measured under another workload than run 1") || strings.Contains(page, "Run 2 was") {
			t.Errorf("the warnings about unlike conditions are wrong")
		}
		if n := strings.Count(between(page, `id="cmp-rate-ttft-t"`, "</svg>"), "<polyline"); n != 3 {
			t.Errorf("the latency–throughput chart draws %d lines, want the three runs", n)
		}
		// A rate run beside a matrix run: both in the overall comparison, no rate table, a message why.
		code, page = ts.get(t, "/compare?lang=en&id="+seedID+"&id=rate-base")
		if code != http.StatusOK || strings.Contains(page, `id="rate-compare"`) || !strings.Contains(page, "is a matrix run") ||
			!strings.Contains(page, "/runs/"+seedID) || !strings.Contains(page, "/runs/rate-base") {
			t.Errorf("compare a matrix and a rate run = %d, rate table %v, says why %v", code, strings.Contains(page, `id="rate-compare"`), strings.Contains(page, "is a matrix run"))
		}
		// Two rate runs and a matrix run: the rate table holds the two, and says it left the matrix run out.
		_, page = ts.get(t, "/compare?lang=ja&id="+seedID+"&id=rate-base&id=rate-strict")
		if !strings.Contains(page, `id="rate-compare"`) || !strings.Contains(page, "この表に含めていない実行") || !strings.Contains(page, "異なる SLO") {
			t.Errorf("compare 2 rate runs and a matrix run (ja): table %v, says what it left out %v, SLO warning %v",
				strings.Contains(page, `id="rate-compare"`), strings.Contains(page, "この表に含めていない実行"), strings.Contains(page, "異なる SLO"))
		}
	})
}

// between is the text of s from the first from to the next to after it.
func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	s = s[i:]
	if j := strings.Index(s, to); j >= 0 {
		return s[:j]
	}
	return s
}

// TestGroupPagesCountOpenLoopRuns: a GPU whose runs are all open-loop says so instead
// of showing empty matrix figures, and a model with both kinds counts its open-loop
// runs beside its best matrix figures; both link to the open-loop runs.
func TestGroupPagesCountOpenLoopRuns(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := rateSite(t, st)
		for _, lang := range []string{"en", "ja"} {
			_, gpu := ts.get(t, "/hardware/RTX%204090?lang="+lang)
			if !strings.Contains(gpu, `id="rate-only"`) || !strings.Contains(gpu, html.EscapeString(locale.T(lang, "group_rate_only"))) {
				t.Errorf("%s: the open-loop-only GPU's page does not say its runs are open-loop", lang)
			}
			if strings.Contains(gpu, locale.T(lang, "best_decode")) {
				t.Errorf("%s: the open-loop-only GPU's page shows a best decode card (it has no matrix run)", lang)
			}
			if !strings.Contains(gpu, `href="/runs?gpu=RTX%204090&amp;mode=rate">5</a>`) {
				t.Errorf("%s: the GPU's page does not link its 5 open-loop runs:\n%s", lang, between(gpu, `id="rate-runs"`, "</div>"))
			}
		}
		_, model := ts.get(t, "/models/RedHatAI%2FQwen3.8-27B-INT4")
		if strings.Contains(model, `id="rate-only"`) || !strings.Contains(model, locale.T(locale.EN, "best_decode")) || !strings.Contains(model, `mode=rate">5</a>`) {
			t.Errorf("the model with matrix and open-loop runs: want its best decode and 5 open-loop runs counted, got:\n%s", between(model, `class="specs"`, "</dl>"))
		}
		if _, list := ts.get(t, "/runs?gpu=RTX%204090&mode=rate"); !strings.Contains(list, "rate-search") {
			t.Error("the open-loop runs' link lists none")
		}
	})
}

// TestRateReasonsAndSLOErrorsInJapanese: on Japanese pages, why an open-loop cell is
// invalid (the client sent requests late: the compare page's hover) and why an SLO
// cannot be read (the leaderboard's error) are said in Japanese, parts kept; the API
// and English pages keep the English; on both stores.
func TestRateReasonsAndSLOErrorsInJapanese(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := rateSite(t, st)
		for lang, want := range map[string][]string{
			locale.JA: {"クライアントは 14 件中 2 件のリクエストを 50ms を超えて遅れて送信しました", `SLO &#34;ttft=soon&#34;：&#34;soon&#34; は時間ではありません`},
			locale.EN: {"the client sent 2 of 14 requests over 50ms late", `SLO &#34;ttft=soon&#34;: &#34;soon&#34; is not a duration`},
		} {
			_, compare := ts.get(t, "/compare?lang="+lang+"&id=rate-base&id=rate-search")
			_, board := ts.get(t, "/?lang="+lang+"&kind=all&metric=goodput_rps&context=512&rate=4&output=64&slo=ttft:soon")
			if !strings.Contains(compare, want[0]) {
				t.Errorf("compare (%s) does not say %q", lang, want[0])
			}
			if !strings.Contains(board, `id="board-error"`) || !strings.Contains(board, want[1]) {
				t.Errorf("leaderboard (%s) does not say %q", lang, want[1])
			}
			if lang == locale.JA && (strings.Contains(compare, "the client sent") || strings.Contains(board, "is not a duration")) {
				t.Errorf("English left on the Japanese pages")
			}
		}
		if _, body := ts.get(t, "/api/v1/leaderboard?metric=goodput_rps&rate=4&slo=ttft:soon"); !strings.Contains(body, `is not a duration`) {
			t.Errorf("the API's reason is not the English: %s", body)
		}
	})
}
