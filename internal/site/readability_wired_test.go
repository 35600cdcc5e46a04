package site_test

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/llmbench/llmbench/internal/browsertest"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// TestRunPageLinksOnlyToCalculatorPagesThatOpen (issue 37 item 18): a run page linked
// to the calculator with a setup its form refuses (gpus=4096: 400); it now says why
// there is no link instead, and every link it does give opens.
func TestRunPageLinksOnlyToCalculatorPagesThatOpen(t *testing.T) {
	seed, err := readSeed()
	if err != nil {
		t.Fatal(err)
	}
	hs := wiredSite(t, docVariant(t, seed, func(r *rundoc.Run) {
		r.ID, r.Hardware.GPUs[0].Name, r.Hardware.GPUs[0].Count = "cluster", "H100", 4096
	}))
	link := regexp.MustCompile(`href="(/calculator\?[^"]+)"`)
	for _, lang := range []string{"en", "ja"} {
		_, body := fetch(t, hs, "/runs/cluster?lang="+lang)
		if m := link.FindStringSubmatch(body); m != nil {
			t.Errorf("%s: the 4,096-GPU run links to %s", lang, m[1])
		}
		if !strings.Contains(body, `id="vs-calc-refused"`) || !strings.Contains(body, "64") {
			t.Errorf("%s: the page does not say why there is no link to the calculator", lang)
		}
		_, body = fetch(t, hs, "/runs/"+browserSeedID+"?lang="+lang)
		m := link.FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("%s: the seed's page has no link to the calculator", lang)
		}
		if code, _ := fetch(t, hs, html.UnescapeString(m[1])); code != http.StatusOK {
			t.Errorf("%s: the seed's calculator link %s answers %d", lang, m[1], code)
		}
	}
}

// TestSpecValuesInJapanese (issue 37 item 17): the catalog's words for a model's
// attention ("full", "linear") read in Japanese on a Japanese page.
func TestSpecValuesInJapanese(t *testing.T) {
	hs := wiredSite(t)
	_, ja := fetch(t, hs, "/models/RedHatAI%2FQwen3.8-27B-INT4?lang=ja")
	spec := regexp.MustCompile(`(?s)<div class="spec-attention">.*?</div>`).FindString(ja)
	if !strings.Contains(spec, "線形アテンション") || strings.Contains(spec, ">linear<") {
		t.Errorf("the Japanese page's attention spec: %s", spec)
	}
	_, en := fetch(t, hs, "/models/RedHatAI%2FQwen3.8-27B-INT4?lang=en")
	if !strings.Contains(en, "<dd>linear</dd>") {
		t.Error("the English page's attention spec is not the catalog's word")
	}
}

// TestBrowserCopyRefused (issue 37 item 18): where the browser refuses the clipboard,
// the run page's Copy says so and selects the launch command for the reader to copy
// (it failed silently); where it allows it, Copy says Copied.
func TestBrowserCopyRefused(t *testing.T) {
	ctx := browsertest.Start(t)
	hs := browserSite(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/runs/"+browserSeedID+"?lang=ja"), chromedp.WaitVisible(chromedp.CSS(".lb-copy"))); err != nil {
		t.Fatal(err)
	}
	// Refused: the clipboard's promise rejects, as it does without permission.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int](`navigator.clipboard.writeText = () => Promise.reject(new DOMException("refused", "NotAllowedError")); 0`)); err != nil {
		t.Fatal(err)
	}
	err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(".lb-copy")),
		chromedp.WaitVisible(chromedp.CSS(".lb-copy-status:not(:empty)")),
	)
	if err != nil {
		t.Fatal(err)
	}
	status := text(ctx, t, ".lb-copy-status")
	selected, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`window.getSelection().toString()`))
	command, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector(".lb-code code").textContent`))
	if !strings.Contains(status, "Ctrl+C") || !strings.Contains(status, "コピーできませんでした") {
		t.Errorf("after a refused copy the page says %q", status)
	}
	if selected == "" || selected != command {
		t.Errorf("after a refused copy the selection is %q, want the launch command", selected)
	}
	browsertest.Screenshot(t, ctx, "site-copy-refused-ja")
	// Allowed: Copied, and the message goes.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int](`navigator.clipboard.writeText = () => Promise.resolve(); 0`)); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(".lb-copy")),
		chromedp.WaitVisible(chromedp.CSS(".lb-copy-status:empty")),
	)
	if err != nil {
		t.Fatal(err)
	}
	if b := text(ctx, t, ".lb-copy"); b != "コピーしました" {
		t.Errorf("after a copy the button reads %q", b)
	}
}
