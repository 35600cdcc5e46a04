package site

import (
	"encoding/json"
	"html/template"
	"net/http"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
	"github.com/llmbench/llmbench/internal/stats"
)

// tieDoc is the seed on gpu with its 32K × 1 cell at tokS and the given interval.
func tieDoc(t *testing.T, id, gpu string, tokS, low, high float64) []byte {
	return edited(t, func(r *rundoc.Run) {
		r.ID, r.Title, r.Hardware.GPUs[0].Name = id, id, gpu
		c := r.Cell(32768, 1)
		f := *c.DecodeFigures
		f.TotalTokS = tokS
		c.DecodeFigures = &f
		c.CellIntervals = &rundoc.CellIntervals{TotalTokSCI: &stats.Interval{Low: low, High: high}, CIMethod: rundoc.CIMethodWindow}
	})
}

// TestLeaderboardTies: entries carry their intervals and tie where they overlap the
// one above, across a page boundary too; a run without intervals (the seed) shows
// none and ties with nothing; the page marks ties in both languages; ?group=setup
// makes one entry of several submissions of one setup.
func TestLeaderboardTies(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{RateBurst: 100})
		ts.mustSubmit(t, tieDoc(t, "a-5090", "RTX 5090", 48.2, 47.6, 48.8))
		ts.mustSubmit(t, tieDoc(t, "b-4090", "RTX 4090", 47.5, 47.0, 48.0)) // overlaps a
		ts.mustSubmit(t, tieDoc(t, "c-3080", "RTX 3080", 46.0, 45.5, 46.5)) // clear of b
		ts.mustSubmit(t, seedDoc(t))                                        // 45.3, no interval
		get := func(q string) boardAnswer {
			t.Helper()
			code, body := ts.get(t, "/api/v1/leaderboard?metric=total_tok_s&context=32K&concurrency=1&"+q)
			if code != http.StatusOK {
				t.Fatalf("?%s: %d %s", q, code, body)
			}
			var a boardAnswer
			if err := json.Unmarshal([]byte(body), &a); err != nil {
				t.Fatal(err)
			}
			return a
		}
		a := get("")
		if len(a.Entries) != 4 {
			t.Fatalf("%d entries, want 4", len(a.Entries))
		}
		want := []struct {
			id   string
			ci   bool
			tied bool
		}{{"a-5090", true, false}, {"b-4090", true, true}, {"c-3080", true, false}, {seedID, false, false}}
		for i, w := range want {
			e := a.Entries[i]
			if e.RunID != w.id || (e.CI != nil) != w.ci || e.TiedWithPrevious != w.tied {
				t.Errorf("entry %d: %s ci %v tied %v, want %s ci %v tied %v", i+1, e.RunID, e.CI, e.TiedWithPrevious, w.id, w.ci, w.tied)
			}
		}
		if ci := a.Entries[0].CI; ci == nil || ci.Low != 47.6 || ci.High != 48.8 {
			t.Errorf("a's interval %+v, want [47.6, 48.8]", ci)
		}
		// The second page's first entry ties with the last of the first.
		if p := get("limit=1&offset=1"); len(p.Entries) != 1 || p.Entries[0].RunID != "b-4090" || !p.Entries[0].TiedWithPrevious {
			t.Errorf("page 2 of 1: %+v, want b tied with a above it", p.Entries)
		}
		for _, lang := range []string{"en", "ja"} {
			code, body := ts.get(t, "/leaderboard?metric=total_tok_s&context=32K&concurrency=1&lang="+lang)
			if code != http.StatusOK {
				t.Fatalf("page %s: %d", lang, code)
			}
			if n := strings.Count(body, `class="badge tie"`); n != 1 {
				t.Errorf("%s page: %d tie marks, want 1", lang, n)
			}
			for _, w := range []string{"≈ " + locale.T(lang, "tie"), locale.T(lang, "tie_title"), "± 0.6", locale.T(lang, "tie_note")} {
				if !strings.Contains(body, htmlText(w)) {
					t.Errorf("%s page: no %q", lang, w)
				}
			}
		}
		// Two more submissions of a's setup: one entry, the median run, the spread.
		ts.mustSubmit(t, tieDoc(t, "a2-5090", "RTX 5090", 49.0, 48.4, 49.6))
		ts.mustSubmit(t, tieDoc(t, "a3-5090", "RTX 5090", 48.6, 48.0, 49.2))
		g := get("group=setup")
		if !g.Grouped || len(g.Entries) != 4 {
			t.Fatalf("grouped: %v, %d entries, want 4 setups", g.Grouped, len(g.Entries))
		}
		top := g.Entries[0]
		if top.RunID != "a3-5090" || top.Runs != 3 || top.Spread == nil || top.Spread.Low != 48.2 || top.Spread.High != 49.0 || len(top.RunIDs) != 3 {
			t.Errorf("the 5090 setup: %+v, want the median run a3 of 3 with spread 48.2–49.0", top)
		}
		if top.CI == nil || !top.CI.Contains(48.6) || g.Entries[1].RunID != "b-4090" {
			t.Errorf("the 5090 setup's interval %+v; second %s", top.CI, g.Entries[1].RunID)
		}
		if code, body := ts.get(t, "/leaderboard?metric=total_tok_s&context=32K&concurrency=1&group=setup"); code != http.StatusOK || !strings.Contains(body, htmlText(locale.T("en", "setup_runs", 3, "48.2–49.0"))) {
			t.Errorf("grouped page: %d, no median-of-3 note", code)
		}
	})
}

// TestCompareSaysNoise: a difference between cells whose intervals overlap is marked
// within the noise; one between cells clear of each other is not.
func TestCompareSaysNoise(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{RateBurst: 100})
	ts.mustSubmit(t, tieDoc(t, "a-5090", "RTX 5090", 48.2, 47.6, 48.8))
	ts.mustSubmit(t, tieDoc(t, "b-4090", "RTX 4090", 47.5, 47.0, 48.0))
	ts.mustSubmit(t, tieDoc(t, "c-3080", "RTX 3080", 40.0, 39.5, 40.5))
	for _, lang := range []string{"en", "ja"} {
		_, body := ts.get(t, "/compare?id=a-5090,b-4090,c-3080&lang="+lang)
		if !strings.Contains(body, `class="diff down noise" title="`+htmlText(locale.T(lang, "diff_noise"))+`">-1.5% ≈`) {
			t.Errorf("%s: b's −1.5%% is not marked within the noise: %s", lang, body[strings.Index(body, "class=\"diff"):][:300])
		}
		if !strings.Contains(body, `title="`+htmlText(locale.T(lang, "diff_real"))+`">-17.0%`) {
			t.Errorf("%s: c's −17.0%% is not marked beyond the noise", lang)
		}
	}
}

// htmlText is s as html/template writes it in text.
func htmlText(s string) string { return template.HTMLEscapeString(s) }

// TestIntervalsValidated: an interval that does not hold its figure, or is upside
// down, is refused with the field named; a sound one is stored.
func TestIntervalsValidated(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{RateBurst: 100})
	for _, c := range []struct {
		id        string
		low, high float64
		field     string
	}{{"outside", 50, 51, "total_tok_s_ci"}, {"upside-down", 49, 47, "total_tok_s_ci"}, {"negative", -1, 49, "total_tok_s_ci.low"}} {
		code, body := ts.submit(t, tieDoc(t, c.id, "RTX 5090", 48.2, c.low, c.high))
		if e := apiErr(t, body); code != http.StatusBadRequest || !strings.HasSuffix(e.Field, c.field) {
			t.Errorf("%s: %d %+v, want 400 naming %s", c.id, code, e, c.field)
		}
	}
	ts.mustSubmit(t, tieDoc(t, "sound", "RTX 5090", 48.2, 47.6, 48.8))
}
