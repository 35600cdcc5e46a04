package session

import (
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// TestResolvePrice: a number, a catalog id (times the GPUs), none, and auto from the
// detected GPU, which says the price is the catalog's, not the machine's.
func TestResolvePrice(t *testing.T) {
	doc := &rundoc.Run{Hardware: rundoc.Hardware{GPUs: []rundoc.GPU{{Name: "NVIDIA H200", Count: 2}}}}
	p, _, err := resolvePrice("2.49", doc, 0, nil)
	if err != nil || p.USDPerHour != 2.49 || p.Source != "--price-per-hour" || p.Date == "" {
		t.Errorf("2.49: %+v %v", p, err)
	}
	p, _, err = resolvePrice("lambda-h100-sxm", doc, 4, nil)
	if err != nil || p.USDPerHour != 15.12 || p.Date != "2026-05-07" || p.CatalogID != "lambda-h100-sxm" {
		t.Errorf("catalog id × 4 GPUs: %+v %v", p, err)
	}
	if p, _, err := resolvePrice("none", doc, 0, nil); p != nil || err != nil {
		t.Errorf("none: %+v %v", p, err)
	}
	p, note, err := resolvePrice("auto", doc, 0, nil)
	if err != nil || p == nil || p.USDPerHour != 11.16 || p.CatalogID != "runpod-serverless-h200" || !strings.Contains(note, "not this machine's cost") {
		t.Errorf("auto, 2× H200: %+v %q %v", p, note, err)
	}
	unknown := &rundoc.Run{Hardware: rundoc.Hardware{GPUs: []rundoc.GPU{{Name: "NVIDIA GH200 480GB", Count: 1}}}}
	if p, note, err := resolvePrice("auto", unknown, 0, nil); p != nil || err != nil || !strings.Contains(note, "--price-per-hour") {
		t.Errorf("auto, a GPU name the catalog does not know: %+v %q %v", p, note, err)
	}
	for _, bad := range []string{"-1", "0", "nope"} {
		if _, _, err := resolvePrice(bad, doc, 0, nil); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
