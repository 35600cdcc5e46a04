package site

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
	"github.com/llmbench/llmbench/internal/site/wire"
	"github.com/llmbench/llmbench/internal/stats"
)

// historyDocs are the seed (RTX 3090, RedHatAI/Qwen3.8-27B-INT4) under vLLM and
// llama.cpp versions submitted out of their order, each its own single-stream figure;
// 0.10.2's run has an interval.
func historyDocs(t *testing.T) [][]byte {
	var docs [][]byte
	for i, v := range []struct {
		engine, version string
		decode          float64
	}{{"vllm", "0.11.0", 60}, {"vllm", "0.10.2", 52}, {"vllm", "0.10.1", 50}, {"vllm", "0.10.1.1", 51},
		{"llamacpp", "b10587", 40}, {"llamacpp", "b6700", 35}, {"llamacpp", "b6609", 30}} {
		docs = append(docs, edited(t, func(r *rundoc.Run) {
			r.ID = "hist-" + v.engine + "-" + v.version
			r.Engine.Name, r.Engine.Version = v.engine, v.version
			r.CreatedAt = time.Date(2026, 11, 1+i, 9, 0, 0, 0, time.UTC)
			c := r.Cell(0, 1)
			c.TotalTokS = v.decode
			if v.version == "0.10.2" {
				c.CellIntervals = &rundoc.CellIntervals{TotalTokSCI: &stats.Interval{Low: 51, High: 53.5}, CIMethod: rundoc.CIMethodWindow}
			}
		}))
	}
	return docs
}

// TestHistoryPageAndAPI (issue 39 item 2): on either store, GET /api/v1/history
// orders vLLM's and llama.cpp's versions as the engines do (0.10.1 < 0.10.1.1 <
// 0.10.2 < 0.11.0; b6609 < b6700 < b10587) with each run's interval; the page shows
// them in that order in both languages and the GPU's and model's pages link it; a
// history without its GPU or model, or with a parameter twice, is a 400, never a 500.
func TestHistoryPageAndAPI(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{PageTTL: -1})
		for _, d := range historyDocs(t) {
			ts.mustSubmit(t, d)
		}
		q := "gpu=rtx+3090&model=" + url.QueryEscape("RedHatAI/Qwen3.8-27B-INT4")
		code, body := ts.get(t, "/api/v1/history?"+q)
		var h wire.History
		if code != http.StatusOK || json.Unmarshal([]byte(body), &h) != nil {
			t.Fatalf("GET /api/v1/history = %d %s", code, body)
		}
		var got []string
		for _, se := range h.Series {
			for _, v := range se.Versions {
				got = append(got, se.Engine+" "+v.Version)
			}
		}
		want := []string{"llamacpp b6609", "llamacpp b6700", "llamacpp b10587", "vllm 0.10.1", "vllm 0.10.1.1", "vllm 0.10.2", "vllm 0.11.0"}
		if strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Errorf("versions %v, want %v", got, want)
		}
		if h.GPU != "RTX 3090" || h.Runs != 7 || h.Truncated {
			t.Errorf("answer names %q with %d runs (truncated %v), want RTX 3090 with 7", h.GPU, h.Runs, h.Truncated)
		}
		if len(h.Series) == 2 && len(h.Series[1].Versions) == 4 {
			if ci := h.Series[1].Versions[2].Best.CI; ci == nil || *ci != (stats.Interval{Low: 51, High: 53.5}) {
				t.Errorf("0.10.2's interval = %v, want [51, 53.5]", ci)
			}
		}
		for _, lang := range []string{"en", "ja"} {
			code, page := ts.get(t, "/history?"+q+"&lang="+lang)
			if code != http.StatusOK {
				t.Fatalf("GET /history (%s) = %d", lang, code)
			}
			last := -1
			for _, v := range []string{">0.10.1<", ">0.10.1.1<", ">0.10.2<", ">0.11.0<"} {
				i := strings.Index(page, "<td>"+v[1:])
				if i < 0 || i < last {
					t.Errorf("%s page: version row %s missing or out of order", lang, v)
				}
				last = i
			}
			if !strings.Contains(page, `class="lb-whisker"`) || strings.Count(page, `class="lb-mark"`) != 7 {
				t.Errorf("%s page: the charts do not draw the 7 runs and the one interval", lang)
			}
		}
		for _, p := range []string{"/hardware/RTX%203090", "/models/RedHatAI%2FQwen3.8-27B-INT4"} {
			if code, page := ts.get(t, p); code != http.StatusOK || !strings.Contains(page, `href="/history?gpu=RTX&#43;3090&amp;model=RedHatAI%2FQwen3.8-27B-INT4"`) {
				t.Errorf("%s (%d) does not link the history", p, code)
			}
		}
		for _, bad := range []string{"/history?gpu=H200", "/history?model=m", "/history?gpu=a&gpu=b&model=m", "/api/v1/history?model=m", "/api/v1/history?gpu=a&model=m&quant=x&quant=y",
			"/api/v1/history?gpu=%ff&model=m", "/history?gpu=" + strings.Repeat("x", 5000) + "&model=m"} {
			if code, body := ts.get(t, bad); code != http.StatusBadRequest {
				t.Errorf("GET %.60s = %d, want 400: %.200s", bad, code, body)
			}
		}
		var none wire.History
		if code, body := ts.get(t, "/api/v1/history?gpu=H200&model=nobody"); code != http.StatusOK || json.Unmarshal([]byte(body), &none) != nil || none.Series == nil || len(none.Series) != 0 {
			t.Errorf("a pair without runs = %d %s, want 200 and no series", code, body)
		}
	})
}
