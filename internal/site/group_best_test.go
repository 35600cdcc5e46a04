package site

import (
	"html"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// TestBestFiguresNameTheirRun: a GPU's page names the model and the run behind its best
// single-stream decode and its best peak, in both languages — here a Qwen3-8B run's
// decode among 27B runs, and the 27B seed's peak (issue 37 item 10: neither was
// named); a model's page names the GPU they were on.
func TestBestFiguresNameTheirRun(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{RateBurst: 100})
		ts.mustSubmit(t, seedDoc(t))
		ts.mustSubmit(t, edited(t, func(r *rundoc.Run) {
			r.ID, r.Title, r.Model.ID = "small-8b", "Qwen3-8B at one stream", "Qwen/Qwen3-8B"
			for i := range r.Decode {
				if f := r.Decode[i].DecodeFigures; f != nil {
					g := *f
					g.TotalTokS *= 0.5
					if r.Decode[i].Context == 0 && r.Decode[i].Concurrency == 1 {
						g.TotalTokS = 144.6 // three times the seed's 48.2; its peak stays below the seed's 329.4
					}
					r.Decode[i].DecodeFigures = &g
				}
			}
		}))
		seed, err := rundoc.Decode(seedDoc(t))
		if err != nil {
			t.Fatal(err)
		}
		dd := func(page, id string) string {
			t.Helper()
			i := strings.Index(page, `id="`+id+`"`)
			if i < 0 {
				t.Fatalf("the page has no %s", id)
			}
			s, _, _ := strings.Cut(page[i:], "</dd>")
			return html.UnescapeString(s)
		}
		for _, lang := range []string{"en", "ja"} {
			_, page := ts.get(t, "/hardware/RTX%203090?lang="+lang)
			decode, peak := dd(page, "best-decode"), dd(page, "best-peak")
			if want := locale.T(lang, "best_run_of", "Qwen/Qwen3-8B", "RTX 3090 24 GB"); !strings.Contains(decode, "144.6") || !strings.Contains(decode, want) ||
				!strings.Contains(decode, `href="/runs/small-8b"`) {
				t.Errorf("%s: best decode %q does not name %q and its run", lang, decode, want)
			}
			if want := locale.T(lang, "best_run_of", "RedHatAI/Qwen3.8-27B-INT4", "RTX 3090 24 GB"); !strings.Contains(peak, want) || !strings.Contains(peak, `href="/runs/`+seed.ID+`"`) {
				t.Errorf("%s: best peak %q does not name %q and its run", lang, peak, want)
			}
			_, page = ts.get(t, "/models/Qwen%2FQwen3-8B?lang="+lang)
			if decode := dd(page, "best-decode"); !strings.Contains(decode, locale.T(lang, "best_run_of", "Qwen/Qwen3-8B", "RTX 3090 24 GB")) {
				t.Errorf("%s: the model page's best decode %q does not name its GPU", lang, decode)
			}
		}
	})
}
