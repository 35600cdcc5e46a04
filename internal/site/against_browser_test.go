package site_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/llmbench/llmbench/internal/browsertest"
	"github.com/llmbench/llmbench/internal/overlay/overlaytest"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/site"
	"github.com/llmbench/llmbench/internal/site/client"
)

// TestBrowserUploadPicker is what a reader does in a real browser: pick a run document
// in the upload page's file picker, send the form, and read their run laid over the
// best one, the figures overlaytest.Pair names marked (and only those), in Japanese
// too; the run is not on the site afterwards.
func TestBrowserUploadPicker(t *testing.T) {
	ctx := browsertest.Start(t)
	hs, tok := serveWired(t, site.Options{})
	mine, best, marked := overlaytest.Pair()
	doc, _ := json.Marshal(best)
	if _, err := client.Submit(ctx, hs.Client(), hs.URL, tok, doc); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "my-run.json")
	doc, _ = json.Marshal(mine)
	if err := os.WriteFile(file, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"en", "ja"} {
		err := chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/against?lang="+lang),
			chromedp.SetUploadFiles(chromedp.CSS(`#against-form input[type=file]`), []string{file}),
			chromedp.Click(chromedp.CSS(`#against-form button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(`#against-table`)))
		if err != nil {
			t.Fatalf("%s: picking and sending the file: %v", lang, err)
		}
		browsertest.Screenshot(t, ctx, "against-upload-"+lang)
		n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#against-table tr[data-mark="better"], #against-table tr[data-mark="worse"]').length`))
		if n != len(marked) {
			t.Errorf("%s: %d rows marked, want %d", lang, n, len(marked))
		}
		want := report.NewOverlayView(lang, mine, report.Baseline{Run: best, URL: "/runs/best-seed"}).Summary
		if s := text(ctx, t, "#against-summary"); s != want {
			t.Errorf("%s: the summary reads %q, want %q", lang, s, want)
		}
		href, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`new URL(document.querySelector('#against-best').href).pathname`))
		if s := text(ctx, t, "#against-best"); s != best.Title || href != "/runs/best-seed" {
			t.Errorf("%s: laid over %q (%s), want %q (/runs/best-seed)", lang, s, href, best.Title)
		}
	}
	if resp, err := hs.Client().Get(hs.URL + "/api/v1/runs/mine-seed"); err != nil || resp.StatusCode != 404 {
		t.Errorf("the picked run is on the site after its upload: %v %v", resp.StatusCode, err)
	}
}
