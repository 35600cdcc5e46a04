package site

import (
	"sort"
	"testing"
)

// TestEveryTextKeyIsDefined (issue 24 item 9): every key a template or the code asks
// for has a text — an unknown key shows as itself, "card_goodput" on the page — and
// every text of the site's own table has both languages.
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
		if !TextDefined(k) {
			missing = append(missing, k+" ("+where+")")
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("no text for key %s", m)
	}
	for k, m := range messages {
		if m[0] == "" || m[1] == "" {
			t.Errorf("message %s lacks a language: %q", k, m)
		}
	}
}
