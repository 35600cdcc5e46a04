package site_test

import (
	"html"
	"os"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// TestCalculatorListsEachMeasuredRunOnce: the calculator's "measured runs of this GPU
// and model" lists the seed once whether the GPU and model are typed as the store
// holds them, as the catalog names them, or in another case (issue 37 item 8: a typed
// name and the catalog's that differ listed every run twice), in both languages.
func TestCalculatorListsEachMeasuredRunOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		hs := wiredSiteOn(t, st)
		seed, err := readSeed()
		if err != nil {
			t.Fatal(err)
		}
		r, err := rundoc.Decode(seed)
		if err != nil {
			t.Fatal(err)
		}
		link := `href="/runs/` + r.ID + `"`
		listed := func(query string) int {
			t.Helper()
			_, body := fetch(t, hs, "/calculator?"+query)
			i := strings.Index(body, `id="calc-measured"`)
			if i < 0 {
				t.Fatalf("/calculator?%s has no measured runs' section", query)
			}
			section, _, _ := strings.Cut(body[i:], "</section>")
			return strings.Count(section, link)
		}
		for _, lang := range []string{"en", "ja"} {
			once := listed("gpu=RTX+3090&model=RedHatAI%2FQwen3.8-27B-INT4&lang=" + lang)
			if once == 0 {
				t.Fatalf("%s: the seed is not among the measured runs of its own GPU and model", lang)
			}
			for _, q := range []string{"gpu=rtx-3090&model=qwen3.8-27b", "gpu=rtx+3090&model=redhatai%2Fqwen3.8-27b-int4", "gpu=RTX+3090+24+GB&model=Qwen%2FQwen3.8-27B"} {
				if n := listed(q + "&lang=" + lang); n != once {
					t.Errorf("%s: /calculator?%s links the seed %d times; want %d, as for the stored names", lang, q, n, once)
				}
			}
		}
	})
}

// TestPredictedRunPageSaysItsPrefillWasPredicted: the page of a predicted run (as
// llmbench calc writes one, submitted) says its prefill was predicted for a cold
// request and nothing measured, in both languages — not "Measured during decode
// warm-up" (issue 37 item 11); the seed's page keeps its mode.
func TestPredictedRunPageSaysItsPrefillWasPredicted(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		doc, err := os.ReadFile("../report/testdata/predicted-run.json")
		if err != nil {
			t.Fatal(err)
		}
		pred, err := rundoc.Decode(doc)
		if err != nil {
			t.Fatal(err)
		}
		seed, err := readSeed()
		if err != nil {
			t.Fatal(err)
		}
		measured, err := rundoc.Decode(seed)
		if err != nil {
			t.Fatal(err)
		}
		hs := wiredSiteOn(t, st, doc)
		for _, lang := range []string{"en", "ja"} {
			_, page := fetch(t, hs, "/runs/"+pred.ID+"?lang="+lang)
			page = html.UnescapeString(page)
			if !strings.Contains(page, locale.T(lang, "pm_predicted")) || strings.Contains(page, locale.T(lang, "pm_decode-warmup")) {
				t.Errorf("%s: the predicted run's page does not say %q for its prefill mode", lang, locale.T(lang, "pm_predicted"))
			}
			if _, page := fetch(t, hs, "/runs/"+measured.ID+"?lang="+lang); !strings.Contains(html.UnescapeString(page), locale.T(lang, "pm_decode-warmup")) {
				t.Errorf("%s: the seed's page lost its prefill mode", lang)
			}
		}
	})
}
