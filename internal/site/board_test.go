package site

import (
	"encoding/json"
	"html"
	"net/http"
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

// boardSite holds the seed and two variants: the seed's figures doubled on an RTX
// 5090 under the base model's own name, and halved under an Ollama name on an RTX
// 4090 (TTFT scaled inversely, so that faster is also quicker to answer).
func boardSite(t *testing.T, st *store.Store) *testSite {
	t.Helper()
	ts := newTestSite(t, st, Options{RateBurst: 100})
	ts.mustSubmit(t, seedDoc(t))
	scaled := func(id, model, gpu string, k float64) []byte {
		return edited(t, func(r *rundoc.Run) {
			r.ID, r.Title, r.Model.ID, r.Hardware.GPUs[0].Name = id, "", model, gpu
			for i := range r.Decode {
				if f := r.Decode[i].DecodeFigures; f != nil {
					g := *f
					g.TotalTokS, g.PerRequestTokS, g.TTFTMs = f.TotalTokS*k, f.PerRequestTokS*k, f.TTFTMs/k
					r.Decode[i].DecodeFigures = &g
				}
			}
			for i := range r.Prefill {
				if f := r.Prefill[i].PrefillFigures; f != nil {
					g := *f
					g.PromptTokS *= k
					r.Prefill[i].PrefillFigures = &g
				}
			}
		})
	}
	ts.mustSubmit(t, scaled("fast-5090", "Qwen/Qwen3.8-27B", "RTX 5090", 2))
	ts.mustSubmit(t, scaled("slow-4090", "qwen3.8:27b-q4_K_M", "RTX 4090", 0.5))
	ts.mustSubmit(t, edited(t, func(r *rundoc.Run) {
		r.ID, r.Title, r.Status, r.Engine.Name = "emulated", "Emulated", rundoc.RunEmulated, "llmbench-sim"
		for i := range r.Decode {
			if f := r.Decode[i].DecodeFigures; f != nil {
				g := *f
				g.TotalTokS *= 100
				r.Decode[i].DecodeFigures = &g
			}
		}
	}))
	return ts
}

// boardAnswer is GET /api/v1/leaderboard's answer, with its ranking in brief.
type boardAnswer struct{ wire.Leaderboard }

// ranked is each entry's run and value, in rank order.
func (a boardAnswer) ranked() [][2]any {
	var out [][2]any
	for _, e := range a.Entries {
		out = append(out, [2]any{e.RunID, e.Value})
	}
	return out
}

func TestLeaderboardAPIRanksAnyCell(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := boardSite(t, st)
		get := func(q string) boardAnswer { t.Helper(); return ts.board(t, q) }
		// The seed's measured cells: 45.3 tok/s at 32K × 1, 746 ms TTFT, 1,871 prompt tok/s at 32K.
		tests := []struct {
			query string
			want  [][2]any
		}{
			{"metric=total_tok_s&context=32768&concurrency=1", [][2]any{{"fast-5090", 90.6}, {seedID, 45.3}, {"slow-4090", 22.65}}},
			{"metric=total_tok_s&context=32K&concurrency=1&gpu=RTX+4090", [][2]any{{"slow-4090", 22.65}}},
			{"metric=ttft_ms&context=32K&concurrency=1", [][2]any{{"fast-5090", 373.0}, {seedID, 746.0}, {"slow-4090", 1492.0}}},
			{"metric=prompt_tok_s&context=32K&concurrency=64", [][2]any{{"fast-5090", 3742.0}, {seedID, 1871.0}, {"slow-4090", 935.5}}},
			{"metric=per_request_tok_s&context=16K&concurrency=2&family=qwen3.8-27b&limit=2", [][2]any{{"fast-5090", 85.8}, {seedID, 42.9}}},
			{"metric=total_tok_s&context=16K&concurrency=4", nil},
			{"sort=peak", [][2]any{{"fast-5090", 658.8}, {seedID, 329.4}, {"slow-4090", 164.7}}},
			{"metric=total_tok_s&context=0&concurrency=1&size=20-40&offset=2", [][2]any{{"slow-4090", 24.1}}},
			// The emulated run (100 × the seed) ranks only when emulated runs are asked for.
			{"metric=total_tok_s&context=32K&concurrency=1&kind=emulated", [][2]any{{"emulated", 4530.0}}},
			{"metric=total_tok_s&context=32K&concurrency=1&kind=all&limit=1", [][2]any{{"emulated", 4530.0}}},
		}
		for _, tt := range tests {
			if d := cmp.Diff(tt.want, get(tt.query).ranked()); d != "" {
				t.Errorf("?%s (-want +got):\n%s", tt.query, d)
			}
		}
		a := get("metric=ttft_ms&context=32768&concurrency=1")
		if a.Metric != "ttft_ms" || a.Context == nil || *a.Context != 32768 || a.Concurrency == nil || *a.Concurrency != 1 || !a.LowerIsBetter {
			t.Errorf("the answer's cell = %s %v %v lower %v", a.Metric, a.Context, a.Concurrency, a.LowerIsBetter)
		}
		if e := a.Entries[1]; e.Rank != 2 || e.Model != "RedHatAI/Qwen3.8-27B-INT4" || e.Family != "qwen3.8-27b" || e.GPU != "RTX 3090" || e.Engine != "vllm" || e.Quantization != "INT4 W4A16 g128" {
			t.Errorf("the seed's entry = %+v", e)
		}
		if len(a.Metrics) != len(metric.CellMetrics) {
			t.Errorf("the answer lists %d metrics, the registry has %d", len(a.Metrics), len(metric.CellMetrics))
		}
		for _, bad := range []struct{ q, field string }{{"metric=speed", "metric"}, {"metric=total_tok_s&context=lots", "context"},
			{"metric=total_tok_s&concurrency=0", "concurrency"}, {"size=huge", "size"}, {"sort=best", "sort"}} {
			code, body := ts.get(t, "/api/v1/leaderboard?"+bad.q)
			if e := apiErr(t, body); code != http.StatusBadRequest || e.Field != bad.field {
				t.Errorf("?%s: %d %+v, want 400 naming %s", bad.q, code, e, bad.field)
			}
		}
	})
}

func TestLeaderboardPageRanksByTheQuery(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := boardSite(t, st)
		_, body := ts.get(t, "/?metric=total_tok_s&context=32768&concurrency=1&lang=en")
		for _, want := range []string{`id="cell-picker"`, locale.T("en", "cell_decode", "Total tok/s", "32K", "1"), "90.6", "45.3"} {
			if !strings.Contains(body, want) {
				t.Errorf("the board at 32K × 1 lacks %q", want)
			}
		}
		if i, j := strings.Index(body, "fast-5090"), strings.Index(body, "/runs/"+seedID); i < 0 || j < 0 || i > j {
			t.Errorf("the faster run is not listed first")
		}
		// The picker links to every cell some run has, the chosen one marked.
		if !strings.Contains(body, `class="sel"><a href="/?concurrency=1&amp;context=32768&amp;lang=en&amp;metric=total_tok_s" aria-current="true"`) {
			t.Errorf("the picker does not mark the chosen cell")
		}
		// Each run's row at the chosen context: the seed's 16K row is 46.6, 86.2.
		_, body = ts.get(t, "/?metric=total_tok_s&context=16K&concurrency=2&lang=en")
		if !strings.Contains(body, `<td class="num glance">46.6</td><td class="num glance">86.2</td>`) {
			t.Errorf("the seed's 16K row is not shown at a glance")
		}
		// A model family filter draws the best GPU at the cell.
		_, body = ts.get(t, "/?metric=total_tok_s&context=0&concurrency=1&family=qwen3.8-27b")
		if !strings.Contains(body, `class="lb-chart lb-bars"`) || strings.Count(body, "<rect ") != 3 {
			t.Errorf("the family's board has no chart of its 3 GPUs")
		}
		// The first rankings' links still work.
		_, body = ts.get(t, "/?sort=prefill_32k&lang=en")
		if !strings.Contains(body, locale.T("en", "cell_prefill", "Prefill tok/s", "32K")) || !strings.Contains(body, "3,742") {
			t.Errorf("sort=prefill_32k does not rank by prefill at 32K")
		}
		if code, body := ts.get(t, "/?metric=nonsense"); code != http.StatusOK || !strings.Contains(body, `id="board-error"`) {
			t.Errorf("an unknown metric on the page: %d, want the board with the error", code)
		}
	})
}

func TestFamiliesGroupModelNames(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := boardSite(t, st)
		code, body := ts.get(t, "/families/qwen3.8-27b?lang=en")
		if code != http.StatusOK {
			t.Fatalf("the family page: %d", code)
		}
		for _, want := range []string{"RedHatAI/Qwen3.8-27B-INT4", "Qwen/Qwen3.8-27B", "qwen3.8:27b-q4_K_M", `aria-labelledby="tradeoff-family-t"`, `id="group-bars"`} {
			if !strings.Contains(body, want) {
				t.Errorf("the family page lacks %q", want)
			}
		}
		// The trade-off draws one line per run: 3 runs, each with a line at context 0.
		if n := strings.Count(body, "<polyline"); n != 3 {
			t.Errorf("the family's trade-off has %d lines, want 3", n)
		}
		_, body = ts.get(t, "/families")
		if !strings.Contains(body, `href="/families/qwen3.8-27b"`) {
			t.Errorf("the family list lacks qwen3.8-27b")
		}
		code, body = ts.get(t, "/api/v1/families")
		var fams []wire.Group
		if err := json.Unmarshal([]byte(body), &fams); code != http.StatusOK || err != nil || len(fams) != 1 || fams[0].Runs != 4 {
			t.Errorf("GET /api/v1/families = %d %s", code, body)
		}
		// The model page draws the trade-off and the GPUs at a chosen cell.
		_, body = ts.get(t, "/models/Qwen%2FQwen3.8-27B?metric=ttft_ms&context=0&concurrency=8")
		if !strings.Contains(body, `aria-labelledby="bars-model-t"`) || !strings.Contains(body, "RTX 5090") || !strings.Contains(body, `id="cf-metric"`) {
			t.Errorf("the model page lacks its charts or its cell form")
		}
	})
}

func TestSubmitterAndAuthorAreNamedApart(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := boardSite(t, st)
		_, body := ts.get(t, "/runs/"+seedID+"?lang=en")
		sub := `<span id="run-submitter">` + locale.T("en", "submitted_by") + `: <a href="/submitters/@alice">@alice</a>`
		auth := `<span id="run-author">` + locale.T("en", "document_author") + `: <a href="/authors/@Sandberg">@Sandberg</a>`
		if !strings.Contains(body, sub) || !strings.Contains(body, auth) {
			t.Errorf("the run page does not name the submitting account and the document's author apart")
		}
		code, body := ts.get(t, "/submitters/@alice?lang=en")
		if code != http.StatusOK || !strings.Contains(body, locale.T("en", "person_submitter_note")) || strings.Count(body, `<tr data-id=`) != 4 {
			t.Errorf("@alice's page: %d, want her 4 runs as a site account", code)
		}
		code, body = ts.get(t, "/authors/@Sandberg?lang=ja")
		if code != http.StatusOK || !strings.Contains(body, html.EscapeString(locale.T("ja", "person_author_note"))) || strings.Count(body, `<tr data-id=`) != 4 {
			t.Errorf("@Sandberg's page: %d, want the 4 runs whose document names him, marked unchecked", code)
		}
		for _, p := range []string{"/submitters/@nobody", "/authors/@nobody"} {
			if code, _ := ts.get(t, p); code != http.StatusNotFound {
				t.Errorf("GET %s: %d, want 404", p, code)
			}
		}
		_, body = ts.get(t, "/orgs")
		if !strings.Contains(body, `href="/authors/@Sandberg"`) || !strings.Contains(body, `href="/submitters/@alice"`) {
			t.Errorf("the organisations page lists neither the authors nor the submitters")
		}
	})
}

func TestFaviconAndRobots(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	code, hdr, body := ts.do(t, http.MethodGet, "/favicon.ico", "", nil)
	if code != http.StatusOK || hdr.Get("Content-Type") != "image/x-icon" || !strings.HasPrefix(body, "\x00\x00\x01\x00") {
		t.Errorf("GET /favicon.ico: %d %q, an ICO: %v", code, hdr.Get("Content-Type"), strings.HasPrefix(body, "\x00\x00\x01\x00"))
	}
	code, hdr, body = ts.do(t, http.MethodGet, "/robots.txt", "", nil)
	if code != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "text/plain") || !strings.Contains(body, "Disallow: /api/") {
		t.Errorf("GET /robots.txt: %d %q\n%s", code, hdr.Get("Content-Type"), body)
	}
	if _, body := ts.get(t, "/"); !strings.Contains(body, `<link rel="icon" href="/favicon.ico">`) {
		t.Errorf("pages do not name the favicon")
	}
}
