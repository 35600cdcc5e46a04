package locale

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// keyUses are how code and templates name a text by a literal key: T(lang, "key"),
// a page's or report's own p.T("key"), a template's .T "key", and a field error's
// reason (guard.Refuse(field, "key")). Keys a template or
// the code builds from a prefix ("metric_" + name) are checked by the tests of the
// package that builds them, which know every value.
var keyUses = []*regexp.Regexp{
	regexp.MustCompile(`\bT\([^,()"]+, "([a-z0-9_]+)"[,)]`),
	regexp.MustCompile(`\.T\("([a-z0-9_]+)"[,)]`),
	regexp.MustCompile(`\bT "([a-z0-9_]+)"`),
	regexp.MustCompile(`\bRefuse\([^,()"]+, "([a-z0-9_]+)"[,)]`),
}

// TestEveryKeyUsedIsDefined: every key the code or a template of the repository names
// has its text in both languages — an unknown key shows as itself ("card_goodput" on
// a page), in the language that lacks it or in both.
func TestEveryKeyUsedIsDefined(t *testing.T) {
	root := filepath.Join("..", "..")
	used := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || strings.HasSuffix(p, "_test.go") || !(strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".html")) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, re := range keyUses {
			for _, m := range re.FindAllStringSubmatch(string(b), -1) {
				used[m[1]] = p
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(used) < 400 {
		t.Fatalf("found %d keys used: the patterns no longer match how code and templates name them", len(used))
	}
	en, ja := Texts(EN), Texts(JA)
	var missing []string
	for k, where := range used {
		if _, ok := en[k]; !ok {
			missing = append(missing, k+" in English ("+where+")")
		}
		if _, ok := ja[k]; !ok {
			missing = append(missing, k+" in Japanese ("+where+")")
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("no text for %s", m)
	}
	t.Logf("%d keys used, %d texts", len(used), len(en))
}
