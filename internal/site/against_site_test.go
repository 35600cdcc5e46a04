package site

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/overlay/overlaytest"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

var dataMark = regexp.MustCompile(`data-mark="([a-z_]+)"`)

// marksOf are a page's overlay rows' marks, in order.
func marksOf(page string) []string {
	var out []string
	for _, m := range dataMark.FindAllStringSubmatch(page, -1) {
		out = append(out, m[1])
	}
	return out
}

// countMarked counts the marks that are differences beyond the noise.
func countMarked(marks []string) int {
	n := 0
	for _, m := range marks {
		if m == "better" || m == "worse" {
			n++
		}
	}
	return n
}

func pairDocs(t *testing.T) (mine, best []byte, marked int) {
	t.Helper()
	m, b, want := overlaytest.Pair()
	mine, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	best, err = json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return mine, best, len(want)
}

// uploadBody is a multipart form with doc as its "run" file.
func uploadBody(t testing.TB, field string, doc []byte) ([]byte, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	fw, err := mw.CreateFormFile(field, "run.json")
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(doc)
	mw.Close()
	return b.Bytes(), mw.FormDataContentType()
}

// TestRunPageLaysTheRunOverTheBest: a run's page lays it over the best other run of
// its GPU and model, marking exactly the figures overlaytest.Pair names, in both
// languages; the best run's page is laid over the next; a run alone says so.
func TestRunPageLaysTheRunOverTheBest(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{RateBurst: 100})
		mine, best, marked := pairDocs(t)
		ts.mustSubmit(t, mine)
		ts.mustSubmit(t, best)
		ts.mustSubmit(t, seedDoc(t)) // same GPU and model, lower peak than mine
		for _, lang := range []string{"en", "ja"} {
			code, page := ts.get(t, "/runs/mine-seed?lang="+lang)
			if code != http.StatusOK {
				t.Fatalf("GET /runs/mine-seed: %d", code)
			}
			if !strings.Contains(page, `href="/runs/best-seed" id="against-best"`) {
				t.Errorf("%s: mine is not laid over best-seed", lang)
			}
			if n := countMarked(marksOf(page)); n != marked {
				t.Errorf("%s: %d figures marked, want %d", lang, n, marked)
			}
			if !strings.Contains(page, locale.T(lang, "ov_title")) || !strings.Contains(page, locale.T(lang, "ov_rule")) {
				t.Errorf("%s: the section's title or rule is missing", lang)
			}
		}
		// Mine has the highest peak: best's page is laid over it, the same cells marked
		// the other way.
		_, page := ts.get(t, "/runs/best-seed")
		if !strings.Contains(page, `href="/runs/mine-seed" id="against-best"`) || countMarked(marksOf(page)) != marked {
			t.Errorf("best-seed's page: not laid over mine-seed with %d marks", marked)
		}
		lonely := edited(t, func(r *rundoc.Run) { r.ID, r.Hardware.GPUs[0].Name = "lonely", "RTX 5090" })
		ts.mustSubmit(t, lonely)
		_, page = ts.get(t, "/runs/lonely")
		if !strings.Contains(page, `id="against-none"`) || len(marksOf(page)) != 0 {
			t.Errorf("a run alone on its GPU: no 'nothing to lay it over' note")
		}
	})
}

// TestUploadLaysOverAndStoresNothing: a document posted to /against is laid over the
// best run, the same figures marked as on a run page, and not stored.
func TestUploadLaysOverAndStoresNothing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{RateBurst: 100})
		mine, best, marked := pairDocs(t)
		ts.mustSubmit(t, best)
		if code, page := ts.get(t, "/against?lang=ja"); code != http.StatusOK || !strings.Contains(page, `enctype="multipart/form-data"`) || !strings.Contains(page, locale.T("ja", "ov_upload_title")) {
			t.Fatalf("GET /against: %d", code)
		}
		writes := st.Writes()
		body, ctype := uploadBody(t, "run", mine)
		code, _, page := ts.do(t, http.MethodPost, "/against", "", body, "Content-Type", ctype)
		if code != http.StatusOK || countMarked(marksOf(page)) != marked || !strings.Contains(page, `href="/runs/best-seed" id="against-best"`) {
			t.Fatalf("POST /against: %d, %d marks (want %d)\n%.2000s", code, countMarked(marksOf(page)), marked, page)
		}
		if !strings.Contains(page, "Mine: Qwen3.8-27B-INT4 on RTX 3090") {
			t.Errorf("the page does not name the posted run")
		}
		if code, _ := ts.get(t, "/api/v1/runs/mine-seed"); code != http.StatusNotFound {
			t.Errorf("the posted run is on the site: GET its API address = %d", code)
		}
		if w := st.Writes(); w != writes {
			t.Errorf("the store was written %d times by an upload", w-writes)
		}
	})
}
