package site

import (
	"sort"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
)

// TestEveryTextKeyIsDefined (issue 24 item 9): every key a template or the code asks
// for has a text — an unknown key shows as itself, "card_goodput" on the page — and
// every text has both languages (internal/locale).
func TestEveryTextKeyIsDefined(t *testing.T) {
	keys, err := TextKeys()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) < 300 {
		t.Fatalf("found %d keys: the patterns no longer match how templates and code name them", len(keys))
	}
	var missing []string
	for k, where := range keys {
		if !locale.Has(k) {
			missing = append(missing, k+" ("+where+")")
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("no text for key %s", m)
	}
}
