package browsertest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/llmbench/llmbench/internal/browsertest"
)

// The helper must see a request the page makes on its own, and the screenshot must be
// a PNG file on disk.
func TestStartRecordsRequestsAndScreenshots(t *testing.T) {
	ctx := browsertest.Start(t)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>t</title><link rel="icon" href="data:,"><p id="p">hello</p><img src="/pixel.gif">`)
	})
	mux.HandleFunc("GET /pixel.gif", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	srv := httptest.NewServer(mux)
	defer srv.Close()

	reqs := browsertest.RecordRequests(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("p").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if text != "hello" {
		t.Errorf("page text = %q, want hello", text)
	}
	if other := reqs.Except(srv.URL + "/"); !slices.Contains(other, srv.URL+"/pixel.gif") {
		t.Errorf("requests other than the page = %v, want the image among them", other)
	}
	path := browsertest.Screenshot(t, ctx, "browsertest self-check")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 8 || string(b[1:4]) != "PNG" {
		t.Errorf("screenshot %s is not a PNG", path)
	}
}
