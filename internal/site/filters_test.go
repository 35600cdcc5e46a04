package site

import (
	"encoding/json"
	"html"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// TestFiltersAreNotCaseSensitive: the model, engine and quantization filters find
// their runs in any case in the API and on the pages of both languages, and one weight
// format's labels are one quantization — "Q4_K_M" (Ollama's) and "GGUF Q4_K_M" (a
// prediction's), "AWQ" and "AWQ INT4 g128" — chosen in the filter menu however the URL
// wrote it (issue 37 item 9; /docs said filters were not case-sensitive, and they were).
func TestFiltersAreNotCaseSensitive(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{RateBurst: 100})
		for _, v := range []struct{ id, model, engine, quant string }{
			{"awq-a", "Qwen/Qwen3-8B", "vllm", "AWQ"},
			{"awq-b", "qwen/qwen3-8b", "vLLM", "AWQ INT4 g128"},
			{"gguf-a", "qwen3:8b", "ollama", "Q4_K_M"},
			{"gguf-b", "qwen3:8b", "Ollama", "GGUF Q4_K_M"},
		} {
			ts.mustSubmit(t, edited(t, func(r *rundoc.Run) {
				r.ID, r.Title, r.Model.ID, r.Engine.Name, r.Engine.Quantization = v.id, v.id, v.model, v.engine, v.quant
			}))
		}
		runs := func(q string) []string {
			t.Helper()
			code, body := ts.get(t, "/api/v1/runs?"+q)
			if code != http.StatusOK {
				t.Fatalf("?%s: %d %s", q, code, body)
			}
			var a wire.RunList
			if err := json.Unmarshal([]byte(body), &a); err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range a.Runs {
				ids = append(ids, r.ID)
			}
			slices.Sort(ids)
			return ids
		}
		for q, want := range map[string][]string{
			"engine=VLLM":                  {"awq-a", "awq-b"},
			"engine=OLLAMA":                {"gguf-a", "gguf-b"},
			"quant=q4_k_m":                 {"gguf-a", "gguf-b"},
			"quant=GGUF+Q4_K_M":            {"gguf-a", "gguf-b"},
			"quant=awq":                    {"awq-a", "awq-b"},
			"model=QWEN/QWEN3-8B":          {"awq-a", "awq-b"},
			"model=qwen3:8B&engine=ollama": {"gguf-a", "gguf-b"},
		} {
			if got := runs(q); !slices.Equal(got, want) {
				t.Errorf("/api/v1/runs?%s = %v; want %v", q, got, want)
			}
		}
		for _, lang := range []string{"en", "ja"} {
			_, page := ts.get(t, "/?metric=total_tok_s&context=0&concurrency=1&quant=q4_k_m&lang="+lang)
			page = html.UnescapeString(page)
			if !strings.Contains(page, "/runs/gguf-a") || !strings.Contains(page, "/runs/gguf-b") || strings.Contains(page, "/runs/awq-a") {
				t.Errorf("%s: the board filtered by q4_k_m does not rank exactly the two Q4_K_M runs", lang)
			}
			if !strings.Contains(page, `<option value="GGUF Q4_K_M" selected>GGUF Q4_K_M (2)</option>`) || strings.Contains(page, `value="Q4_K_M"`) {
				t.Errorf("%s: the quantization menu does not offer GGUF Q4_K_M once, chosen, with both runs", lang)
			}
			_, list := ts.get(t, "/runs?engine=VLLM&lang="+lang)
			if list = html.UnescapeString(list); !strings.Contains(list, `<option value="vLLM" selected>vLLM (2)</option>`) || strings.Contains(list, `value="vllm"`) {
				t.Errorf("%s: the run list's engine menu does not offer vLLM/vllm once, chosen", lang)
			}
		}
	})
}
