package site

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// capacitySite is boardSite (the seed, its figures doubled on an RTX 5090 and halved
// on an RTX 4090) and the seed again on two RTX 3090s at $0.50 an hour.
func capacitySite(t *testing.T, st *store.Store) *testSite {
	t.Helper()
	ts := boardSite(t, st)
	ts.mustSubmit(t, edited(t, func(r *rundoc.Run) {
		r.ID, r.Title, r.Hardware.GPUs[0].Count = "priced-2x3090", "", 2
		r.Energy = &rundoc.RunEnergy{Telemetry: "none", Reason: "not metered", Price: &rundoc.Price{USDPerHour: 0.5, Source: "--price-per-hour"}}
	}))
	return ts
}

// TestLeaderboardRanksByCapacity: the capacity metrics rank on both stores, by the
// numbers internal/capacity gives each document. At 56K and 20 tok/s, first token
// within 1 s: the 5090 run (TTFT halved to 655 ms) serves 1, the seed (1,310 ms) and
// the 4090 run (2,620 ms) none. At 0 context and 40 tok/s: the 5090 run and the seed
// 8 each (KV cache), the 4090 run (24.1 tok/s) none. Per GPU, the two-GPU seed serves
// 4 at 0 context; per $/h at $0.50 an hour, 16.
func TestLeaderboardRanksByCapacity(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := capacitySite(t, st)
		get := func(q string) boardAnswer { t.Helper(); return ts.board(t, q) }
		for _, tt := range []struct {
			query string
			want  [][2]any
		}{
			{"metric=users&context=56K&speed=20", [][2]any{{"fast-5090", 1.0}, {"priced-2x3090", 0.0}, {seedID, 0.0}, {"slow-4090", 0.0}}},
			{"metric=users&context=0&speed=40", [][2]any{{"fast-5090", 8.0}, {"priced-2x3090", 8.0}, {seedID, 8.0}, {"slow-4090", 0.0}}},
			{"metric=users_per_gpu&context=0", [][2]any{{"fast-5090", 8.0}, {seedID, 8.0}, {"slow-4090", 8.0}, {"priced-2x3090", 4.0}}},
			{"metric=users_per_usd_h&context=0&speed=20", [][2]any{{"priced-2x3090", 16.0}}},
			{"metric=users_per_kw&context=0&speed=20", nil},
		} {
			if d := cmp.Diff(tt.want, get(tt.query).ranked()); d != "" {
				t.Errorf("?%s (-want +got):\n%s", tt.query, d)
			}
		}
		// The same figures as the one function: every run's answer at 16K, 20 tok/s.
		seed := readSeedRun(t)
		row, _ := capacity.Of(seed, capacity.DefaultTargets()).Row(16 * rundoc.K)
		if got := get("metric=users&context=16K&gpu=RTX+3090").Entries; len(got) != 2 || got[0].Value != float64(row.Users) {
			t.Errorf("the seed's users at 16K: %+v, want %d", got, row.Users)
		}
		code, body := ts.get(t, "/api/v1/leaderboard?metric=users_per_gpu&context=0&speed=0")
		if e := apiErr(t, body); code != http.StatusBadRequest || e.Field != "speed" {
			t.Errorf("speed=0: %d %+v, want 400 naming speed", code, e)
		}
		var cell struct {
			Speed *float64 `json:"speed_tok_s"`
		}
		if _, body := ts.get(t, "/api/v1/leaderboard?metric=users&context=0&speed=10"); json.Unmarshal([]byte(body), &cell) != nil || cell.Speed == nil || *cell.Speed != 10 {
			t.Errorf("the answer does not name its speed: %s", body)
		}
	})
}

// TestCapacityBoardInBothLanguages: the board page ranks by capacity and names the
// cell, the picker and the run's row in English and Japanese.
func TestCapacityBoardInBothLanguages(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := capacitySite(t, st)
		for _, lang := range []string{locale.EN, locale.JA} {
			_, body := ts.get(t, "/?metric=users_per_usd_h&context=0&speed=20&lang="+lang)
			for _, want := range []string{htmlText(locale.T(lang, "cell_target", locale.T(lang, "metric_users_per_usd_h"), "20", "0")), htmlText(locale.T(lang, "picker_intro_target")),
				htmlText(locale.T(lang, "glance_target", "0")), `<td class="num metric">16.00`, `href="/runs/priced-2x3090"`} {
				if !strings.Contains(body, want) {
					t.Errorf("%s: the board by users per $/h lacks %q", lang, want)
				}
			}
			// The picker's columns are the three table speeds.
			if !strings.Contains(body, "<th>10</th><th>20</th><th>40</th>") {
				t.Errorf("%s: the picker's columns are not the speeds 10, 20, 40", lang)
			}
		}
	})
}

// TestCapacityOnGroupCompareAndAPI: the hardware page lists its best runs' capacity by
// context, the compare page has "Users at ≥ X tok/s" rows at the speed asked, and the
// API answers one run's capacity block at any targets.
func TestCapacityOnGroupCompareAndAPI(t *testing.T) {
	ts := capacitySite(t, storetest.SQLite(t))
	for _, lang := range []string{locale.EN, locale.JA} {
		_, body := ts.get(t, "/hardware/RTX%203090?lang="+lang)
		for _, want := range []string{`id="users-best"`, locale.T(lang, "users_best_title"), "<td>16K</td><td class=\"num\">2</td><td class=\"num\">2.0</td>", `href="/?context=0&amp;gpu=RTX&#43;3090&amp;lang=` + lang + `&amp;metric=users_per_gpu&amp;speed=20"`} {
			if !strings.Contains(body, want) {
				t.Errorf("%s: the RTX 3090 page lacks %q", lang, want)
			}
		}
		_, body = ts.get(t, "/compare?id="+seedID+"&id=slow-4090&speed=40&lang="+lang)
		if want := htmlText(locale.T(lang, "compare_users", "40")) + " · 0</th><td class=\"num\">8"; !strings.Contains(body, want) {
			t.Errorf("%s: the compare page lacks %q", lang, want)
		}
		if !strings.Contains(body, `id="compare-users-form"`) || !strings.Contains(body, `<input type="hidden" name="id" value="slow-4090">`) {
			t.Errorf("%s: the compare page has no form to change the speed", lang)
		}
	}
	code, body := ts.get(t, "/api/v1/runs/"+seedID+"/capacity?tok_s=40&ttft=500ms")
	var sum capacity.Summary
	if err := json.Unmarshal([]byte(body), &sum); code != http.StatusOK || err != nil {
		t.Fatalf("GET capacity: %d %s", code, body)
	}
	if sum.Targets != (capacity.Targets{TokS: 40, TTFTMs: 500}) || len(sum.Rows) != 4 || sum.Rows[1].Users != 1 || sum.Rows[1].Limit != capacity.LimitTTFT ||
		!strings.HasPrefix(sum.Sentences[1], "At 16K context: 1 user at ≥ 40 tok/s each, first token ≤ 500 ms") {
		t.Errorf("the seed's capacity at 40 tok/s, 500 ms: %+v", sum)
	}
	for _, bad := range []struct{ path, field string }{{"/api/v1/runs/" + seedID + "/capacity?tok_s=fast", "tok_s"}, {"/api/v1/runs/nope/capacity", "id"}} {
		code, body := ts.get(t, bad.path)
		if e := apiErr(t, body); code < 400 || e.Field != bad.field {
			t.Errorf("GET %s: %d %+v, want an error naming %s", bad.path, code, e, bad.field)
		}
	}
}

func readSeedRun(t *testing.T) *rundoc.Run {
	t.Helper()
	r, err := rundoc.Decode(seedDoc(t))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// board is GET /api/v1/leaderboard?q, which must answer 200.
func (ts *testSite) board(t *testing.T, q string) boardAnswer {
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
